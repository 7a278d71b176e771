"""``podscale replay`` with a PredictiveHorizontalPodAutoscaler: its own status metrics are
recorded as an HPA's are (the report's ``hpa`` readings, the plot's metric panel), from the
PHPA controller's informer."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from podscale.cli.main import cli

ROOT = Path(__file__).parents[3]


def test_a_phpa_runs_readings_are_its_status_metrics() -> None:
    args = [
        "replay",
        "--trace",
        str(ROOT / "examples" / "traces" / "synthetic-daily.csv"),
        "--cpu-per-request",
        "500m",
        "--request",
        "500m",
        "--startup",
        "90s",
        "--from",
        "480m",
        "--duration",
        "5m",
        "--warmup",
        "3m",
        "--autoscaler",
        str(ROOT / "examples" / "predictive" / "phpa.yaml"),
        "--jobs",
        "1",
        "-o",
        "json",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    run = json.loads(result.output)["runs"][0]
    assert run["hpa"]["name"] == "app"
    metric = run["hpa"]["metrics"][0]
    assert metric["target"] == 50
    # CPU utilization readings near the target, every minute of the window.
    assert len(metric["minuteMeans"]) == 5
    assert all(v is not None and 20 <= v <= 100 for v in metric["minuteMeans"])
