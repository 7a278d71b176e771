"""Scale-down order (``podscale.controllers.replicaset.ordering``): one rule per table row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.controllers.replicaset import (
    CONTROLLER_DEFAULT_FEATURE_GATES,
    LOGARITHMIC_SCALE_DOWN,
    POD_DELETION_COST,
    POD_DELETION_COST_ANNOTATION,
    deletion_cost,
    rank_by_related_pods,
    sort_for_deletion,
)
from podscale.controllers.replicaset.ordering import logarithmic_bucket
from podscale.hpa.conditions import format_time

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
NO_LOG = CONTROLLER_DEFAULT_FEATURE_GATES - {LOGARITHMIC_SCALE_DOWN}


def make_pod(
    name: str,
    *,
    node: str = "node-1",
    phase: str = "Running",
    ready: bool = True,
    ready_ago: timedelta | None = timedelta(hours=1),
    restarts: int = 0,
    sidecar_restarts: int = 0,
    created_ago: timedelta | None = timedelta(hours=2),
    cost: str | None = None,
    uid: str | None = None,
    deleted: bool = False,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default", "uid": uid or f"uid-{name}"}
    if created_ago is not None:
        metadata["creationTimestamp"] = format_time(NOW - created_ago)
    if cost is not None:
        metadata["annotations"] = {POD_DELETION_COST_ANNOTATION: cost}
    if deleted:
        metadata["deletionTimestamp"] = format_time(NOW)
    condition: dict[str, Any] = {"type": "Ready", "status": "True" if ready else "False"}
    if ready_ago is not None:
        condition["lastTransitionTime"] = format_time(NOW - ready_ago)
    spec: dict[str, Any] = {"initContainers": [{"name": "proxy", "restartPolicy": "Always"}]}
    if node:
        spec["nodeName"] = node
    return {
        "metadata": metadata,
        "spec": spec,
        "status": {
            "phase": phase,
            "conditions": [condition],
            "containerStatuses": [{"name": "app", "restartCount": restarts}],
            "initContainerStatuses": [{"name": "proxy", "restartCount": sidecar_restarts}],
        },
    }


def names(pods: list[dict[str, Any]]) -> list[str]:
    return [pod["metadata"]["name"] for pod in pods]


H = timedelta(hours=1)
S = timedelta(seconds=1)

# (first, second, ranks, gates): ``first`` must be deleted before ``second`` in either input
# order. Every other field of the pair is equal, so the named rule alone decides.
ORDER_CASES: list[tuple[dict[str, Any], dict[str, Any], dict[str, int] | None, frozenset[str]]] = [
    ({"node": ""}, {"node": "node-1", "phase": "Pending"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"phase": "Pending"}, {"phase": "Unknown"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"phase": "Unknown"}, {"phase": "Running"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"phase": "Pending"}, {"phase": "Running"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"ready": False}, {"ready": True, "cost": "-100"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"cost": "-1"}, {"cost": "0"}, {"a": 1, "b": 5}, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"cost": "5"}, {"cost": "100"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({}, {"cost": "7"}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"cost": "7"}, {"restarts": 0}, {"a": 3, "b": 1}, NO_LOG - {POD_DELETION_COST}),
    ({}, {}, {"a": 3, "b": 2}, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"ready_ago": S}, {"ready_ago": H}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"ready_ago": None}, {"ready_ago": S}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"ready_ago": 61 * S}, {"ready_ago": 62 * S}, None, NO_LOG),
    (
        {"ready_ago": 62 * S, "uid": "a"},
        {"ready_ago": 61 * S, "uid": "b"},
        None,
        DEFAULT_FEATURE_GATES | {LOGARITHMIC_SCALE_DOWN},
    ),
    ({"restarts": 3}, {"restarts": 1}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"sidecar_restarts": 2}, {"created_ago": S}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"restarts": 1}, {"sidecar_restarts": 9}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    (
        {"ready": False, "restarts": 2, "ready_ago": H},
        {"ready": False, "ready_ago": S},
        None,
        CONTROLLER_DEFAULT_FEATURE_GATES,
    ),
    ({"created_ago": S}, {"created_ago": H}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"created_ago": None}, {"created_ago": S}, None, CONTROLLER_DEFAULT_FEATURE_GATES),
    ({"created_ago": 100 * S}, {"created_ago": 101 * S}, None, NO_LOG),
    (
        {"created_ago": 101 * S, "uid": "a"},
        {"created_ago": 100 * S, "uid": "b"},
        None,
        CONTROLLER_DEFAULT_FEATURE_GATES,
    ),
]
ORDER_IDS = [
    "unassigned-before-assigned-even-if-pending",
    "pending-before-unknown",
    "unknown-before-running",
    "pending-before-running",
    "not-ready-before-ready-despite-cost",
    "lower-cost-beats-higher-rank",
    "lower-positive-cost-first",
    "missing-cost-is-zero",
    "cost-ignored-when-gate-off",
    "more-pods-on-node-first",
    "more-recently-ready-first",
    "unset-ready-time-first",
    "ready-time-exact-without-log-gate",
    "same-ready-bucket-falls-back-to-uid",
    "more-restarts-first",
    "sidecar-restarts-break-a-regular-tie",
    "regular-restarts-before-sidecar-restarts",
    "ready-time-ignored-for-unready-pods",
    "newer-creation-first",
    "unset-creation-first",
    "creation-exact-without-log-gate",
    "same-creation-bucket-falls-back-to-uid",
]


@pytest.mark.parametrize(("first", "second", "ranks", "gates"), ORDER_CASES, ids=ORDER_IDS)
def test_rule_orders_pair(
    first: dict[str, Any],
    second: dict[str, Any],
    ranks: dict[str, int] | None,
    gates: frozenset[str],
) -> None:
    a, b = make_pod("a", **first), make_pod("b", **second)
    for pods in ([a, b], [b, a]):
        ordered = sort_for_deletion(pods, ranks=ranks, now=NOW, feature_gates=gates)
        assert names(ordered) == ["a", "b"]


TIE_CASES = [
    ({}, {}),
    ({"phase": "Succeeded"}, {"phase": "Pending"}),
    ({"ready_ago": 61 * S, "uid": "same"}, {"ready_ago": 62 * S, "uid": "same"}),
    ({"node": "node-1"}, {"node": "node-2"}),
    ({"cost": "+5"}, {"cost": "0"}),
]
TIE_IDS = [
    "identical",
    "unknown-phase-ranks-as-pending",
    "same-bucket-same-uid",
    "different-assigned-nodes-same-rank",
    "invalid-cost-reads-zero",
]


@pytest.mark.parametrize(("left", "right"), TIE_CASES, ids=TIE_IDS)
def test_ties_keep_input_order(left: dict[str, Any], right: dict[str, Any]) -> None:
    a, b = make_pod("a", **left), make_pod("b", **right)
    ranks = {"a": 1, "b": 1}
    assert names(sort_for_deletion([a, b], ranks=ranks, now=NOW)) == ["a", "b"]
    assert names(sort_for_deletion([b, a], ranks=ranks, now=NOW)) == ["b", "a"]


def test_default_ranks_count_pods_on_the_same_node() -> None:
    pods = [
        make_pod("lonely", node="node-1"),
        make_pod("crowded-1", node="node-2"),
        make_pod("crowded-2", node="node-2"),
    ]
    ordered = sort_for_deletion(pods, now=NOW)
    assert names(ordered) == ["crowded-1", "crowded-2", "lonely"]


def test_input_is_not_modified() -> None:
    pods = [make_pod("a", ready_ago=H), make_pod("b", ready_ago=S)]
    sort_for_deletion(pods, now=NOW)
    assert names(pods) == ["a", "b"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10", 10),
        ("-5", -5),
        ("0", 0),
        ("-2147483648", -2147483648),
        ("2147483647", 2147483647),
        ("2147483648", 0),
        ("+10", 0),
        ("008", 0),
        ("1.5", 0),
        ("abc", 0),
        ("", 0),
        ("-", 0),
    ],
    ids=[
        "positive",
        "negative",
        "zero",
        "int32-min",
        "int32-max",
        "overflow",
        "plus-sign",
        "leading-zero",
        "fraction",
        "text",
        "empty",
        "bare-minus",
    ],
)
def test_deletion_cost_parsing(value: str, expected: int) -> None:
    pod = make_pod("a", cost=value)
    assert deletion_cost(pod) == expected


@pytest.mark.parametrize(
    ("age", "bucket"),
    [
        (timedelta(0), -1),
        (-S, -1),
        (timedelta(microseconds=1), 9),
        (S, 29),
        (timedelta(seconds=2), 30),
        (timedelta(seconds=3), 31),
        (timedelta(seconds=4), 31),
        (timedelta(seconds=5), 32),
        (timedelta(days=1), 46),
    ],
    ids=["zero", "future", "one-microsecond", "1s", "2s", "3s", "4s", "5s", "1d"],
)
def test_logarithmic_bucket_uses_nanoseconds(age: timedelta, bucket: int) -> None:
    assert logarithmic_bucket(NOW - age, NOW) == bucket


def test_rank_by_related_pods_counts_only_active_related_pods() -> None:
    mine = [make_pod("a", node="node-1"), make_pod("b", node="node-2")]
    sibling = [
        make_pod("s1", node="node-1"),
        make_pod("s2", node="node-1", deleted=True),
        make_pod("s3", node="node-1", phase="Failed"),
    ]
    assert rank_by_related_pods(mine, mine + sibling) == {"a": 2, "b": 1}


pod_fields = st.fixed_dictionaries(
    {
        "node": st.sampled_from(["", "node-1", "node-2"]),
        "phase": st.sampled_from(["Pending", "Unknown", "Running"]),
        "ready": st.booleans(),
        "ready_ago": st.none() | st.integers(0, 10**6).map(lambda s: timedelta(seconds=s)),
        "restarts": st.integers(0, 3),
        "created_ago": st.none() | st.integers(0, 10**6).map(lambda s: timedelta(seconds=s)),
        "cost": st.sampled_from([None, "-1", "0", "5"]),
        "uid": st.sampled_from(["u1", "u2", "u3"]),
    }
)


@given(st.lists(pod_fields, max_size=12), st.booleans())
def test_result_is_a_permutation_with_unassigned_first(
    fields: list[dict[str, Any]], logarithmic: bool
) -> None:
    pods = [make_pod(f"p{i}", **f) for i, f in enumerate(fields)]
    gates = CONTROLLER_DEFAULT_FEATURE_GATES if logarithmic else NO_LOG
    ordered = sort_for_deletion(pods, now=NOW, feature_gates=gates)
    assert sorted(map(id, ordered)) == sorted(map(id, pods))
    assigned = [bool(pod["spec"].get("nodeName")) for pod in ordered]
    assert assigned == sorted(assigned)


@given(pod_fields, st.integers(1, 10))
def test_equal_pods_keep_input_order(fields: dict[str, Any], count: int) -> None:
    pods = [make_pod(f"p{i}", **fields) for i in range(count)]
    ranks = {f"p{i}": 1 for i in range(count)}
    assert names(sort_for_deletion(pods, ranks=ranks, now=NOW)) == names(pods)
