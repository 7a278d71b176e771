"""What a kubelet reports: the subset of its Summary API (``/stats/summary``) the metrics
server reads, and ``KubeletStatsSource``, the protocol through which it reads it.

Modelled on the kubelet's ``stats/v1alpha1`` types: a node and its pods, each container with
its start time, CPU stats (the CUMULATIVE ``usageCoreNanoSeconds`` at ``time``) and memory
stats (``workingSetBytes`` at ``time``). Optional fields are ``None`` when the kubelet has no
value, as the Go pointers are nil; ``points.decode_summary`` decides what is usable.

Implemented by the simulated kubelets (``podscale.runtime``) and by ``fake.FakeKubeletStats``
for tests; read by ``scraper.MetricsServer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = [
    "CPUStats",
    "ContainerStats",
    "KubeletStatsSource",
    "MemoryStats",
    "NodeStats",
    "NodeSummary",
    "PodStats",
]


@dataclass(frozen=True, slots=True)
class CPUStats:
    """CPU time used since the container (or node) started, in core-nanoseconds, as of
    ``time``: a counter that only grows until a restart sets it back to zero."""

    time: datetime
    usage_core_nano_seconds: int | None


@dataclass(frozen=True, slots=True)
class MemoryStats:
    """The working set in bytes as of ``time``: a gauge, not a counter."""

    time: datetime
    working_set_bytes: int | None


@dataclass(frozen=True, slots=True)
class ContainerStats:
    name: str
    start_time: datetime | None
    cpu: CPUStats | None = None
    memory: MemoryStats | None = None


@dataclass(frozen=True, slots=True)
class PodStats:
    """One pod (the Summary API's ``podRef`` flattened: namespace, name, uid)."""

    namespace: str
    name: str
    uid: str
    start_time: datetime | None
    containers: tuple[ContainerStats, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeStats:
    node_name: str
    start_time: datetime | None
    cpu: CPUStats | None = None
    memory: MemoryStats | None = None


@dataclass(frozen=True, slots=True)
class NodeSummary:
    """One kubelet's answer: its node and the pods running on it."""

    node: NodeStats
    pods: tuple[PodStats, ...] = ()


class KubeletStatsSource(Protocol):
    """Where the metrics server scrapes from.

    ``nodes()`` names the nodes to scrape (metrics-server lists them from the API);
    ``summary(node_name)`` is one kubelet's Summary. Either may raise any exception, or take
    too long: the scraper then treats that node (or, for ``nodes()``, the whole round) as
    failed for this tick.
    """

    async def nodes(self) -> list[str]: ...

    async def summary(self, node_name: str) -> NodeSummary: ...
