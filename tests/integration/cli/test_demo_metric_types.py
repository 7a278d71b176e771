"""``podscale demo`` on HPAs that do not scale on pod CPU utilization: the view lines and
the summary show the HPA's own metric against its target, never a CPU "target 0%"."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.demo.timeline_json import read_timeline

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize(
    ("scenario", "label", "target_cell", "summary_line"),
    [
        (
            "external-metric/scenario.yaml",
            "queue_messages_ready",
            "/30 (avg)",
            "queue_messages_ready: mean ",
        ),
        (
            "container-resource-sidecar/scenario.yaml",
            "cpu (container application)",
            "cpu: ",
            "cpu (container application): mean ",
        ),
    ],
    ids=["external", "container-resource"],
)
def test_demo_shows_the_hpas_own_metric_and_target(
    tmp_path: Path, scenario: str, label: str, target_cell: str, summary_line: str
) -> None:
    result = CliRunner().invoke(cli, ["demo", str(EXAMPLES / scenario), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "target 0%" not in out
    assert "target   0%" not in out
    status = [line for line in out.splitlines() if " load " in line and " desired " in line]
    assert status
    assert all(target_cell in line for line in status), status[:3]
    assert any(line.startswith(summary_line) for line in out.splitlines()), out[-800:]
    timeline = read_timeline(tmp_path / "podscale-demo.json")
    readings = [s.metrics[0] for s in timeline.samples if s.metrics]
    assert readings
    assert readings[0].label == label
    # The metric drove scaling above its target at some point, and the plot's JSON kept it.
    assert any(r.ratio is not None and r.ratio > 1 for r in readings)
