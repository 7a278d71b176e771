"""What KEDA's ScaledObject reconcile writes into .status: the four Unknown conditions on first
sight, Ready with the target's kind and GVKR, failed checks, and the restore on deletion."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.status import (
    check_failed,
    check_failed_event,
    finalize_replicas,
    initial_conditions,
    not_ready,
    ready,
    ready_event,
    trigger_types,
    with_trigger_types,
)
from podscale.controllers.keda.types import ScaledObject, ScaleTarget

GVKR = {"group": "apps", "version": "v1", "kind": "Deployment", "resource": "deployments"}


def so(**spec: Any) -> ScaledObject:
    body = {"scaleTargetRef": {"name": "web"}, "triggers": [], **spec}
    return parse_scaled_object({"metadata": {"name": "so", "namespace": "ns"}, "spec": body})


def cond(status: dict[str, Any], kind: str) -> tuple[Any, ...]:
    for c in status["conditions"]:
        if c["type"] == kind:
            return c["status"], c.get("reason"), c.get("message")
    raise AssertionError(f"no {kind} condition")


@pytest.mark.parametrize(
    ("status", "reset"),
    [
        ({}, True),
        ({"conditions": [{"type": "Ready", "status": "True"}]}, True),
        (
            {
                "conditions": [
                    {"type": t, "status": "True"} for t in ("Ready", "Active", "Fallback", "Paused")
                ]
            },
            False,
        ),
    ],
    ids=["first-sight-four-unknown", "partial-conditions-reinitialized", "initialized-kept"],
)
def test_initial_conditions(status: dict[str, Any], reset: bool) -> None:
    out = initial_conditions({**status, "hpaName": "h"})
    assert out["hpaName"] == "h"
    kinds = [c["type"] for c in out["conditions"]]
    assert kinds == ["Ready", "Active", "Fallback", "Paused"]
    states = {c["status"] for c in out["conditions"]}
    assert states == ({"Unknown"} if reset else {"True"})


def test_ready_records_target_and_sets_ready_true() -> None:
    out = ready(
        initial_conditions({"lastActiveTime": "2026-01-01T00:00:00Z"}),
        hpa_name="keda-hpa-so",
        metric_names=["s0-prometheus"],
        original_replicas=4,
        target=ScaleTarget(name="web"),
        gvkr=GVKR,
    )
    assert out["scaleTargetKind"] == "apps/v1.Deployment"
    assert out["scaleTargetGVKR"] == GVKR
    assert out["originalReplicaCount"] == 4
    assert out["externalMetricNames"] == ["s0-prometheus"]
    assert out["hpaName"] == "keda-hpa-so"
    assert out["lastActiveTime"] == "2026-01-01T00:00:00Z"
    assert cond(out, "Ready") == (
        "True",
        "ScaledObjectReady",
        "ScaledObject is defined correctly and is ready for scaling",
    )
    assert cond(out, "Active")[0] == "Unknown"


def test_ready_keeps_the_first_original_replica_count() -> None:
    first = {"originalReplicaCount": 2}
    out = ready(
        first,
        hpa_name="h",
        metric_names=[],
        original_replicas=9,
        target=ScaleTarget(name="web", api_version="apps/v1", kind="StatefulSet"),
        gvkr=GVKR,
    )
    assert out["originalReplicaCount"] == 2
    assert out["scaleTargetKind"] == "apps/v1.StatefulSet"
    assert "externalMetricNames" not in out


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (so(), ("False", "NoFallbackFound", "No fallbacks are active on this scaled object")),
        (so(fallback={"failureThreshold": -1, "replicas": 1}), ("False", "NoFallbackFound")),
        (so(fallback={"failureThreshold": 1, "replicas": 1}), ("Unknown",)),
    ],
    ids=[
        "no-fallback-sets-no-fallback-found",
        "invalid-fallback-sets-no-fallback-found",
        "valid-fallback-untouched",
    ],
)
def test_ready_fallback_condition(obj: ScaledObject, expected: tuple[str, ...]) -> None:
    out = ready(
        initial_conditions({}),
        hpa_name="h",
        metric_names=[],
        original_replicas=None,
        target=ScaleTarget(name="web"),
        gvkr=GVKR,
        so=obj,
    )
    assert cond(out, "Fallback")[: len(expected)] == expected


def test_ready_event_only_when_not_ready_before() -> None:
    event = ready_event(initial_conditions({}))
    assert event is not None
    assert (event.type, event.reason, event.message) == (
        "Normal",
        "ScaledObjectReady",
        "ScaledObject is ready for scaling",
    )
    was_ready = {"conditions": [{"type": "Ready", "status": "True"}]}
    assert ready_event(was_ready) is None


def test_check_failed_sets_ready_false_and_active_unknown() -> None:
    out = check_failed(
        initial_conditions({}),
        "ScaledObject doesn't have correct scaleTargetRef specification",
        "ScaledObject.spec.scaleTargetRef.name is missing",
    )
    assert cond(out, "Ready") == (
        "False",
        "ScaledObjectCheckFailed",
        "ScaledObject doesn't have correct scaleTargetRef specification: "
        "ScaledObject.spec.scaleTargetRef.name is missing",
    )
    assert cond(out, "Active") == ("Unknown", "UnknownState", "ScaledObject check failed")
    event = check_failed_event("m", "e")
    assert (event.type, event.reason, event.message) == (
        "Warning",
        "ScaledObjectCheckFailed",
        "m: e",
    )


def test_not_ready_other_reason_leaves_active() -> None:
    out = not_ready(initial_conditions({}), "TriggerError", "x")
    assert cond(out, "Ready") == ("False", "TriggerError", "x")
    assert cond(out, "Active") == ("Unknown", None, None)


@pytest.mark.parametrize(
    ("obj", "status", "expected"),
    [
        (so(advanced={"restoreToOriginalReplicaCount": True}), {"originalReplicaCount": 3}, 3),
        (so(advanced={"restoreToOriginalReplicaCount": True}), {}, None),
        (so(), {"originalReplicaCount": 3}, None),
        (so(advanced={"restoreToOriginalReplicaCount": True}), {"originalReplicaCount": 0}, 0),
    ],
    ids=[
        "restore-original-replicas-on-delete",
        "restore-without-recorded-count-leaves-target",
        "no-restore-leaves-target",
        "restore-to-zero",
    ],
)
def test_finalize_replicas(obj: ScaledObject, status: dict[str, Any], expected: int | None) -> None:
    assert finalize_replicas(obj, status) == expected


def _trigger(kind: str, auth: str = "", auth_kind: str = "") -> dict[str, Any]:
    trigger: dict[str, Any] = {"type": kind, "metadata": {}}
    if auth:
        trigger["authenticationRef"] = {"name": auth, **({"kind": auth_kind} if auth_kind else {})}
    return trigger


@pytest.mark.parametrize(
    ("triggers", "expected"),
    [
        ([_trigger("podscale-push")], ("podscale-push", "")),
        ([_trigger("cron"), _trigger("prometheus"), _trigger("cron")], ("cron,prometheus", "")),
        (
            [
                _trigger("prometheus", "creds"),
                _trigger("metrics-api", "creds"),
                _trigger("prometheus", "shared", "ClusterTriggerAuthentication"),
            ],
            ("prometheus,metrics-api", "creds,ClusterTriggerAuthentication/shared"),
        ),
        ([], ("", "")),
    ],
    ids=[
        "keda-one-trigger-type-no-auth",
        "keda-types-deduplicated-in-spec-order",
        "keda-auths-by-name-or-kind-slash-name-deduplicated",
        "keda-no-triggers-empty-strings",
    ],
)
def test_trigger_types(triggers: list[dict[str, Any]], expected: tuple[str, str]) -> None:
    assert trigger_types(so(triggers=triggers)) == expected


def test_with_trigger_types_fills_the_printer_column_fields_and_keeps_the_rest() -> None:
    # The CRD's Triggers/Authentications columns read these: without them kubectl printed
    # nothing under TRIGGERS.
    before = {"hpaName": "keda-hpa-so"}
    after = with_trigger_types(before, so(triggers=[_trigger("cron", "a")]))
    assert after == {"hpaName": "keda-hpa-so", "triggersTypes": "cron", "authenticationsTypes": "a"}
    assert before == {"hpaName": "keda-hpa-so"}
