"""``podscale replay`` on HPAs that do not scale on pod CPU utilization: the report says
what each HPA measured against its own target, whatever the metric type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize(
    ("scenario", "line", "label", "target"),
    [
        (
            "external-metric/scenario.yaml",
            "  scenario: queue_messages_ready mean ",
            "queue_messages_ready",
            30,
        ),
        (
            "container-resource-sidecar/scenario.yaml",
            "  scenario: cpu (container application) mean ",
            "cpu (container application)",
            60,
        ),
    ],
    ids=["external", "container-resource"],
)
def test_the_report_shows_each_hpas_own_metric(
    tmp_path: Path, scenario: str, line: str, label: str, target: int
) -> None:
    args = ["replay", str(EXAMPLES / scenario), "--jobs", "1", "--json", str(tmp_path / "r.json")]
    args += ["--plot", str(tmp_path / "r.png")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    (shown,) = [row for row in result.output.splitlines() if row.startswith(line)]
    assert "vs target " in shown
    hpa = json.loads((tmp_path / "r.json").read_text())["runs"][0]["hpa"]
    (metric,) = hpa["metrics"]
    assert (metric["label"], metric["target"]) == (label, target)
    # The metric rose above its target at some minute: it is what drove the scale-ups.
    assert max(v for v in metric["minuteMeans"] if v is not None) > target
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
