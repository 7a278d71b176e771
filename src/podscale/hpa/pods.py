"""Pod bookkeeping for the replica calculator: grouping by readiness, requests, ready counts.

Mirrors the helpers at the bottom of upstream's ``replica_calculator.go``: ``groupPods``
(which pods count, which are unready, which lack a sample, which are ignored),
``calculateRequests`` (the per-pod request a utilization is measured against) and
``getReadyPodsCount``. Pods are the raw Pod JSON dicts the caller listed by the target's
selector; they are only read, never copied or changed. ``podscale.hpa.calculator`` is
the sole consumer; the wall clock never enters: ``now`` is a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Final, NamedTuple

from podscale.api import timestamps
from podscale.hpa.calculator_math import quantity_milli
from podscale.hpa.types import MetricError, PodMetric, PodReader

__all__ = [
    "ZERO_TIME",
    "PodGroups",
    "calculate_requests",
    "count_ready_pods",
    "group_pods",
    "parse_time",
    "pod_request",
]

ZERO_TIME: Final = datetime.min.replace(tzinfo=UTC)
"""Go's zero ``time.Time``: what an absent ``lastTransitionTime`` compares as."""

CPU: Final = "cpu"


class PodGroups(NamedTuple):
    """How ``group_pods`` sorted the listed pods (upstream's four return values).

    ``ignored`` pods (deleted or failed) and ``unready`` pods map a name to the reason;
    their samples are dropped before any ratio is computed. ``missing`` pods are running
    but have no sample. Only ``ready_count`` pods contribute measured samples.
    """

    ready_count: int
    unready: dict[str, str]
    missing: frozenset[str]
    ignored: dict[str, str]


@lru_cache(maxsize=4096)
def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 timestamp as Kubernetes writes it (``2024-05-01T10:00:00Z``).

    Naive results are taken as UTC. Cached: the same pod timestamps recur every sync.
    """
    return timestamps.parse_time(text)


def _ready_condition(status: Mapping[str, Any]) -> Mapping[str, Any] | None:
    # Upstream's GetPodCondition: the first condition of type Ready, if any.
    for condition in status.get("conditions") or ():
        if condition.get("type") == "Ready":
            return condition  # type: ignore[no-any-return]
    return None


def _cpu_unready_reason(
    status: Mapping[str, Any],
    sample: PodMetric,
    initializing_since: datetime,
    initial_readiness_delay: timedelta,
) -> str | None:
    """Why a cpu sample of a running pod must not count, or ``None`` when it does.

    CPU spikes while a pod boots, so during its initialization period a sample counts
    only if the pod is ready and the sample covers a full window after the pod last
    turned ready. Afterwards only a pod that has never been ready (its Ready condition
    flipped to False within the readiness delay of its start) is set aside.
    """
    condition = _ready_condition(status)
    if condition is None:
        return "no ready condition"
    start_text = status.get("startTime")
    if not start_text:
        return "no start time"
    start_time = parse_time(start_text)
    transition_text = condition.get("lastTransitionTime")
    last_transition = parse_time(transition_text) if transition_text else ZERO_TIME
    is_false = condition.get("status") == "False"
    # Started after ``now - cpu_initialization_period``: still initializing.
    if start_time > initializing_since:
        if is_false:
            return "not ready"
        if sample.timestamp < last_transition + sample.window:
            return "inside cpu initialization period"
        return None
    if is_false and start_time + initial_readiness_delay > last_transition:
        return "not yet ready since start"
    return None


def group_pods(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    *,
    now: datetime,
    cpu_initialization_period: timedelta,
    initial_readiness_delay: timedelta,
) -> PodGroups:
    """Sort ``pods`` the way upstream's ``groupPods`` does.

    Deleted (``deletionTimestamp`` set) and Failed pods are ignored; Pending pods are
    unready; pods without a sample are missing. Readiness of the remaining pods matters
    only for ``resource == "cpu"`` (see ``_cpu_unready_reason``): any other resource or
    custom metric trusts every sample of a non-pending pod.
    """
    initializing_since = now - cpu_initialization_period
    ready_count = 0
    unready: dict[str, str] = {}
    missing: set[str] = set()
    ignored: dict[str, str] = {}
    for pod in pods:
        name = pod["metadata"]["name"]
        status = pod.get("status") or {}
        phase = status.get("phase")
        if pod["metadata"].get("deletionTimestamp") is not None:
            ignored[name] = "deleted"
            continue
        if phase == "Failed":
            ignored[name] = "failed"
            continue
        if phase == "Pending":
            unready[name] = "pending"
            continue
        sample = metrics.get(name)
        if sample is None:
            missing.add(name)
            continue
        if resource == CPU:
            reason = _cpu_unready_reason(
                status, sample, initializing_since, initial_readiness_delay
            )
            if reason is not None:
                unready[name] = reason
                continue
        ready_count += 1
    return PodGroups(ready_count, unready, frozenset(missing), ignored)


def pod_request(pod: Mapping[str, Any], container_name: str, resource: str) -> int:
    """One pod's ``resource`` request in milli-units (see ``calculate_requests``)."""
    spec = pod.get("spec") or {}
    containers = spec.get("containers") or ()
    init_containers = spec.get("initContainers")
    if init_containers:
        # Restartable init containers (sidecars) run alongside the app containers, so
        # their requests are part of what the pod's usage is measured against.
        sidecars = [init for init in init_containers if init.get("restartPolicy") == "Always"]
        containers = [*containers, *sidecars]
    total = 0
    for container in containers:
        name = container.get("name", "")
        if container_name and name != container_name:
            continue
        resources = container.get("resources")
        requests = resources.get("requests") if resources else None
        request = requests.get(resource) if requests else None
        if request is None:
            pod_name = pod["metadata"]["name"]
            raise MetricError(
                f"missing request for {resource} in container {name} of Pod {pod_name}"
            )
        total += quantity_milli(request)
        if container_name:
            return total  # container names are unique within a pod
    if container_name:
        raise MetricError(f"container {container_name} not found in Pod {pod['metadata']['name']}")
    return total


def calculate_requests(
    pods: Sequence[Mapping[str, Any]],
    container: str,
    resource: str,
    reader: PodReader | None = None,
) -> dict[str, int]:
    """Map each pod's name to its ``resource`` request in milli-units.

    With ``container`` empty the requests of all containers and restartable init
    containers are summed; otherwise only that container's request counts. Every pod is
    checked, ignored ones too, as upstream does. Raises ``MetricError`` with upstream's
    text when a considered container has no request or the named container is absent.
    Pod-level ``spec.resources`` (the PodLevelResources feature) is not consulted.
    ``reader``: a ``PodReader`` answering ``pod_request`` (a memo of it).
    """
    if reader is not None:  # the same values, as the caller keeps them
        return {pod["metadata"]["name"]: reader.request(pod, container, resource) for pod in pods}
    return {pod["metadata"]["name"]: pod_request(pod, container, resource) for pod in pods}


def count_ready_pods(pods: Sequence[Mapping[str, Any]]) -> int:
    """Count Running pods whose Ready condition is True (upstream's ``getReadyPodsCount``).

    Raises ``MetricError("no pods returned by selector while calculating replica
    count")`` for an empty list; the caller adds its own context.
    """
    if not pods:
        raise MetricError("no pods returned by selector while calculating replica count")
    ready = 0
    for pod in pods:
        status = pod.get("status") or {}
        if status.get("phase") != "Running":
            continue
        condition = _ready_condition(status)
        if condition is not None and condition.get("status") == "True":
            ready += 1
    return ready
