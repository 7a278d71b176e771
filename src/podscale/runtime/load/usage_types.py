"""The usage model's values: what a container costs and is given, a pod and its usage.

``ContainerResources`` (requests and limits), ``PodLoad`` (a running pod as the model sees
it), ``ContainerCost`` and ``LoadProfile`` (what a workload's containers cost), and
``WorkloadDemand`` (a workload's rate and pods) are what ``usage.compute_usage`` reads;
``ContainerUsage`` and ``PodUsage`` are what it answers, ``DrawnRows`` what ``usage.draw_rows``
answers before them. ``usage`` re-exports them all, as the package does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from podscale.runtime.simulated.resources import Resources

__all__ = [
    "ContainerCost",
    "ContainerResources",
    "ContainerUsage",
    "DrawnRows",
    "LoadProfile",
    "PodLoad",
    "PodUsage",
    "WorkloadDemand",
]


@dataclass(frozen=True, slots=True)
class ContainerResources:
    """A container's requests and limits; a limit of None means unlimited."""

    name: str
    request: Resources = field(default_factory=Resources)
    cpu_limit_milli: int | None = None
    memory_limit: int | None = None


@dataclass(frozen=True, slots=True)
class PodLoad:
    """A running pod as the load model sees it."""

    name: str
    containers: tuple[ContainerResources, ...]
    namespace: str = "default"
    node: str | None = None
    ready: bool = True

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)


@dataclass(frozen=True, slots=True)
class ContainerCost:
    """Baseline usage and cost per request/s of one container (CPU in millicores, memory
    in bytes; per request/s means ``2`` millicores costs 2 ms of CPU per request)."""

    baseline_milli_cpu: float = 0.0
    baseline_memory: float = 0.0
    milli_cpu_per_rps: float = 0.0
    memory_per_rps: float = 0.0


@dataclass(frozen=True, slots=True)
class LoadProfile:
    """What each container of a workload's pods costs, by container name; containers not
    named cost ``default``."""

    costs: Mapping[str, ContainerCost] = field(default_factory=dict)
    default: ContainerCost = ContainerCost()
    noise_stddev: float = 0.0

    def cost_of(self, container: str) -> ContainerCost:
        return self.costs.get(container, self.default)


@dataclass(frozen=True, slots=True)
class WorkloadDemand:
    """One workload at one instant: its request rate and the pods behind it."""

    rate: float
    pods: Sequence[PodLoad]
    profile: LoadProfile = LoadProfile()


class ContainerUsage(NamedTuple):
    """A container's usage. A NamedTuple rather than a frozen dataclass: every usage
    advance builds one per container, and a tuple is built in a third of the time."""

    name: str
    milli_cpu: int
    memory: int


class PodUsage(NamedTuple):
    """A pod's traffic share and its containers' usage (a NamedTuple, as ``ContainerUsage``)."""

    namespace: str
    name: str
    node: str | None
    request_rate: float
    containers: tuple[ContainerUsage, ...]

    @property
    def milli_cpu(self) -> int:
        return sum(c.milli_cpu for c in self.containers)

    @property
    def memory(self) -> int:
        return sum(c.memory for c in self.containers)


class DrawnRows(NamedTuple):
    """``draw_usage`` before its ``PodUsage``s (``draw_rows``): each workload's share of
    its rate (per ready pod), and each container's CPU and memory usage, one entry per
    container of the plan in draw order, capped but not yet rounded down (a list, or an
    array when the plan draws with numpy). ``usages_of`` makes the ``PodUsage``s of it;
    ``UsageLedger.credit_drawn`` credits it as they would be credited, without building
    them."""

    shares: list[float]
    cpu: list[float] | npt.NDArray[np.float64]
    memory: list[float] | npt.NDArray[np.float64]
