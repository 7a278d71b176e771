"""The Python examples in the docs run and their assertions hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).parents[2] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def python_blocks() -> list[tuple[str, str]]:
    blocks = []
    for doc in sorted(DOCS.glob("*.md")):
        for index, code in enumerate(BLOCK.findall(doc.read_text())):
            blocks.append((f"{doc.name}#{index}", code))
    return blocks


@pytest.mark.parametrize(("where", "code"), python_blocks(), ids=[w for w, _ in python_blocks()])
def test_example_runs(where: str, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})
    capsys.readouterr()
