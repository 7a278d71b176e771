"""The values a scenario snapshot is made of, and the cursor over the Events it has seen.

``WorkloadSnapshot``, ``HpaSnapshot``, ``SeenEvent`` and ``ScenarioSnapshot`` are what
``scenario.snapshot.read_snapshot`` returns (re-exported there), read by ``scenario.run``,
the demo's views and ``replay``'s measures. ``TargetRef`` is what a snapshot needs to know
of a scale target. ``EventCursor`` remembers which Events were already seen (by uid and
count), so each snapshot carries only the new ones, oldest first; a repeated Event, whose
``count`` grew, counts as new again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final, Protocol

from podscale.scenario.hpa_metrics import MetricReading

__all__ = [
    "EventCursor",
    "HpaSnapshot",
    "ScenarioSnapshot",
    "SeenEvent",
    "TargetRef",
    "WorkloadSnapshot",
]

JSON = dict[str, Any]
# kube-controller-manager's --horizontal-pod-autoscaler-downscale-stabilization default.
DEFAULT_DOWNSCALE_WINDOW: Final = timedelta(minutes=5)


class TargetRef(Protocol):
    """A workload by apiVersion, kind, namespace and name (a scenario's ``WorkloadTarget``)."""

    @property
    def api_version(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def namespace(self) -> str: ...

    @property
    def name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class WorkloadSnapshot:
    """One workload: the load it is offered (requests/s), its ``spec.replicas``, its ready
    pods and their average CPU utilization (percent of request; None without metrics)."""

    kind: str
    namespace: str
    name: str
    offered_load: float
    replicas: int
    ready_pods: int
    utilization: float | None


@dataclass(frozen=True, slots=True)
class HpaSnapshot:
    """One HPA's status: current and desired replicas, its first CPU Utilization target
    (None when it has none), its bounds, every metric against its target and its
    stabilization windows."""

    namespace: str
    name: str
    target_kind: str
    target_name: str
    current_replicas: int
    desired_replicas: int
    target_utilization: int | None
    min_replicas: int
    max_replicas: int
    # kubectl's TARGETS cell and each metric's value against its target
    # (``podscale.scenario.hpa_metrics``), whatever the metric types.
    targets: str = "<none>"
    metrics: tuple[MetricReading, ...] = ()
    # The behavior's stabilization windows (upstream's defaults without a behavior:
    # none for scaling up, the controller's 5 minute downscale window).
    scale_up_window: timedelta = timedelta(0)
    scale_down_window: timedelta = DEFAULT_DOWNSCALE_WINDOW


@dataclass(frozen=True, slots=True)
class SeenEvent:
    """A Kubernetes Event as first seen, ``offset`` being the snapshot's."""

    offset: timedelta
    kind: str
    name: str
    type: str
    reason: str
    message: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class ScenarioSnapshot:
    offset: timedelta
    workloads: tuple[WorkloadSnapshot, ...]
    hpas: tuple[HpaSnapshot, ...]
    events: tuple[SeenEvent, ...]

    def workload(self, name: str) -> WorkloadSnapshot:
        return next(w for w in self.workloads if w.name == name)

    def hpa(self, name: str) -> HpaSnapshot:
        return next(h for h in self.hpas if h.name == name)


class EventCursor:
    """The Events not seen before (by uid and count), oldest first."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, int]] = set()

    def new_events(self, items: Iterable[JSON], offset: timedelta) -> list[SeenEvent]:
        fresh: list[tuple[str, str, SeenEvent]] = []
        for item in items:
            metadata = item.get("metadata") or {}
            count = int(item.get("count") or 1)
            mark = (str(metadata.get("uid") or metadata.get("name")), count)
            if mark in self._seen:
                continue
            self._seen.add(mark)
            involved = item.get("involvedObject") or {}
            when = str(item.get("lastTimestamp") or item.get("eventTime") or "")
            event = SeenEvent(
                offset=offset,
                kind=str(involved.get("kind") or ""),
                name=str(involved.get("name") or ""),
                type=str(item.get("type") or "Normal"),
                reason=str(item.get("reason") or ""),
                message=str(item.get("message") or ""),
                count=count,
            )
            fresh.append((when, str(metadata.get("name") or ""), event))
        return [event for _, _, event in sorted(fresh, key=lambda entry: entry[:2])]
