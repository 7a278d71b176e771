"""The decision engine's value types and the one pluggable part, ``MetricsSource``.

Everything here is plain data: the replica calculator (``calculator``), the normalizer
(``normalize``) and the whole decision (``decide``) take and return these. Nothing in
``podscale.hpa`` performs I/O or reads a clock; ``now`` always arrives as a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, Final, NamedTuple, Protocol

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES

# The shared empty default of the pod maps in a CalculationTrace; read-only on purpose.
_NO_PODS: Final[Mapping[str, str]] = MappingProxyType({})

__all__ = [
    "CalculationTrace",
    "Config",
    "Event",
    "History",
    "MetricError",
    "MetricInputs",
    "MetricProposal",
    "MetricsSource",
    "MetricsUnavailable",
    "PodFacts",
    "PodMetric",
    "PodReader",
    "Recommendation",
    "ScaleEvent",
]


class PodMetric(NamedTuple):
    """One pod's sample: ``value`` in milli-units, taken at ``timestamp`` over ``window``."""

    value: int
    timestamp: datetime
    window: timedelta


class MetricsUnavailable(Exception):
    """A metrics source could not answer (upstream: the metrics client returned an error).

    Its message is the source's own, e.g. ``no metrics returned from resource metrics API``;
    the calculator wraps it the way upstream's ReplicaCalculator does.
    """


class MetricError(Exception):
    """A metric could not be turned into a replica count.

    The message reads like upstream's ReplicaCalculator error, e.g.
    ``unable to get metrics for resource cpu: no metrics returned from resource metrics API``.
    """


class MetricsSource(Protocol):
    """Where metric values come from; mirrors upstream's ``MetricsClient``.

    Implementations raise ``MetricsUnavailable`` when they cannot answer. All values are
    milli-units; timestamps are the source's, not the caller's clock.
    """

    def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]: ...

    def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]: ...

    def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]: ...

    def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]: ...


class PodFacts(NamedTuple):
    """What ``pods.group_pods`` reads of one pod, extracted once (``pod_facts``).

    ``set_aside`` is the pod's group and reason regardless of its sample (``("ignored",
    "deleted")``, ``("ignored", "failed")``, ``("unready", "pending")``), else None.
    ``cpu_reason`` is why a cpu sample cannot count whatever its time (``no ready
    condition``, ``no start time``), else None; then ``start_time``, ``last_transition``
    (Go's zero time when absent) and ``ready_false`` are the Ready condition's facts.
    """

    name: str
    set_aside: tuple[str, str] | None
    cpu_reason: str | None
    start_time: datetime
    last_transition: datetime
    ready_false: bool


class PodReader(Protocol):
    """Per-pod values the calculator derives from a listed pod, as a caller may keep them
    between syncs (the controller's ``PodMemo``): each must return what ``pod_facts`` and
    ``pods.pod_request`` return for the same pod (None: the facts cannot be extracted, and
    the pod goes through ``group_pods``' own rules)."""

    def facts(self, pod: Mapping[str, Any]) -> PodFacts | None: ...

    def request(self, pod: Mapping[str, Any], container: str, resource: str) -> int: ...

    def values(
        self, pod: Mapping[str, Any], container: str, resource: str
    ) -> tuple[PodFacts | None, int | None]:
        """``facts(pod)`` and ``request(pod, container, resource)`` in one call (what
        ``pod_facts.scan_pods`` asks of every pod at every sync); the request None when
        it fails (the caller's general path then raises it)."""
        ...

    def all_values(
        self, pods: Sequence[Mapping[str, Any]], container: str, resource: str
    ) -> Sequence[tuple[PodFacts | None, int | None]]:
        """``values`` of each of ``pods``, in their order (one call per sync)."""
        ...


class MetricInputs(NamedTuple):
    """What every metric of one HPA sync is calculated against, besides its MetricSpec.

    ``current_replicas`` is the scale's ``spec.replicas`` and ``status_replicas`` its
    ``status.replicas``, which Object and External ``averageValue`` targets divide by;
    ``pods`` are the pods ``selector`` matches; ``tolerances`` the (down, up) pair.
    A NamedTuple, as immutable as a frozen dataclass and built in a third of its time
    (one per sync).
    """

    current_replicas: int
    status_replicas: int
    pods: list[dict[str, Any]]
    metrics: MetricsSource
    namespace: str
    selector: str
    now: datetime
    config: Config
    tolerances: tuple[float, float]
    # None: every pod is read afresh; else the caller's ``PodReader`` (same values).
    pod_reader: PodReader | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """Controller-wide settings (kube-controller-manager's ``--horizontal-pod-autoscaler-*``)."""

    tolerance: float = 0.1
    cpu_initialization_period: timedelta = timedelta(minutes=5)
    initial_readiness_delay: timedelta = timedelta(seconds=30)
    downscale_stabilization: timedelta = timedelta(minutes=5)
    scale_up_limit_factor: float = 2.0
    scale_up_limit_minimum: float = 4.0
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES


class Recommendation(NamedTuple):
    """An unstabilized recommendation, as upstream's ``timestampedRecommendation``."""

    replicas: int
    timestamp: datetime


class ScaleEvent(NamedTuple):
    """A past rescale, as upstream's ``timestampedScaleEvent``.

    ``replica_change`` is always positive: the size of the step in its direction.
    ``outdated`` marks a slot that a later event may reuse.
    """

    replica_change: int
    timestamp: datetime
    outdated: bool = False


@dataclass(slots=True)
class History:
    """What the controller remembers about one HPA between syncs.

    Upstream keeps these in memory, keyed by HPA; podscale passes them explicitly so the
    engine stays pure and the controller may persist them. Building blocks update the
    lists of the History they are given; ``decide`` works on a copy and returns it.
    """

    recommendations: list[Recommendation] = field(default_factory=list)
    scale_up_events: list[ScaleEvent] = field(default_factory=list)
    scale_down_events: list[ScaleEvent] = field(default_factory=list)

    def copy(self) -> History:
        return History(
            list(self.recommendations), list(self.scale_up_events), list(self.scale_down_events)
        )


class CalculationTrace(NamedTuple):
    """How one metric's proposal came about: the machine-readable part of the decision trace.

    Pod sets map a pod name to why it was set aside (``"deleted"``, ``"failed"``,
    ``"pending"``, ``"not ready"``, ``"inside cpu initialization period"``, ...).
    ``usage_ratio`` is current/target before rebalancing and ``rebalanced_ratio`` after
    missing and unready pods were filled in (``None`` when no rebalancing happened).
    ``outcome`` names the branch that produced the count (e.g. ``"within tolerance"``,
    ``"direction flipped after rebalancing"``, ``"scaled by ratio"``).

    Trace records are ``NamedTuple``s, not frozen dataclasses: just as immutable and typed,
    and about four times cheaper to build, which matters because every decision builds
    several (see docs/performance.md).
    """

    metric: str
    target_type: str
    current_value: int
    target_value: int
    usage_ratio: float
    tolerances: tuple[float, float]
    within_tolerance: bool
    ready_pod_count: int = 0
    ignored_pods: Mapping[str, str] = _NO_PODS
    unready_pods: Mapping[str, str] = _NO_PODS
    missing_pods: tuple[str, ...] = ()
    rebalanced_ratio: float | None = None
    outcome: str = ""


class MetricProposal(NamedTuple):
    """One metric's proposed replica count (upstream: a ``computeReplicasForMetric`` result).

    ``utilization`` is the current average utilization in percent (Resource and
    ContainerResource utilization targets only); ``raw_value`` the current value in milli
    units (the average per pod, or the object's/external total as upstream reports it).
    A NamedTuple, like the trace records: immutable and cheap to build (one per metric
    and sync).
    """

    replicas: int
    utilization: int | None
    raw_value: int
    timestamp: datetime | None
    trace: CalculationTrace


class Event(NamedTuple):
    """A Kubernetes Event the controller would emit about the HPA."""

    type: str  # "Normal" | "Warning"
    reason: str
    message: str
