"""The terminal view of ``podscale demo``: a rich live table that fits 80 columns."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from rich.console import Console

from podscale.cli.demo_live import RichLiveView
from podscale.demo.timeline import Sample, TimelineEvent

RESCALE = "New size: 4; reason: cpu resource utilization (percentage of request) above target"


def _sample(seconds: int, utilization: float | None, replicas: int) -> Sample:
    return Sample(timedelta(seconds=seconds), 125.5, utilization, 50, replicas, replicas, 1)


def _play(width: int, color: bool = False) -> Console:
    console = Console(
        width=width, record=True, file=io.StringIO(), force_terminal=color, color_system="standard"
    )
    with RichLiveView(console, interval=timedelta(seconds=15)) as view:
        view.show(_sample(0, None, 1))
        view.show(_sample(5, 250.0, 1))  # held back by the throttle
        view.show(
            _sample(15, 250.0, 4),
            [TimelineEvent(timedelta(seconds=15), "SuccessfulRescale", RESCALE)],
        )
        view.show(_sample(30, 44.0, 4), force=True)
    return console


@pytest.mark.parametrize("width", [80, 60, 120], ids=["80-columns", "narrow", "wide"])
def test_the_view_fits_the_terminal_and_keeps_the_facts(width: int) -> None:
    text = _play(width).export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "SuccessfulRescale" in text
    assert "above target" in text.replace("\n", " ")
    for fact in ("00:00", "00:15", "00:30", "125.5", "250%", "44%"):
        assert fact in text, fact
    assert "00:05" not in text


def test_at_80_columns_every_column_is_shown() -> None:
    text = _play(80).export_text()
    for header in ("time", "load/s", "cpu", "desired", "current", "ready", "targets"):
        assert header in text, header
    assert "cpu: 250%/50%" in text  # the TARGETS cell whole
    assert "[##########|#" in text  # the bar past the target (its end may be cropped)


def test_utilization_is_coloured_by_the_tolerance_band() -> None:
    console = _play(80, color=True)
    styled = console.export_text(styles=True)
    assert re.search(r"\x1b\[31m[^\x1b]*250%/50%", styled)  # above the band: red
    assert re.search(r"\x1b\[36m[^\x1b]*44%/50%", styled)  # below: cyan
    assert "\x1b[1m* SuccessfulRescale" in styled


def test_the_view_returns_the_plain_lines_it_stands_for() -> None:
    console = Console(width=80, file=io.StringIO())
    with RichLiveView(console) as view:
        lines = view.show(_sample(0, 80.0, 2))
    assert lines[0].startswith("00:00  load    125.5 req/s")


def test_the_cli_does_not_import_the_live_view_to_start() -> None:
    # Not "rich" itself: httpx, which the client imports, already loads it.
    code = "import sys, podscale.cli.main; print('podscale.cli.demo_live' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
