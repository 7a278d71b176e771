"""The scheduler's cache: assumed pods count at once and give way to what the informer
reports; running node totals always equal a recount of the pods placed there, so choosing a
node from the totals agrees with choosing it from the pod lists."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.runtime.simulated.node_objects import node
from podscale.runtime.simulated.resources import NodeUsage, Resources, node_usage
from podscale.runtime.simulated.scheduler_cache import AssignedPods
from podscale.runtime.simulated.scheduling import choose_node

JSON = dict[str, Any]


def pod(name: str, cpu: str = "500m", memory: str = "256Mi", **extra: Any) -> JSON:
    spec: JSON = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]
    }
    spec.update(extra.pop("spec", {}))
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec, **extra}


def bound(p: JSON, node_name: str) -> JSON:
    return {**p, "spec": {**p["spec"], "nodeName": node_name}}


def test_assumed_pod_counts_until_the_binding_fails() -> None:
    cache = AssignedPods()
    cache.assume(pod("a"), "n1")
    assert cache.is_assumed("default/a")
    assert cache.by_node() == {
        "n1": NodeUsage(1, Resources(500, 256 * 2**20), Resources(500, 256 * 2**20))
    }
    cache.forget("default/a")
    assert not cache.is_assumed("default/a")
    assert cache.by_node() == {}


@pytest.mark.parametrize(
    ("observed", "assumed_after", "usage_nodes"),
    [
        (bound(pod("a"), "n1"), False, ["n1"]),  # the informer confirms the binding
        (pod("a"), True, ["n1"]),  # an older, unbound version: the assumption stays
        (bound(pod("a"), "n2"), False, ["n2"]),  # bound elsewhere after all
    ],
    ids=["confirmed", "stale-unbound-event", "moved"],
)
def test_observed_pod_replaces_an_assumption(
    observed: JSON, assumed_after: bool, usage_nodes: list[str]
) -> None:
    cache = AssignedPods()
    cache.assume(pod("a"), "n1")
    cache.observe(observed)
    assert cache.is_assumed("default/a") is assumed_after
    assert sorted(cache.by_node()) == usage_nodes
    cache.forget("default/a")  # no effect once confirmed
    assert sorted(cache.by_node()) == ([] if assumed_after else usage_nodes)


def test_remove_reports_whether_the_pod_was_counted() -> None:
    cache = AssignedPods()
    cache.observe(bound(pod("a"), "n1"))
    assert cache.remove(pod("a")) is True
    assert cache.remove(pod("a")) is False
    assert cache.by_node() == {}


def test_terminal_pods_take_nothing() -> None:
    cache = AssignedPods()
    cache.observe(bound(pod("done", status={"phase": "Succeeded"}), "n1"))
    cache.observe(bound(pod("live"), "n1"))
    assert cache.by_node()["n1"].pods == 1


CPU = st.sampled_from(["100m", "250m", "1", "2"])
MEMORY = st.sampled_from(["64Mi", "512Mi", "1Gi"])
NODES = ["n1", "n2", "n3"]
OPS = st.lists(
    st.tuples(
        st.sampled_from(["assume", "observe", "remove", "forget", "finish"]),
        st.integers(0, 5),
        st.sampled_from(NODES),
        CPU,
        MEMORY,
    ),
    max_size=40,
)


@given(OPS)
def test_node_totals_always_equal_a_recount(ops: list[tuple[str, int, str, str, str]]) -> None:
    cache = AssignedPods()
    truth: dict[str, tuple[str, JSON]] = {}  # key -> (node, pod) as last counted
    assumed: set[str] = set()
    for op, index, node_name, cpu, memory in ops:
        p = pod(f"p{index}", cpu, memory)
        key = f"default/p{index}"
        if op == "assume":
            cache.assume(p, node_name)
            truth[key] = (node_name, bound(p, node_name))
            assumed.add(key)
        elif op in ("observe", "finish"):
            status = {"phase": "Succeeded"} if op == "finish" else {}
            seen = bound({**p, "status": status}, node_name)
            cache.observe(seen)
            truth[key] = (node_name, seen)
            assumed.discard(key)
        elif op == "remove":
            cache.remove(p)
            truth.pop(key, None)
            assumed.discard(key)
        elif key in assumed:
            cache.forget(key)
            truth.pop(key, None)
            assumed.discard(key)
    expected = {name: node_usage([p for n, p in truth.values() if n == name]) for name in NODES}
    got = cache.by_node()
    for name in NODES:
        assert got.get(name, NodeUsage()) == expected[name]


@given(st.lists(st.tuples(st.sampled_from(NODES), CPU, MEMORY), max_size=30), CPU, MEMORY)
def test_choosing_from_totals_matches_choosing_from_pod_lists(
    placed: list[tuple[str, str, str]], cpu: str, memory: str
) -> None:
    nodes = [node(name, cpu="8", memory="8Gi", pods=20) for name in NODES]
    lists: dict[str, list[JSON]] = {name: [] for name in NODES}
    cache = AssignedPods()
    for index, (name, pod_cpu, pod_memory) in enumerate(placed):
        p = bound(pod(f"p{index}", pod_cpu, pod_memory), name)
        lists[name].append(p)
        cache.observe(p)
    incoming = pod("new", cpu, memory)
    assert choose_node(incoming, nodes, cache.by_node()) == choose_node(incoming, nodes, lists)
