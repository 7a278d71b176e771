"""``FakeKubeletStats``: deterministic kubelets for tests and simple simulations.

Implements ``summary.KubeletStatsSource`` from usage set by hand: each container runs at a
piecewise-constant CPU rate (millicores) with a memory working set (bytes); its cumulative
counter integrates the rate exactly on the injected clock, in whole core-nanoseconds. A node
reports its own base usage plus its containers', with a counter that never goes back (pods
leaving only lower its rate). Faults: ``fail`` (the summary raises), ``hang`` (it never
answers, so the scraper's timeout fires), ``heal``; ``restart_container`` starts a container
afresh (new start time, counter from zero). ``calls`` records every summary asked for.

Stands in for the simulated kubelets of ``podscale.runtime`` until they serve stats.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from podscale.metrics.server.summary import (
    ContainerStats,
    CPUStats,
    MemoryStats,
    NodeStats,
    NodeSummary,
    PodStats,
)
from podscale.store.interface import Clock

__all__ = ["FakeKubeletStats", "KubeletUnavailable"]

_NANOCORES_PER_MILLICORE = 1_000_000
_MICROS = 1_000_000


class KubeletUnavailable(ConnectionError):
    """What a failed fake kubelet raises."""


@dataclass
class _Counter:
    """A cumulative CPU counter: ``base`` core-ns at ``since``, growing at ``rate`` nanocores."""

    since: datetime
    rate: int
    base: int = 0

    def value(self, now: datetime) -> int:
        elapsed = now - self.since
        micros = (elapsed.days * 86_400 + elapsed.seconds) * _MICROS + elapsed.microseconds
        return self.base + self.rate * micros // _MICROS

    def set_rate(self, now: datetime, rate: int) -> None:
        self.base, self.since, self.rate = self.value(now), now, rate


@dataclass
class _Container:
    started: datetime
    cpu: _Counter
    memory: int


@dataclass
class _Pod:
    node: str
    uid: str
    started: datetime
    containers: dict[str, _Container]


@dataclass
class _Node:
    started: datetime
    cpu: _Counter
    base_rate: int
    base_memory: int
    fault: str | None = None  # None, "fail" or "hang"


class FakeKubeletStats:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._nodes: dict[str, _Node] = {}
        self._pods: dict[tuple[str, str], _Pod] = {}
        self._uids = itertools.count(1)
        self.calls: list[tuple[str, datetime]] = []

    # -- setting up ---------------------------------------------------------------------

    def add_node(
        self,
        name: str,
        *,
        cpu_millicores: int = 100,
        memory_bytes: int = 256 * 1024**2,
        started: datetime | None = None,
    ) -> None:
        """A node using ``cpu_millicores``/``memory_bytes`` itself, up since ``started``
        (default now: its counter is then still zero, and a zero is not reported)."""
        start = started or self._clock.now()
        rate = cpu_millicores * _NANOCORES_PER_MILLICORE
        self._nodes[name] = _Node(start, _Counter(start, rate), rate, memory_bytes)

    def add_pod(
        self,
        node: str,
        namespace: str,
        name: str,
        containers: Mapping[str, tuple[int, int]],
        *,
        started: datetime | None = None,
        uid: str | None = None,
    ) -> None:
        """A pod on ``node``; ``containers`` maps names to (CPU millicores, memory bytes).
        Started at ``started`` (default now), it has run at that rate ever since."""
        if node not in self._nodes:
            raise KeyError(f"no node {node!r}")
        now = self._clock.now()
        start = started or now
        pod = _Pod(node, uid or f"uid-{next(self._uids)}", start, {})
        for container, (cpu, memory) in containers.items():
            rate = cpu * _NANOCORES_PER_MILLICORE
            pod.containers[container] = _Container(start, _Counter(start, rate), memory)
        self._pods[(namespace, name)] = pod
        self._retotal(node)

    def remove_pod(self, namespace: str, name: str) -> None:
        pod = self._pods.pop((namespace, name))
        self._retotal(pod.node)

    def set_usage(
        self,
        namespace: str,
        name: str,
        container: str,
        *,
        cpu_millicores: int | None = None,
        memory_bytes: int | None = None,
    ) -> None:
        """From now on the container uses this much (what is not given stays)."""
        pod = self._pods[(namespace, name)]
        state = pod.containers[container]
        if cpu_millicores is not None:
            state.cpu.set_rate(self._clock.now(), cpu_millicores * _NANOCORES_PER_MILLICORE)
        if memory_bytes is not None:
            state.memory = memory_bytes
        self._retotal(pod.node)

    def restart_container(self, namespace: str, name: str, container: str) -> None:
        """The container starts again now, its counter from zero, at the same usage."""
        now = self._clock.now()
        state = self._pods[(namespace, name)].containers[container]
        state.started, state.cpu = now, _Counter(now, state.cpu.rate)

    def fail(self, node: str) -> None:
        self._nodes[node].fault = "fail"

    def hang(self, node: str) -> None:
        self._nodes[node].fault = "hang"

    def heal(self, node: str) -> None:
        self._nodes[node].fault = None

    def _retotal(self, node_name: str) -> None:
        node = self._nodes[node_name]
        rate = node.base_rate + sum(
            c.cpu.rate
            for p in self._pods.values()
            if p.node == node_name
            for c in p.containers.values()
        )
        node.cpu.set_rate(self._clock.now(), rate)

    # -- KubeletStatsSource -------------------------------------------------------------

    async def nodes(self) -> list[str]:
        return sorted(self._nodes)

    async def summary(self, node_name: str) -> NodeSummary:
        now = self._clock.now()
        self.calls.append((node_name, now))
        node = self._nodes.get(node_name)
        if node is None:
            raise KubeletUnavailable(f"no node {node_name!r}")
        if node.fault == "fail":
            raise KubeletUnavailable(f"kubelet on {node_name} is unavailable")
        if node.fault == "hang":
            await asyncio.get_running_loop().create_future()  # never resolves
        pods: list[PodStats] = []
        memory = node.base_memory
        for (namespace, name), pod in sorted(self._pods.items()):
            if pod.node != node_name:
                continue
            containers = tuple(
                ContainerStats(
                    container,
                    state.started,
                    CPUStats(now, state.cpu.value(now)),
                    MemoryStats(now, state.memory),
                )
                for container, state in pod.containers.items()
            )
            memory += sum(state.memory for state in pod.containers.values())
            pods.append(PodStats(namespace, name, pod.uid, pod.started, containers))
        stats = NodeStats(
            node_name, node.started, CPUStats(now, node.cpu.value(now)), MemoryStats(now, memory)
        )
        return NodeSummary(stats, tuple(pods))
