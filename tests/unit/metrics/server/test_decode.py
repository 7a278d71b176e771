"""``decode_summary`` / ``merge_batches``: which parts of a kubelet Summary become points."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.metrics.server.points import MetricsBatch, MetricsPoint, decode_summary, merge_batches
from podscale.metrics.server.summary import (
    ContainerStats,
    CPUStats,
    MemoryStats,
    NodeStats,
    NodeSummary,
    PodStats,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CPU_AT = T0 + timedelta(seconds=30)
MEM_AT = T0 + timedelta(seconds=29)
STARTED = T0 - timedelta(minutes=5)


def container(name: str = "web", **changes: object) -> ContainerStats:
    base = ContainerStats(name, STARTED, CPUStats(CPU_AT, 5_000), MemoryStats(MEM_AT, 4096))
    return replace(base, **changes)  # type: ignore[arg-type]


def node(**changes: object) -> NodeStats:
    base = NodeStats("n1", STARTED, CPUStats(CPU_AT, 9_000), MemoryStats(MEM_AT, 8192))
    return replace(base, **changes)  # type: ignore[arg-type]


def pod(name: str, *containers: ContainerStats, ns: str = "default") -> PodStats:
    return PodStats(ns, name, f"uid-{name}", STARTED, containers)


def test_a_complete_summary_is_timed_by_its_cpu_samples() -> None:
    batch = decode_summary(NodeSummary(node(), (pod("p", container("a"), container("b")),)))
    assert batch.nodes == {"n1": MetricsPoint(STARTED, CPU_AT, 9_000, 8192)}
    assert batch.pods == {
        ("default", "p"): {
            "a": MetricsPoint(STARTED, CPU_AT, 5_000, 4096),
            "b": MetricsPoint(STARTED, CPU_AT, 5_000, 4096),
        }
    }


@pytest.mark.parametrize(
    "changes",
    [
        {"cpu": None},
        {"cpu": CPUStats(CPU_AT, None)},
        {"cpu": CPUStats(CPU_AT, 0)},
        {"memory": None},
        {"memory": MemoryStats(MEM_AT, None)},
        {"memory": MemoryStats(MEM_AT, 0)},
    ],
    ids=["no-cpu", "no-counter", "zero-counter", "no-memory", "no-working-set", "zero-memory"],
)
def test_an_incomplete_node_is_left_out_but_its_pods_are_kept(changes: dict[str, object]) -> None:
    batch = decode_summary(NodeSummary(node(**changes), (pod("p", container()),)))
    assert batch.nodes == {}
    assert list(batch.pods) == [("default", "p")]


@pytest.mark.parametrize(
    "broken",
    [
        container("side", start_time=None),
        container("side", cpu=None),
        container("side", cpu=CPUStats(CPU_AT, 0)),
        container("side", memory=None),
        container("side", memory=MemoryStats(MEM_AT, 0)),
    ],
    ids=["no-start-time", "no-cpu", "zero-cpu", "no-memory", "zero-memory"],
)
def test_one_incomplete_container_drops_its_whole_pod(broken: ContainerStats) -> None:
    summary = NodeSummary(node(), (pod("p", container("web"), broken), pod("q", container())))
    assert list(decode_summary(summary).pods) == [("default", "q")]


def test_a_pod_without_containers_is_left_out() -> None:
    assert decode_summary(NodeSummary(node(), (pod("empty"),))).pods == {}


def test_a_repeated_container_name_keeps_the_first_report() -> None:
    summary = NodeSummary(
        node(), (pod("p", container("a"), container("a", cpu=CPUStats(CPU_AT, 7))),)
    )
    assert decode_summary(summary).pods[("default", "p")]["a"].cumulative_cpu_used == 5_000


def test_pods_are_keyed_by_namespace_and_name() -> None:
    summary = NodeSummary(node(), (pod("p", container()), pod("p", container(), ns="other")))
    assert set(decode_summary(summary).pods) == {("default", "p"), ("other", "p")}


def test_merging_joins_nodes_and_keeps_the_first_report_of_a_pod() -> None:
    point = MetricsPoint(STARTED, CPU_AT, 1, 1)
    other = MetricsPoint(STARTED, CPU_AT, 2, 2)
    merged = merge_batches(
        [
            MetricsBatch({"a": point}, {("ns", "p"): {"c": point}}),
            MetricsBatch({"b": other}, {("ns", "p"): {"c": other}, ("ns", "q"): {"c": other}}),
        ]
    )
    assert merged.nodes == {"a": point, "b": other}
    assert merged.pods == {("ns", "p"): {"c": point}, ("ns", "q"): {"c": other}}


def _plain_merge(batches: list[MetricsBatch]) -> tuple[list[Any], list[Any]]:
    """The first-stands merge, name by name, as items in order."""
    nodes: dict[str, MetricsPoint] = {}
    pods: dict[tuple[str, str], Any] = {}
    for batch in batches:
        for name, point in batch.nodes.items():
            nodes.setdefault(name, point)
        for key, containers in batch.pods.items():
            pods.setdefault(key, containers)
    return list(nodes.items()), list(pods.items())


_NAMES = st.sampled_from(["a", "b", "c"])


@given(
    st.lists(
        st.tuples(
            st.lists(st.tuples(_NAMES, st.integers(1, 9)), max_size=3),
            st.lists(st.tuples(_NAMES, _NAMES, st.integers(1, 9)), max_size=4),
        ),
        max_size=4,
    )
)
def test_merging_equals_the_first_stands_loop_in_order(
    raw: list[tuple[list[tuple[str, int]], list[tuple[str, str, int]]]],
) -> None:
    """Batches are added whole, and merged again name by name when a name repeats (the
    merged sizes fall short): either way the merge holds what the first-stands loop holds,
    in the same order."""
    batches = [
        MetricsBatch(
            {name: MetricsPoint(STARTED, CPU_AT, cpu, 1) for name, cpu in nodes},
            {(ns, pod): {"c": MetricsPoint(STARTED, CPU_AT, cpu, 1)} for ns, pod, cpu in pods},
        )
        for nodes, pods in raw
    ]
    merged = merge_batches(batches)
    assert (list(merged.nodes.items()), list(merged.pods.items())) == _plain_merge(batches)
