"""``podscale replay`` of examples/keda/queue-worker.yaml: KEDA's ScaledObject (0 -> N -> 0)
against an HPA on the same External metric that cannot go below 1.

Trimmed to 1h30m-7h of the 8h scenario (the first burst at 2h, the three idle hours after
it, the second burst at 6h), so it stays a few seconds of wall time. The queue is empty
outside the bursts: the ScaledObject's target sits at 0 replicas there (after its 5 minute
cooldown), the HPA's at 1, so the ScaledObject costs fewer pod-hours for the same bursts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli

EXAMPLE: Final = Path(__file__).resolve().parents[3] / "examples" / "keda"
FROM: Final = 90  # minutes into the scenario
# Window minutes: idle before the first burst, the three idle hours, the second burst.
IDLE_BEFORE: Final = range(5, 120 - FROM)
IDLE_BETWEEN: Final = range(180 - FROM + 10, 360 - FROM)
SECOND_BURST: Final = range(360 - FROM + 2, 390 - FROM)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    command = ["replay", str(EXAMPLE / "queue-worker.yaml")]
    for name in ("so-queue.yaml", "hpa-min1.yaml"):
        command += ["--autoscaler", str(EXAMPLE / name)]
    command += ["--from", f"{FROM}m", "--duration", "330m", "--jobs", "1", "-o", "json"]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def runs(report: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    so, hpa = (run for run in report["runs"] if not run["reference"])
    assert (so["name"], hpa["name"]) == ("so-queue", "hpa-min1")
    return so, hpa


def test_the_scaled_object_uses_fewer_pod_hours_than_the_min_1_hpa(
    report: dict[str, Any],
) -> None:
    so, hpa = runs(report)
    so_cost = so["totals"]["costPodHours"]
    hpa_cost = hpa["totals"]["costPodHours"]
    assert so_cost < hpa_cost
    # The HPA's floor alone costs a pod through the idle stretches (about 4h of 5h30m).
    assert hpa_cost - so_cost > 3


def test_the_scaled_object_goes_0_to_n_to_0(report: dict[str, Any]) -> None:
    so, _ = runs(report)
    replicas = so["replicas"]
    assert {replicas[m] for m in IDLE_BEFORE} == {0}
    assert {replicas[m] for m in IDLE_BETWEEN} == {0}
    assert max(replicas[m] for m in SECOND_BURST) == 8  # 240 messages / 30
    assert replicas[-1] == 0
    assert so["totals"]["maxReplicas"] == 10  # 300 messages, capped at maxReplicaCount


def test_the_hpa_never_goes_below_one(report: dict[str, Any]) -> None:
    _, hpa = runs(report)
    assert min(hpa["replicas"]) == 1
    assert {hpa["replicas"][m] for m in IDLE_BETWEEN} == {1}
    assert hpa["totals"]["maxReplicas"] == 10


def test_both_scale_on_the_queue(report: dict[str, Any]) -> None:
    so, hpa = runs(report)
    # The ScaledObject's readings are those of the HPA KEDA generated for it, whose
    # External metric is the trigger's, named s0-<metricName>.
    assert so["hpa"]["name"] == "keda-hpa-queue-worker"
    assert [m["label"] for m in so["hpa"]["metrics"]] == ["s0-queue_messages_ready"]
    assert hpa["hpa"]["name"] == "queue-worker"
    assert [m["label"] for m in hpa["hpa"]["metrics"]] == ["queue_messages_ready"]
    for run in (so, hpa):
        (metric,) = run["hpa"]["metrics"]
        assert metric["target"] == 30
