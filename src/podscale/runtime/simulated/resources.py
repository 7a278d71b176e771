"""Resource arithmetic of the simulated cluster: what a pod requests, what a node offers.

Shared by ``podscale.runtime.simulated.scheduling`` (fit and scoring) and
``podscale.runtime.simulated.kubelet_state`` (the node builder). Quantities are parsed with
``podscale.api.quantity``; CPU is counted in millicores, memory in bytes, like the scheduler's
``framework.Resource``.

The pod request follows upstream's ``resourcehelper.PodRequests``: the regular containers'
requests summed with the restartable (sidecar) init containers, against the largest
one-shot init container plus the sidecars started before it; the larger wins, then
``spec.overhead`` is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from podscale.api.quantity import parse_quantity

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "NodeUsage",
    "Resources",
    "node_allocatable",
    "node_usage",
    "pod_non_zero_requests",
    "pod_requests",
]

# Scoring treats a container without requests as if it asked for this much, so that many
# request-less pods do not all land on one node (upstream ``schedutil.DefaultMilliCPURequest``).
DEFAULT_MILLI_CPU_REQUEST: Final = 100
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Resources:
    """CPU in millicores and memory in bytes; ``pods`` only means something for allocatable."""

    milli_cpu: int = 0
    memory: int = 0
    pods: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.milli_cpu + other.milli_cpu, self.memory + other.memory, self.pods + other.pods
        )

    def __sub__(self, other: Resources) -> Resources:
        return Resources(
            self.milli_cpu - other.milli_cpu, self.memory - other.memory, self.pods - other.pods
        )

    def max_with(self, other: Resources) -> Resources:
        return Resources(
            max(self.milli_cpu, other.milli_cpu),
            max(self.memory, other.memory),
            max(self.pods, other.pods),
        )


def read_resource_list(values: Any) -> Resources:
    """A ``ResourceList`` (``{"cpu": "500m", "memory": "1Gi", "pods": "110"}``) as numbers."""
    if not isinstance(values, dict):
        return Resources()
    cpu = values.get("cpu")
    memory = values.get("memory")
    pods = values.get("pods")
    return Resources(
        milli_cpu=parse_quantity(cpu).milli_value() if cpu is not None else 0,
        memory=parse_quantity(memory).value() if memory is not None else 0,
        pods=parse_quantity(pods).value() if pods is not None else 0,
    )


def _container_requests(container: dict[str, Any], *, non_zero: bool) -> Resources:
    requests = (container.get("resources") or {}).get("requests") or {}
    found = read_resource_list(requests)
    if not non_zero:
        return Resources(found.milli_cpu, found.memory)
    # Upstream substitutes the default only where the request is absent, not where it is 0.
    return Resources(
        found.milli_cpu if "cpu" in requests else DEFAULT_MILLI_CPU_REQUEST,
        found.memory if "memory" in requests else DEFAULT_MEMORY_REQUEST,
    )


def _requests(pod: dict[str, Any], *, non_zero: bool) -> Resources:
    spec = pod.get("spec") or {}
    regular = Resources()
    for container in spec.get("containers") or []:
        regular = regular + _container_requests(container, non_zero=non_zero)
    sidecars = Resources()
    init_peak = Resources()
    for container in spec.get("initContainers") or []:
        requested = _container_requests(container, non_zero=non_zero)
        if container.get("restartPolicy") == "Always":
            sidecars = sidecars + requested
            init_peak = init_peak.max_with(sidecars)
        else:
            init_peak = init_peak.max_with(sidecars + requested)
    total = (regular + sidecars).max_with(init_peak)
    overhead = read_resource_list(spec.get("overhead"))
    return total + Resources(overhead.milli_cpu, overhead.memory)


def pod_requests(pod: dict[str, Any]) -> Resources:
    """What the pod reserves on its node (``pods`` is always 0: the count is separate)."""
    return _requests(pod, non_zero=False)


def pod_non_zero_requests(pod: dict[str, Any]) -> Resources:
    """The requests scoring uses: absent CPU/memory requests count as the defaults."""
    return _requests(pod, non_zero=True)


def node_allocatable(node: dict[str, Any]) -> Resources:
    """``status.allocatable``, falling back to ``status.capacity`` like the kubelet reports."""
    status = node.get("status") or {}
    return read_resource_list(status.get("allocatable") or status.get("capacity"))


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """What the live (non-terminal) pods on a node take, as upstream's ``NodeInfo`` keeps it:
    their count, their requests, and their requests with the scoring defaults filled in.

    A scheduler can keep one per node and adjust it per pod (``with_pod``/``without_pod``)
    instead of re-reading every pod's requests for every decision."""

    pods: int = 0
    requested: Resources = Resources()
    non_zero_requested: Resources = Resources()

    def with_pod(self, pod: dict[str, Any]) -> NodeUsage:
        if _is_terminal(pod):
            return self
        return NodeUsage(
            self.pods + 1,
            self.requested + pod_requests(pod),
            self.non_zero_requested + pod_non_zero_requests(pod),
        )

    def without_pod(self, pod: dict[str, Any]) -> NodeUsage:
        if _is_terminal(pod):
            return self
        return NodeUsage(
            self.pods - 1,
            self.requested - pod_requests(pod),
            self.non_zero_requested - pod_non_zero_requests(pod),
        )


def _is_terminal(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def node_usage(pods: list[dict[str, Any]]) -> NodeUsage:
    """The usage of ``pods`` (terminal ones do not count)."""
    usage = NodeUsage()
    for pod in pods:
        usage = usage.with_pod(pod)
    return usage
