"""``podscale replay`` of examples/kapacity/: the IHPA's gray scale-down rolled back when the
load returns (gray-rollback.yaml) against the upstream HPA on the same load
(hpa-baseline.yaml, the same pods without Kapacity's readiness gate, which nothing would
open without the ReplicaProfile controller).

Both from minute 5 (after the pods' first start). The IHPA keeps the pods it cut off and
puts them back in traffic at once, so it is under-provisioned for less than the HPA, which
deleted them and must start new ones; it pays for that in pod-hours, since cut-off pods
still run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli

EXAMPLE: Final = Path(__file__).resolve().parents[3] / "examples" / "kapacity"


def replay(name: str) -> dict[str, Any]:
    command = ["replay", str(EXAMPLE / name), "--from", "5m", "--jobs", "1", "-o", "json"]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    [run] = (run for run in json.loads(result.stdout)["runs"] if not run["reference"])
    totals: dict[str, Any] = run["totals"]
    return totals


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, Any], dict[str, Any]]:
    return replay("gray-rollback.yaml"), replay("hpa-baseline.yaml")


def test_the_ihpa_is_under_provisioned_less_than_the_hpa(
    both: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    ihpa, hpa = both
    assert ihpa["underProvisionedPodMinutes"] < hpa["underProvisionedPodMinutes"]
    assert ihpa["reactMaxMinutes"] < hpa["reactMaxMinutes"]


def test_the_ihpa_never_scales_up_the_hpa_must(
    both: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    ihpa, hpa = both
    # The IHPA's workload stays at 8 through the rush (the rollback moves pods between
    # states), then goes to 3 once; the HPA goes down, up for the rush, down again.
    assert (ihpa["scaleUps"], ihpa["scaleDowns"], ihpa["maxReplicas"]) == (0, 1, 8)
    assert hpa["scaleUps"] >= 1
    assert hpa["scaleDowns"] >= 2


def test_cut_off_pods_cost_pod_hours(both: tuple[dict[str, Any], dict[str, Any]]) -> None:
    ihpa, hpa = both
    assert ihpa["costPodHours"] > hpa["costPodHours"]
