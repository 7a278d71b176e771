"""Reading a CronHorizontalPodAutoscaler into plain values and writing conditions back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from podscale.controllers.cronhpa.kind import CRD_NAME, CRONHPA, definition
from podscale.controllers.cronhpa.types import (
    Condition,
    Job,
    JobState,
    TargetRef,
    read_spec,
    read_status,
    target_ref_error,
)

OBJ = {
    "metadata": {"name": "c", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "excludeDates": ["* * * 15 11 *"],
        "jobs": [
            {"name": "up", "schedule": "0 0 8 * * *", "targetSize": 5},
            {"name": "once", "schedule": "@date 2026-01-01 00:00:10", "targetSize": 1},
        ],
    },
}


def test_read_spec_defaults_as_go_zero_values() -> None:
    spec = read_spec(OBJ)
    assert spec.target == TargetRef("apps/v1", "Deployment", "web")
    assert spec.exclude_dates == ("* * * 15 11 *",)
    assert spec.jobs == (
        Job("up", "0 0 8 * * *", 5, False),
        Job("once", "@date 2026-01-01 00:00:10", 1, False),
    )
    assert [job.once for job in spec.jobs] == [False, True]  # @date runs once by nature


def test_a_condition_round_trips_with_every_field() -> None:
    at = datetime(2026, 1, 1, 8, tzinfo=UTC)
    condition = Condition("up", "id-1", "0 0 8 * * *", 5, False, JobState.SUCCEED, at, "ok")
    written = condition.to_json()
    assert written == {
        "name": "up",
        "jobId": "id-1",
        "schedule": "0 0 8 * * *",
        "targetSize": 5,
        "runOnce": False,
        "state": "Succeed",
        "lastProbeTime": "2026-01-01T08:00:00Z",
        "message": "ok",
    }
    status = read_status({"status": {"conditions": [written], "excludeDates": []}})
    assert status.conditions == (condition,)
    assert status.target is None  # never written: differs from any spec target


@pytest.mark.parametrize(
    ("ref", "error"),
    [
        (TargetRef("apps/v1", "Deployment", "web"), None),
        (TargetRef("autoscaling/v2", "HorizontalPodAutoscaler", "h"), None),
        (TargetRef("v1", "ReplicationController", "rc"), "any"),
        (TargetRef("apps/v1", "", "web"), "any"),
        (TargetRef("apps/v1", "Deployment", ""), "any"),
        (TargetRef("apps/", "Deployment", "web"), "any"),
    ],
    ids=["deployment", "hpa", "core-group-has-no-group", "no-kind", "no-name", "no-version"],
)
def test_target_ref_error(ref: TargetRef, error: str | None) -> None:
    found = target_ref_error(ref)
    if error is None:
        assert found is None
    else:
        assert found == "any properties in ref could not be empty"


def test_the_shipped_crd_names_the_kind() -> None:
    crd = definition()
    assert crd["metadata"]["name"] == CRD_NAME
    names = crd["spec"]["names"]
    assert (names["kind"], names["plural"], names["shortNames"]) == (
        CRONHPA.kind,
        CRONHPA.plural,
        ["cronhpa"],
    )
    (version,) = crd["spec"]["versions"]
    assert version["name"] == CRONHPA.version
    assert version["subresources"] == {"status": {}}
