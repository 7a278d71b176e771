"""The simulated scheduler: filters with upstream's reasons, LeastAllocated spread, the
FitError message shape, binding; hypothesis: repeated binding never exceeds allocatable."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.simulated.node_objects import node, set_node_ready
from podscale.runtime.simulated.resources import node_allocatable, pod_requests
from podscale.runtime.simulated.scheduling import (
    NO_NODES_AVAILABLE,
    bind,
    choose_node,
    filter_node,
    mark_unschedulable,
    unschedulable_reason,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def make_pod(
    name: str = "p",
    cpu: str | None = "500m",
    memory: str | None = "256Mi",
    **spec: Any,
) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "app", "resources": {"requests": requests}}], **spec},
    }


def tainted(base: dict[str, Any], *taints: dict[str, str]) -> dict[str, Any]:
    base["spec"]["taints"] = list(taints)
    return base


FILTER_CASES = [
    ("fits", make_pod(), node("n"), [], []),
    ("insufficient-cpu", make_pod(cpu="5"), node("n"), [], ["Insufficient cpu"]),
    ("insufficient-memory", make_pod(memory="9Gi"), node("n"), [], ["Insufficient memory"]),
    (
        "insufficient-both",
        make_pod(cpu="5", memory="9Gi"),
        node("n"),
        [],
        ["Insufficient cpu", "Insufficient memory"],
    ),
    (
        "cpu-used-by-bound-pods",
        make_pod(cpu="1"),
        node("n", cpu="2"),
        [make_pod(cpu="1500m")],
        ["Insufficient cpu"],
    ),
    (
        "terminal-pods-free-resources",
        make_pod(cpu="1"),
        node("n", cpu="2"),
        [make_pod(cpu="1500m") | {"status": {"phase": "Succeeded"}}],
        [],
    ),
    (
        "too-many-pods",
        make_pod(),
        node("n", pods=1),
        [make_pod(cpu=None, memory=None)],
        ["Too many pods"],
    ),
    ("zero-request-pod-ignores-cpu", make_pod(cpu=None, memory=None), node("n", cpu="0"), [], []),
    (
        "unschedulable",
        make_pod(),
        node("n") | {"spec": {"unschedulable": True}},
        [],
        ["node(s) were unschedulable"],
    ),
    (
        "unschedulable-tolerated",
        make_pod(tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]),
        node("n") | {"spec": {"unschedulable": True}},
        [],
        [],
    ),
    (
        "not-ready",
        make_pod(),
        set_node_ready(node("n"), False, NOW),
        [],
        ["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"],
    ),
    (
        "node-selector-mismatch",
        make_pod(nodeSelector={"disk": "ssd"}),
        node("n"),
        [],
        ["node(s) didn't match Pod's node affinity/selector"],
    ),
    (
        "node-selector-match",
        make_pod(nodeSelector={"disk": "ssd"}),
        node("n", labels={"disk": "ssd"}),
        [],
        [],
    ),
    (
        "taint-no-schedule",
        make_pod(),
        tainted(node("n"), {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
        [],
        ["node(s) had untolerated taint {dedicated: gpu}"],
    ),
    (
        "taint-prefer-ignored",
        make_pod(),
        tainted(node("n"), {"key": "dedicated", "value": "gpu", "effect": "PreferNoSchedule"}),
        [],
        [],
    ),
    (
        "taint-tolerated-equal",
        make_pod(tolerations=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        tainted(node("n"), {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
        [],
        [],
    ),
    (
        "taint-toleration-wrong-value",
        make_pod(tolerations=[{"key": "dedicated", "value": "cpu"}]),
        tainted(node("n"), {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}),
        [],
        ["node(s) had untolerated taint {dedicated: gpu}"],
    ),
    (
        "taint-tolerated-wildcard",
        make_pod(tolerations=[{"operator": "Exists"}]),
        tainted(node("n"), {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
        [],
        [],
    ),
    (
        "first-failing-plugin-wins",
        make_pod(cpu="99", nodeSelector={"disk": "ssd"}),
        node("n"),
        [],
        ["node(s) didn't match Pod's node affinity/selector"],
    ),
]


@pytest.mark.parametrize(
    ("pod", "target", "bound", "expected"),
    [case[1:] for case in FILTER_CASES],
    ids=[case[0] for case in FILTER_CASES],
)
def test_filter_reasons(
    pod: dict[str, Any], target: dict[str, Any], bound: list[dict[str, Any]], expected: list[str]
) -> None:
    assert filter_node(pod, target, bound) == expected


REQUEST_CASES = [
    ("sum-of-containers", [("a", "100m"), ("b", "200m")], [], 300),
    ("init-larger", [("a", "100m")], [("init", "1", None)], 1000),
    ("init-smaller", [("a", "700m")], [("init", "500m", None)], 700),
    ("sidecar-adds", [("a", "100m")], [("side", "200m", "Always")], 300),
    (
        "init-after-sidecar",
        [("a", "100m")],
        [("side", "200m", "Always"), ("init", "1", None)],
        1200,
    ),
]


@pytest.mark.parametrize(
    ("containers", "inits", "expected_milli"),
    [case[1:] for case in REQUEST_CASES],
    ids=[case[0] for case in REQUEST_CASES],
)
def test_pod_requests_follow_upstream(
    containers: list[tuple[str, str]], inits: list[tuple[str, str, str | None]], expected_milli: int
) -> None:
    init_specs = [
        {"name": n, "resources": {"requests": {"cpu": c}}} | ({"restartPolicy": r} if r else {})
        for n, c, r in inits
    ]
    pod = {
        "spec": {
            "containers": [
                {"name": n, "resources": {"requests": {"cpu": c}}} for n, c in containers
            ],
            "initContainers": init_specs,
        }
    }
    assert pod_requests(pod).milli_cpu == expected_milli


def test_spread_prefers_least_allocated_node() -> None:
    nodes = [node("a"), node("b"), node("c")]
    placed: dict[str, list[dict[str, Any]]] = {"a": [], "b": [], "c": []}
    order = []
    for index in range(6):
        pod = make_pod(f"p{index}")
        chosen = choose_node(pod, nodes, placed)
        assert chosen is not None
        placed[chosen].append(bind(pod, chosen, NOW))
        order.append(chosen)
    assert order == ["a", "b", "c", "a", "b", "c"]


def test_spread_favours_bigger_free_share() -> None:
    nodes = [node("a", cpu="2", memory="2Gi"), node("b", cpu="8", memory="16Gi")]
    assert choose_node(make_pod(), nodes, {}) == "b"


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        ([node("z"), node("y")], "y"),
        ([node("m", cpu="1"), node("k", cpu="4")], "k"),
    ],
    ids=["tie-breaks-by-name", "score-beats-name"],
)
def test_choose_node_is_deterministic(nodes: list[dict[str, Any]], expected: str) -> None:
    assert choose_node(make_pod(), nodes, {}) == expected


def test_already_bound_pod_keeps_its_node() -> None:
    assert choose_node(make_pod(nodeName="elsewhere"), [node("a")], {}) == "elsewhere"


def test_nothing_fits_returns_none() -> None:
    assert choose_node(make_pod(cpu="64"), [node("a"), node("b")], {}) is None


MESSAGE_CASES = [
    (
        "all-insufficient-cpu",
        make_pod(cpu="5"),
        [node("a"), node("b"), node("c")],
        "0/3 nodes are available: 3 Insufficient cpu.",
    ),
    (
        "mixed-reasons-sorted",
        make_pod(cpu="5"),
        [
            node("a"),
            node("b") | {"spec": {"unschedulable": True}},
            set_node_ready(node("c"), False, NOW),
        ],
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
        "{node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.",
    ),
    (
        "two-reasons-one-node",
        make_pod(cpu="5", memory="9Gi"),
        [node("a")],
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.",
    ),
    ("no-nodes", make_pod(), [], NO_NODES_AVAILABLE),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "expected"),
    [case[1:] for case in MESSAGE_CASES],
    ids=[case[0] for case in MESSAGE_CASES],
)
def test_unschedulable_message_shape(
    pod: dict[str, Any], nodes: list[dict[str, Any]], expected: str
) -> None:
    assert unschedulable_reason(pod, nodes, {}) == expected


def test_bind_sets_node_and_condition_without_touching_input() -> None:
    pod = make_pod() | {"extra": {"kept": True}}
    bound = bind(pod, "a", NOW)
    assert bound["spec"]["nodeName"] == "a"
    assert bound["extra"] == {"kept": True}
    assert bound["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": "2026-01-01T12:00:00Z",
        }
    ]
    assert "nodeName" not in pod["spec"]


def test_mark_unschedulable_keeps_transition_time() -> None:
    pod = make_pod()
    first = mark_unschedulable(pod, "0/1 nodes are available: 1 Insufficient cpu.", NOW)
    later = mark_unschedulable({**pod, "status": first}, "msg", NOW.replace(minute=5))
    condition = later["conditions"][0]
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == "msg"
    assert condition["lastTransitionTime"] == "2026-01-01T12:00:00Z"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 4096)), min_size=1, max_size=40),
    st.lists(
        st.tuples(st.integers(0, 4000), st.integers(0, 8192), st.integers(1, 5)),
        min_size=1,
        max_size=4,
    ),
)
def test_binding_never_exceeds_allocatable(
    requests: list[tuple[int, int]], capacities: list[tuple[int, int, int]]
) -> None:
    nodes = [
        node(f"n{i}", cpu=f"{cpu}m", memory=f"{mem}Mi", pods=pods)
        for i, (cpu, mem, pods) in enumerate(capacities)
    ]
    placed: dict[str, list[dict[str, Any]]] = {}
    for index, (cpu, mem) in enumerate(requests):
        pod = make_pod(f"p{index}", cpu=f"{cpu}m", memory=f"{mem}Mi")
        chosen = choose_node(pod, nodes, placed)
        if chosen is not None:
            placed.setdefault(chosen, []).append(bind(pod, chosen, NOW))
    for target in nodes:
        name = target["metadata"]["name"]
        bound = placed.get(name, [])
        allocatable = node_allocatable(target)
        assert len(bound) <= allocatable.pods
        assert sum(pod_requests(p).milli_cpu for p in bound) <= allocatable.milli_cpu
        assert sum(pod_requests(p).memory for p in bound) <= allocatable.memory
