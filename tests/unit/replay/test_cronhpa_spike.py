"""``podscale replay`` of examples/cronhpa-spike/: an HPA alone vs. the same HPA with a
CronHPA raising its floor before a daily spike, shortened to the spike's first part.

The run starts at 08:30 (``--from 525m --warmup 15m``): that the CronHPA's 08:55 job fires
at scenario time 08:55 rests on the replay's clock reading scenario time whatever the
window (``podscale.replay.replay``); a run clock starting at midnight would put the job
beyond the run's end, and both autoscalers would score the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from podscale.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "cronhpa-spike"
SPIKE_MINUTE = 540 - 525  # 09:00 in the window starting at 08:45


def _replay(*args: str) -> dict[str, Any]:
    command = ["replay", str(EXAMPLE / "scenario.yaml")]
    for name in ("hpa-alone.yaml", "hpa-with-cronhpa.yaml"):
        command += ["--autoscaler", str(EXAMPLE / name)]
    result = CliRunner().invoke(cli, [*command, *args, "--jobs", "1", "-o", "json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_the_cronhpa_is_ready_for_the_spike_the_hpa_alone_is_not() -> None:
    report = _replay("--from", "525m", "--duration", "30m", "--warmup", "15m")
    alone, cron = (run for run in report["runs"] if not run["reference"])
    assert (alone["name"], cron["name"]) == ("hpa-alone", "hpa-with-cronhpa")
    needed = report["neededPods"]
    assert needed[SPIKE_MINUTE - 1] == 1
    assert needed[SPIKE_MINUTE] == 12
    # The CronHPA scaled to 12 at 08:55 (minute 10 of the window), before the spike.
    assert [e["minute"] for e in cron["scaleEvents"]][:1] == [535]
    assert cron["readyPods"][SPIKE_MINUTE - 1] >= 12
    assert alone["readyPods"][SPIKE_MINUTE] < 12
    under_alone = alone["totals"]["underProvisionedPodMinutes"]
    under_cron = cron["totals"]["underProvisionedPodMinutes"]
    assert under_cron < under_alone
    assert under_cron == 0
    assert cron["totals"]["sloViolationMinutes"] <= alone["totals"]["sloViolationMinutes"]
