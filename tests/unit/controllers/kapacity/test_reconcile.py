"""One IHPA reconcile as Kapacity takes it: paused, failed and empty portraits, the
previous/current move, gray steps into the ReplicaProfile, Preview, and its events."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from podscale.controllers.kapacity.gray import ReplicaSplit
from podscale.controllers.kapacity.portraits import PortraitOffer, PortraitValue
from podscale.controllers.kapacity.reconcile import (
    Decision,
    Existing,
    ProviderResult,
    decide,
    replica_profile_spec,
)
from podscale.controllers.kapacity.stability import CheckerReading
from podscale.controllers.kapacity.types import Ihpa, parse_ihpa

T0 = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
CUTOFF_HALF = {
    "scaleDown": {
        "grayStrategy": {
            "grayState": "Cutoff",
            "changeIntervalSeconds": 60,
            "changePercent": 50,
            "observationSeconds": 30,
        }
    }
}


def ihpa(
    *,
    status: dict[str, Any] | None = None,
    behavior: dict[str, Any] | None = None,
    **spec: Any,
) -> Ihpa:
    body = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "portraitProviders": [{"type": "Static", "priority": 0, "static": {"replicas": 3}}],
        "behavior": behavior or {},
        **spec,
    }
    return parse_ihpa(
        {
            "metadata": {"name": "web", "namespace": "default", "generation": 2},
            "spec": body,
            "status": status or {},
        }
    )


def static(replicas: int, priority: int = 0) -> ProviderResult:
    return ProviderResult(PortraitOffer(priority, PortraitValue("Static", replicas)))


def existing(online: int, cutoff: int = 0, **spec: Any) -> Existing:
    return Existing(
        ReplicaSplit(online, cutoff),
        {"onlineReplicas": online, "cutoffReplicas": cutoff, "standbyReplicas": 0, **spec},
    )


def conditions(found: Decision) -> dict[str, tuple[str, str]]:
    return {c.type: (c.status, c.reason) for c in found.status.conditions}


STATIC_3 = {"currentPortraitValue": {"provider": "Static", "replicas": 3}}


CASES = [
    pytest.param(
        ihpa(paused=True),
        [],
        existing(3),
        "patch",
        {"ScalingActive": ("False", "ScalingPaused")},
        [],
        id="paused-pauses-the-replica-profile-without-an-event",
    ),
    pytest.param(
        ihpa(),
        [ProviderResult(error="failed to fetch portrait value: boom")],
        None,
        "none",
        {"ScalingActive": ("False", "FailedUpdateAndFetchPortraitValue")},
        [
            (
                "Warning",
                "FailedUpdateAndFetchPortraitValue",
                "failed to update and fetch portrait value: failed to fetch portrait value: boom",
            )
        ],
        id="provider-error-is-a-warning-and-a-condition",
    ),
    pytest.param(
        ihpa(),
        [ProviderResult(PortraitOffer(0, None))],
        None,
        "none",
        {"ScalingActive": ("False", "NoValidPortraitValue")},
        [("Warning", "NoValidPortraitValue", "no valid portrait value for now")],
        id="no-live-value",
    ),
    pytest.param(
        ihpa(),
        [static(3)],
        None,
        "create",
        {
            "ScalingLimited": ("False", "DesiredWithinRange"),
            "GrayProgressing": ("False", "ReplicasMatchPortrait"),
            "ScalingActive": ("True", "SucceededAutoscaling"),
        },
        [
            (
                "Normal",
                "CreateReplicaProfile",
                "create ReplicaProfile with onlineReplcas: 3, cutoffReplicas: 0, "
                "standbyReplicas: 0",
            )
        ],
        id="first-value-creates-the-replica-profile",
    ),
    pytest.param(
        ihpa(status=STATIC_3),
        [static(30)],
        existing(3),
        "patch",
        {
            "ScalingLimited": ("True", "TooManyReplicas"),
            "GrayProgressing": ("False", "ReplicasMatchPortrait"),
            "ScalingActive": ("True", "SucceededAutoscaling"),
        },
        [
            (
                "Normal",
                "UpdateReplicaProfile",
                "update ReplicaProfile with onlineReplcas: 3 -> 10, cutoffReplicas: 0 -> 0, "
                "standbyReplicas: 0 -> 0",
            )
        ],
        id="clamped-to-max-without-gray",
    ),
    pytest.param(
        ihpa(status=STATIC_3, behavior=CUTOFF_HALF),
        [static(1)],
        existing(3),
        "patch",
        {
            "ScalingLimited": ("False", "DesiredWithinRange"),
            "GrayProgressing": ("True", "ReplicasNotMatchPortrait"),
            "ScalingActive": ("True", "SucceededAutoscaling"),
        },
        [
            (
                "Normal",
                "UpdateReplicaProfile",
                "update ReplicaProfile with onlineReplcas: 3 -> 2, cutoffReplicas: 0 -> 1, "
                "standbyReplicas: 0 -> 0",
            )
        ],
        id="gray-scale-down-first-step-at-once",
    ),
    pytest.param(
        ihpa(status=STATIC_3, scaleMode="Preview"),
        [static(1)],
        existing(3),
        "delete",
        {"ScalingActive": ("True", "SucceededAutoscaling")},
        [],
        id="preview-deletes-the-replica-profile",
    ),
]


@pytest.mark.parametrize(("obj", "results", "rp", "action", "conds", "events"), CASES)
def test_decide(
    obj: Ihpa,
    results: list[ProviderResult],
    rp: Existing | None,
    action: str,
    conds: dict[str, tuple[str, str]],
    events: list[tuple[str, str, str]],
) -> None:
    found = decide(obj, results, rp, (), {}, T0)
    assert found.rp_action == action
    assert conditions(found) == conds
    assert list(found.events) == events


def test_changed_value_moves_current_to_previous_and_starts_gray() -> None:
    found = decide(
        ihpa(status=STATIC_3, behavior=CUTOFF_HALF), [static(1)], existing(3), (), {}, T0
    )
    assert found.status.previous is not None
    assert found.status.previous.replicas == 3
    assert found.status.current is not None
    assert found.status.current.replicas == 1
    # the first step is taken at once: 50% of the change, stamped now
    assert found.status.gray is not None
    assert (found.status.gray.gray_percent, found.status.gray.last_update_time) == (50, T0)
    assert found.requeue_after == dt.timedelta(seconds=60)
    assert found.rp_spec is not None
    assert (found.rp_spec["onlineReplicas"], found.rp_spec["cutoffReplicas"]) == (2, 1)


def test_gray_walk_to_the_end_of_the_observation() -> None:
    obj = ihpa(status=STATIC_3, behavior=CUTOFF_HALF)
    seen = []
    rp = existing(3)
    now = T0
    for _ in range(4):
        found = decide(obj, [static(1)], rp, (), {}, now)
        assert found.rp_spec is not None
        split = (found.rp_spec["onlineReplicas"], found.rp_spec["cutoffReplicas"])
        seen.append(split)
        rp = existing(*split)
        status = {
            "previousPortraitValue": found.status.previous and found.status.previous.to_json(),
            "currentPortraitValue": found.status.current and found.status.current.to_json(),
            "gray": found.status.gray and found.status.gray.to_json(),
        }
        obj = ihpa(status=status, behavior=CUTOFF_HALF)
        now += found.requeue_after or dt.timedelta(0)
    assert seen == [(2, 1), (1, 2), (1, 0), (1, 0)]
    assert found.requeue_after is None


def test_unchanged_value_keeps_the_replica_profile_and_sends_no_event() -> None:
    obj = ihpa(status=STATIC_3)
    spec = replica_profile_spec(obj, ReplicaSplit(3))
    found = decide(obj, [static(3)], Existing(ReplicaSplit(3), spec), (), {}, T0)
    assert (found.rp_action, found.events) == ("none", ())


def test_higher_priority_wins_and_condition_time_moves_only_on_status_change() -> None:
    first = decide(ihpa(), [static(3, 0), static(5, 1)], None, (), {}, T0)
    assert first.status.current is not None
    assert first.status.current.replicas == 5
    status = {"conditions": [c.to_json() for c in first.status.conditions]}
    later = T0 + dt.timedelta(minutes=5)
    again = decide(ihpa(status=status), [static(5, 1)], existing(5), (), {}, later)
    times = {c.type: c.last_transition_time for c in again.status.conditions}
    assert times["ScalingActive"] == T0


def test_rollback_checker_returns_to_the_previous_count() -> None:
    reading = CheckerReading("checker-0", "Rollback", 60, anomalous=True)
    obj = ihpa(status=STATIC_3, behavior=CUTOFF_HALF)
    found = decide(obj, [static(1)], existing(3), (reading,), {}, T0)
    assert found.rp_spec is not None
    assert (found.rp_spec["onlineReplicas"], found.rp_spec["cutoffReplicas"]) == (3, 0)
    assert found.last_anomaly == {"checker-0": T0}


@pytest.mark.parametrize(
    ("behavior", "offered", "online"),
    [
        ({"scaleDown": {"disabled": True}}, 1, 3),
        ({"scaleDown": {"disabled": True}}, 5, 5),
        ({"scaleUp": {"disabled": True}}, 5, 3),
        ({"scaleUp": {"disabled": True}}, 1, 1),
        ({"scaleDown": {"disabled": True, **CUTOFF_HALF["scaleDown"]}}, 1, 3),
    ],
    ids=[
        "scale-down-disabled-holds",
        "scale-down-disabled-still-scales-up",
        "scale-up-disabled-holds",
        "scale-up-disabled-still-scales-down",
        "disabled-wins-over-a-gray-strategy",
    ],
)
def test_a_disabled_direction_holds_the_replica_profile(
    behavior: dict[str, Any], offered: int, online: int
) -> None:
    obj = ihpa(status=STATIC_3, behavior=behavior)
    spec = replica_profile_spec(obj, ReplicaSplit(3))
    found = decide(obj, [static(offered)], Existing(ReplicaSplit(3), spec), (), {}, T0)
    assert found.rp_spec is not None
    assert (found.rp_spec["onlineReplicas"], found.rp_spec["cutoffReplicas"]) == (online, 0)
    assert found.status.current is not None
    assert found.status.current.replicas == offered  # the portrait is still reported
    assert found.status.gray is None  # no gray change starts in a disabled direction
    progressing = "True" if online != offered else "False"
    assert conditions(found)["GrayProgressing"][0] == progressing
