"""Every scenario in docs/scenarios.md loads, as the page promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from podscale.scenario.loader import parse_scenario

ROOT = Path(__file__).parents[2]
BLOCK = re.compile(r"```yaml\n(.*?)```", re.DOTALL)


def yaml_blocks() -> list[str]:
    return BLOCK.findall((ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8"))


def test_the_page_has_examples() -> None:
    assert len(yaml_blocks()) >= 6


@pytest.mark.parametrize("index", range(len(yaml_blocks())), ids=lambda i: f"block-{i}")
def test_scenario_example_loads(index: int) -> None:
    document = yaml.safe_load(yaml_blocks()[index])
    # The page's paths are relative to the repository root, as if the file sat there.
    scenario = parse_scenario(document, base_dir=ROOT)
    assert scenario.name == document["metadata"]["name"]
