"""Metric points: what the storage keeps of one scrape, and how a kubelet Summary becomes one.

A ``MetricsPoint`` is one container's (or node's) state at one instant: its start time, the
cumulative CPU counter and the memory working set. A ``MetricsBatch`` is one scrape of every
node. ``decode_summary`` applies metrics-server's decoding rules (pkg/scraper/client/summary
and resource/decode.go): a point is timed by its CPU sample; a node whose CPU or memory is
missing or zero is left out; a pod with any such container (or without a start time) is left
out entirely, because the HPA treats a pod without metrics specially and a made-up zero would
hide that. ``merge_batches`` joins the per-node batches of a tick.

Read by ``storage`` (which keeps the last two batches); built by ``scraper``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from podscale.metrics.server.summary import ContainerStats, CPUStats, MemoryStats, NodeSummary

__all__ = ["MetricsBatch", "MetricsPoint", "PodKey", "decode_summary", "merge_batches"]

PodKey = tuple[str, str]
"""(namespace, name): metrics-server keys pods by name, not uid."""


class MetricsPoint(NamedTuple):
    """``cumulative_cpu_used`` in core-nanoseconds since ``start_time`` (when the counter was
    zero); ``memory_usage`` is the working set in bytes; both as of ``timestamp``. A
    NamedTuple (one per container per scrape; built in half a frozen dataclass's time)."""

    start_time: datetime | None
    timestamp: datetime
    cumulative_cpu_used: int
    memory_usage: int


@dataclass(frozen=True, slots=True)
class MetricsBatch:
    """One scrape: node points by node name, container points by pod and container name."""

    nodes: Mapping[str, MetricsPoint] = field(default_factory=dict)
    pods: Mapping[PodKey, Mapping[str, MetricsPoint]] = field(default_factory=dict)


def _usable(
    start_time: datetime | None, cpu: CPUStats | None, memory: MemoryStats | None
) -> MetricsPoint | None:
    if cpu is None or not cpu.usage_core_nano_seconds:
        return None
    if memory is None or not memory.working_set_bytes:
        return None
    return MetricsPoint(start_time, cpu.time, cpu.usage_core_nano_seconds, memory.working_set_bytes)


def _decode_containers(containers: Iterable[ContainerStats]) -> dict[str, MetricsPoint] | None:
    points: dict[str, MetricsPoint] = {}
    for container in containers:
        if container.start_time is None:
            return None
        point = _usable(container.start_time, container.cpu, container.memory)
        if point is None:
            return None
        # A repeated container name is a kubelet bug; the first report stands.
        points.setdefault(container.name, point)
    return points or None


def decode_summary(summary: NodeSummary) -> MetricsBatch:
    """The usable points of one kubelet's Summary (see the module docstring for the rules)."""
    node = summary.node
    nodes: dict[str, MetricsPoint] = {}
    node_point = _usable(node.start_time, node.cpu, node.memory)
    if node_point is not None:
        nodes[node.node_name] = node_point
    pods: dict[PodKey, Mapping[str, MetricsPoint]] = {}
    for pod in summary.pods:
        containers = _decode_containers(pod.containers)
        if containers is not None:
            pods.setdefault((pod.namespace, pod.name), containers)
    return MetricsBatch(nodes, pods)


def merge_batches(batches: Iterable[MetricsBatch]) -> MetricsBatch:
    """One batch of many; a node or pod reported twice keeps its first report."""
    batches = tuple(batches)
    nodes: dict[str, MetricsPoint] = {}
    pods: dict[PodKey, Mapping[str, MetricsPoint]] = {}
    # Each node reports its own pods (the usual case): every batch is added whole, in its
    # order, which is what the first-stands loop gives when no name repeats. A repeat shows
    # as a merged size short of the sum of the sizes (an update replaced an entry): the
    # merge is then made again, name by name. (No test of each name against those before:
    # that hashes every pod key once more per scrape.)
    for batch in batches:
        nodes.update(batch.nodes)
        pods.update(batch.pods)
    if len(nodes) == sum([len(batch.nodes) for batch in batches]) and len(pods) == sum(
        [len(batch.pods) for batch in batches]
    ):
        return MetricsBatch(nodes, pods)
    nodes, pods = {}, {}
    for batch in batches:
        for name, point in batch.nodes.items():
            nodes.setdefault(name, point)
        for key, containers in batch.pods.items():
            pods.setdefault(key, containers)
    return MetricsBatch(nodes, pods)
