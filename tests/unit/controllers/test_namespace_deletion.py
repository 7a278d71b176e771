"""The namespace controller's pure decisions: which kinds it empties, the pods' estimate,
what remains of a kind, the five conditions and how they merge, the finalize write."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kinds import all_kinds, kind_for
from podscale.controllers.namespace.deletion import (
    CONDITION_TYPES,
    FINALIZER_ESTIMATE_SECONDS,
    KindResult,
    assess,
    deletable_kinds,
    deletion_conditions,
    gvr_string,
    merge_conditions,
    pod_estimate,
    requeue_seconds,
    without_finalizer,
)

JSON = dict[str, Any]
POD = kind_for("v1", "Pod")
DEPLOYMENT = kind_for("apps/v1", "Deployment")
NOW = datetime(2026, 5, 1, 12, 0, 30, tzinfo=UTC)
T0 = "2026-05-01T12:00:00Z"
T1 = "2026-05-01T12:00:30Z"


def test_every_served_namespaced_kind_is_emptied_once() -> None:
    kinds = deletable_kinds(all_kinds())
    plurals = [info.plural for info in kinds]
    assert {"events", "pods", "deployments", "replicasets", "statefulsets"} <= set(plurals)
    assert plurals.count("horizontalpodautoscalers") == 1  # the preferred version only
    assert all(info.namespaced and info.top_level for info in kinds)
    assert not {"namespaces", "nodes"} & set(plurals)


def test_gvr_strings_are_go_s() -> None:
    assert gvr_string(POD) == "/v1, Resource=pods"
    assert gvr_string(DEPLOYMENT) == "apps/v1, Resource=deployments"


def _pod(grace: int | None, phase: str = "Running") -> JSON:
    spec: JSON = {} if grace is None else {"terminationGracePeriodSeconds": grace}
    return {"spec": spec, "status": {"phase": phase}}


@pytest.mark.parametrize(
    ("pods", "deleted_at", "expected"),
    [
        ([], T0, 0),
        ([_pod(30), _pod(60)], T0, 60),
        ([_pod(30)], T0, 0),  # 30 s have passed since the namespace was deleted
        ([_pod(120, "Succeeded"), _pod(45)], T0, 45),
        ([_pod(None)], T0, 0),
        ([_pod(10)], T1, 10),
    ],
    ids=["none", "longest", "elapsed", "terminal-skipped", "no-grace", "just-deleted"],
)
def test_pod_estimate(pods: list[JSON], deleted_at: str, expected: int) -> None:
    assert pod_estimate(pods, deleted_at, NOW) == expected


def _item(*finalizers: str) -> JSON:
    return {"metadata": {"name": "x", "finalizers": list(finalizers)}}


@pytest.mark.parametrize(
    ("remaining", "estimate", "expected"),
    [
        ([], 30, KindResult()),
        ([_item(), _item()], 30, KindResult(2, 30, {})),
        ([_item("a/b"), _item("a/b", "c/d")], 0, KindResult(2, 15, {"a/b": 2, "c/d": 1})),
        (
            [_item()],
            0,
            KindResult(
                1,
                0,
                {},
                "unexpected items still remain in namespace: shop for gvr: /v1, Resource=pods",
            ),
        ),
    ],
    ids=["empty", "waiting-on-grace", "held-by-finalizers", "unexpected"],
)
def test_assess(remaining: list[JSON], estimate: int, expected: KindResult) -> None:
    assert assess(POD, "shop", remaining, estimate) == expected


def test_failing_conditions_carry_upstream_reasons_and_messages() -> None:
    results = {
        POD: KindResult(2, 30, {}),
        DEPLOYMENT: KindResult(1, FINALIZER_ESTIMATE_SECONDS, {"example.com/keep": 1}),
    }
    conditions = deletion_conditions(results, ["b failed", "a failed"], T0)
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in conditions] == [
        (
            "NamespaceDeletionContentFailure",
            "True",
            "ContentDeletionFailed",
            "Failed to delete all resource types, 2 remaining: a failed, b failed",
        ),
        (
            "NamespaceContentRemaining",
            "True",
            "SomeResourcesRemain",
            "Some resources are remaining: deployments.apps has 1 resource instances, "
            "pods. has 2 resource instances",
        ),
        (
            "NamespaceFinalizersRemaining",
            "True",
            "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: example.com/keep in 1 "
            "resource instances",
        ),
    ]


def test_merge_sets_every_type_and_moves_transition_time_only_on_status_change() -> None:
    first, changed = merge_conditions([], deletion_conditions({POD: KindResult(1, 30)}, [], T0), T0)
    assert changed
    assert [c["type"] for c in first] == list(CONDITION_TYPES)
    remaining = next(c for c in first if c["type"] == "NamespaceContentRemaining")
    assert (remaining["status"], remaining["reason"]) == ("True", "SomeResourcesRemain")
    ok = next(c for c in first if c["type"] == "NamespaceDeletionDiscoveryFailure")
    assert (ok["status"], ok["reason"], ok["message"]) == (
        "False",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    )
    # Same failing message: nothing to write.
    again, changed = merge_conditions(
        first, deletion_conditions({POD: KindResult(1, 30)}, [], T1), T1
    )
    assert (again, changed) == (first, False)
    # Only the count changed: the message moves, the transition time does not.
    fewer, changed = merge_conditions(
        first, deletion_conditions({POD: KindResult(2, 30)}, [], T1), T1
    )
    entry = next(c for c in fewer if c["type"] == "NamespaceContentRemaining")
    assert (changed, entry["lastTransitionTime"]) == (True, T0)
    # All gone: the status flips and the time moves.
    done, changed = merge_conditions(fewer, deletion_conditions({}, [], T1), T1)
    entry = next(c for c in done if c["type"] == "NamespaceContentRemaining")
    assert changed
    assert (entry["status"], entry["reason"], entry["lastTransitionTime"]) == (
        "False",
        "ContentRemoved",
        T1,
    )


def test_merge_keeps_conditions_of_other_types() -> None:
    other = {"type": "Custom", "status": "True"}
    merged, _ = merge_conditions([other], [], T0)
    assert merged[0] == other


@given(st.lists(st.sampled_from(["kubernetes", "a.io/x", "b.io/y"]), max_size=6))
def test_finalize_drops_only_the_kubernetes_finalizer(finalizers: list[str]) -> None:
    kept = without_finalizer(finalizers)
    assert kept == sorted(set(finalizers) - {"kubernetes"})


@pytest.mark.parametrize(("estimate", "seconds"), [(30, 16), (15, 8), (1, 1)])
def test_requeue_is_half_the_estimate_plus_one(estimate: int, seconds: int) -> None:
    assert requeue_seconds(estimate) == seconds


def test_group_versions_discovery_could_not_list_make_the_discovery_condition_true() -> None:
    conditions = deletion_conditions({}, [], T0, ["toys.podscale.test/v1", "metrics.k8s.io/v1"])
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in conditions] == [
        (
            "NamespaceDeletionDiscoveryFailure",
            "True",
            "DiscoveryFailed",
            "Discovery failed for some groups, 2 failing: unable to retrieve the complete list "
            "of server APIs: metrics.k8s.io/v1, toys.podscale.test/v1",
        )
    ]
