"""One sync as a plan: ordered and parallel creation, scale-down, replacement, rollout."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.statefulset.identity import POD_NAME_LABEL, ordinal_of
from podscale.controllers.statefulset.plan import SyncPlan, max_unavailable, plan_sync
from podscale.controllers.statefulset.revision import revision_name
from podscale.hpa.conditions import format_time

from .builders import NOW, make_pod, make_sts

JSON = dict[str, Any]
Steps = list[list[tuple[str, str, str]]]


def steps_of(plan: SyncPlan) -> Steps:
    return [[(a.verb, a.pod_name, a.cause) for a in step] for step in plan.steps]


@dataclass(frozen=True)
class Case:
    build: Callable[[], tuple[JSON, list[JSON]]]
    steps: Steps
    waiting_for: str | None = None


def ordered(replicas: int, *pods: Callable[[JSON], JSON], **extra: Any) -> Callable[[], Any]:
    def build() -> tuple[JSON, list[JSON]]:
        sts = make_sts(replicas, **extra)
        return sts, [make(sts) for make in pods]

    return build


def parallel(replicas: int, *pods: Callable[[JSON], JSON], **extra: Any) -> Callable[[], Any]:
    return ordered(replicas, *pods, podManagementPolicy="Parallel", **extra)


def pod(ordinal: int, **kwargs: Any) -> Callable[[JSON], JSON]:
    return lambda sts: make_pod(sts, ordinal, **kwargs)


def old(ordinal: int, **kwargs: Any) -> Callable[[JSON], JSON]:
    """A pod at an older revision of the set."""
    return lambda sts: make_pod(sts, ordinal, revision="web-old", **kwargs)


def unlabelled(ordinal: int) -> Callable[[JSON], JSON]:
    def make(sts: JSON) -> JSON:
        made = make_pod(sts, ordinal)
        del made["metadata"]["labels"][POD_NAME_LABEL]
        return made

    return make


CASES = {
    "ordered-creates-first-only": Case(ordered(3), [[("create", "web-0", "missing")]], "web-0"),
    "ordered-waits-for-pending": Case(
        ordered(3, pod(0, phase="Pending", ready=False)), [], "web-0"
    ),
    "ordered-waits-for-unready": Case(ordered(3, pod(0, ready=False)), [], "web-0"),
    "ordered-next-after-ready": Case(
        ordered(3, pod(0)), [[("create", "web-1", "missing")]], "web-1"
    ),
    "ordered-fills-a-gap": Case(
        ordered(3, pod(0), pod(2)), [[("create", "web-1", "missing")]], "web-1"
    ),
    "ordered-waits-min-ready": Case(
        ordered(3, pod(0, ready_for=timedelta(seconds=5)), minReadySeconds=10), [], "web-0"
    ),
    "ordered-min-ready-elapsed": Case(
        ordered(2, pod(0, ready_for=timedelta(seconds=11)), minReadySeconds=10),
        [[("create", "web-1", "missing")]],
        "web-1",
    ),
    "ordered-steady": Case(ordered(2, pod(0), pod(1)), []),
    "ordered-scale-down-top-first": Case(
        ordered(1, pod(0), pod(1), pod(2)), [[("delete", "web-2", "condemned")]], "web-2"
    ),
    "ordered-scale-down-waits-for-lower": Case(
        ordered(1, pod(0, ready=False), pod(1), pod(2)), [], "web-0"
    ),
    "ordered-scale-down-waits-terminating": Case(
        ordered(1, pod(0), pod(1), pod(2, terminating=True)), [], "web-2"
    ),
    "ordered-unhealthy-lowest-condemned-goes": Case(
        ordered(1, pod(0), pod(1, ready=False)), [[("delete", "web-1", "condemned")]], "web-1"
    ),
    "ordered-scale-to-zero": Case(
        ordered(0, pod(0), pod(1)), [[("delete", "web-1", "condemned")]], "web-1"
    ),
    "ordered-failed-deleted-first": Case(
        ordered(2, pod(0, phase="Failed", ready=False)),
        [[("delete", "web-0", "finished")]],
        "web-0",
    ),
    "ordered-succeeded-replaced-too": Case(
        ordered(1, pod(0, phase="Succeeded", ready=False)),
        [[("delete", "web-0", "finished")]],
        "web-0",
    ),
    "ordered-failed-terminating-waits": Case(
        ordered(1, pod(0, phase="Failed", ready=False, terminating=True)), [], "web-0"
    ),
    "ordered-identity-fixed-in-place": Case(
        ordered(2, unlabelled(0), pod(1)), [[("update", "web-0", "identity")]]
    ),
    "ordinals-start": Case(
        ordered(2, pod(0), pod(5), ordinals={"start": 5}),
        [[("create", "web-6", "missing")]],
        "web-6",
    ),
    "parallel-creates-all": Case(
        parallel(3),
        [
            [
                ("create", "web-0", "missing"),
                ("create", "web-1", "missing"),
                ("create", "web-2", "missing"),
            ]
        ],
    ),
    "parallel-ignores-unready": Case(
        parallel(2, pod(0, phase="Pending", ready=False)), [[("create", "web-1", "missing")]]
    ),
    "parallel-deletes-all-condemned": Case(
        parallel(1, pod(0, ready=False), pod(1), pod(2, ready=False), pod(3, terminating=True)),
        [[("delete", "web-2", "condemned"), ("delete", "web-1", "condemned")]],
    ),
    "parallel-replaces-failed-and-creates": Case(
        parallel(2, pod(0, phase="Failed", ready=False)),
        [[("delete", "web-0", "finished"), ("create", "web-1", "missing")]],
    ),
    "rollout-highest-first": Case(
        ordered(3, old(0), old(1), old(2)), [[("delete", "web-2", "outdated")]]
    ),
    "rollout-skips-updated": Case(
        ordered(3, old(0), old(1), pod(2)), [[("delete", "web-1", "outdated")]]
    ),
    "rollout-waits-for-recreated": Case(
        ordered(3, old(0), old(1)), [[("create", "web-2", "missing")]], "web-2"
    ),
    "rollout-partition": Case(
        ordered(
            3,
            old(0),
            old(1),
            pod(2),
            updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
        ),
        [],
    ),
    "rollout-max-unavailable": Case(
        parallel(
            4,
            old(0),
            old(1),
            old(2),
            old(3),
            updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}},
        ),
        [[("delete", "web-3", "outdated"), ("delete", "web-2", "outdated")]],
    ),
    "rollout-budget-spent-by-unready": Case(
        parallel(
            3,
            old(0),
            old(1),
            old(2, ready=False),
            updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
        ),
        [],
    ),
    "on-delete-never-rolls": Case(
        ordered(2, old(0), old(1), updateStrategy={"type": "OnDelete"}), []
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_plan(case: Case) -> None:
    sts, pods = case.build()
    plan = plan_sync(sts, pods, now=NOW)
    assert steps_of(plan) == case.steps
    assert plan.waiting_for == case.waiting_for


def test_created_pods_are_new_stateful_pods_at_the_update_revision() -> None:
    sts = make_sts(1)
    (action,) = plan_sync(sts, [], now=NOW).actions
    assert action.pod["metadata"]["labels"]["controller-revision-hash"] == revision_name(sts)
    assert action.pod["spec"]["hostname"] == "web-0"
    assert "status" not in action.pod


def test_a_set_being_deleted_only_reports() -> None:
    sts = make_sts(3)
    sts["metadata"]["deletionTimestamp"] = format_time(NOW)
    plan = plan_sync(sts, [make_pod(sts, 0), make_pod(sts, 5)], now=NOW)
    assert plan.steps == ()
    assert plan.status["replicas"] == 2


def test_status_counts_observed_pods_and_revisions() -> None:
    sts = make_sts(3, minReadySeconds=60)
    pods = [
        make_pod(sts, 0),
        make_pod(sts, 1, ready_for=timedelta(seconds=30)),
        make_pod(sts, 2, phase="Pending", ready=False),
    ]
    status = plan_sync(sts, pods, now=NOW).status
    assert status == {
        "observedGeneration": 2,
        "replicas": 3,
        "readyReplicas": 2,
        "availableReplicas": 1,
        "currentReplicas": 3,
        "updatedReplicas": 3,
        "currentRevision": revision_name(sts),
        "updateRevision": revision_name(sts),
        "collisionCount": 0,
    }


def test_rollout_deletion_counts_down_current_replicas() -> None:
    sts = make_sts(2)
    sts["status"] = {"currentRevision": "web-old"}
    plan = plan_sync(
        sts, [make_pod(sts, 0, revision="web-old"), make_pod(sts, 1, revision="web-old")], now=NOW
    )
    assert steps_of(plan) == [[("delete", "web-1", "outdated")]]
    assert plan.status["currentReplicas"] == 1
    assert plan.status["currentRevision"] == "web-old"
    assert "updatedReplicas" not in plan.status


@pytest.mark.parametrize(
    ("value", "replicas", "expected"),
    [(None, 5, 1), (3, 5, 3), ("50%", 5, 2), ("10%", 5, 1), ("100%", 4, 4)],
    ids=["default", "count", "percent-rounds-down", "at-least-one", "all"],
)
def test_max_unavailable(value: Any, replicas: int, expected: int) -> None:
    rolling = {} if value is None else {"maxUnavailable": value}
    sts = make_sts(replicas, updateStrategy={"type": "RollingUpdate", "rollingUpdate": rolling})
    assert max_unavailable(sts) == expected


ordinal_sets = st.sets(st.integers(0, 12), max_size=10)


@given(
    replicas=st.integers(0, 10),
    existing=ordinal_sets,
    policy=st.sampled_from(["OrderedReady", "Parallel"]),
)
def test_healthy_sets_converge_toward_replicas(
    replicas: int, existing: set[int], policy: str
) -> None:
    sts = make_sts(replicas, podManagementPolicy=policy)
    plan = plan_sync(sts, [make_pod(sts, i) for i in sorted(existing)], now=NOW)
    created = [ordinal_of(a.pod) for a in plan.actions if a.verb == "create"]
    deleted = [ordinal_of(a.pod) for a in plan.actions if a.verb == "delete"]
    missing = sorted(set(range(replicas)) - existing)
    condemned = sorted((i for i in existing if i >= replicas), reverse=True)
    assert all(a.cause in ("missing", "condemned") for a in plan.actions)
    if policy == "Parallel":
        assert created == missing
        assert deleted == condemned
    else:
        assert all(len(step) == 1 for step in plan.steps)
        assert created == missing[:1]
        assert deleted == ([] if missing else condemned[:1])
