"""The record of one ``podscale demo`` run: samples and events over virtual time.

The demo driver appends a ``Sample`` every few virtual seconds and a ``TimelineEvent`` for
each Kubernetes Event about the HPA as the run goes. The presentation modules only read
it: ``demo.view`` (the live terminal lines), ``demo.plot`` (the PNG) and ``demo.summary``
(the closing lines). ``demo.timeline_json`` exports a timeline to a versioned JSON document
and loads it back, so a run can be plotted or summarized again later.

Times are offsets from the start of the run (virtual time), never wall-clock readings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Final

from podscale.scenario.hpa_metrics import MetricReading

__all__ = [
    "Rescale",
    "Sample",
    "Timeline",
    "TimelineError",
    "TimelineEvent",
    "find_rescales",
    "format_offset",
]

# Upstream's SuccessfulRescale message: "New size: <n>; reason: <why>".
_NEW_SIZE: Final = re.compile(r"^New size: (\d+); reason: ")


class TimelineError(ValueError):
    """A timeline document that cannot be loaded, or an out-of-order append."""


def format_offset(offset: timedelta) -> str:
    """``mm:ss`` of a virtual-time offset (minutes grow past two digits, never wrap)."""
    seconds = max(0, int(offset.total_seconds()))
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


@dataclass(frozen=True, slots=True)
class Sample:
    """What the cluster looked like at one instant of the run.

    ``utilization`` is the average CPU usage of the ready pods as a percentage of their
    request (``None`` while no ready pod has a metric); ``target_utilization`` is the HPA's
    ``averageUtilization``. ``desired_replicas`` is the HPA's ``status.desiredReplicas``,
    ``current_replicas`` the target's ``spec.replicas`` as the HPA sees it. ``targets`` is
    kubectl's TARGETS cell for the HPA and ``metrics`` each of its metrics against its
    target, whatever the metric type (empty in timelines recorded before they existed).
    """

    offset: timedelta
    load: float
    utilization: float | None
    target_utilization: int
    desired_replicas: int
    current_replicas: int
    ready_replicas: int
    targets: str = ""
    metrics: tuple[MetricReading, ...] = ()


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """A Kubernetes Event about the HPA (``type`` is ``Normal`` or ``Warning``)."""

    offset: timedelta
    reason: str
    message: str
    type: str = "Normal"

    @property
    def new_size(self) -> int | None:
        """The replica count a ``SuccessfulRescale`` event announces, else ``None``."""
        if self.reason != "SuccessfulRescale":
            return None
        match = _NEW_SIZE.match(self.message)
        return int(match.group(1)) if match else None


@dataclass(frozen=True, slots=True)
class Rescale:
    """A ``SuccessfulRescale`` event with the size it scaled from."""

    offset: timedelta
    from_replicas: int
    to_replicas: int
    event: TimelineEvent

    @property
    def is_up(self) -> bool:
        return self.to_replicas > self.from_replicas


@dataclass(slots=True)
class Timeline:
    """Samples and events of one run, each list in non-decreasing offset order.

    ``tolerance`` is the controller's ``--horizontal-pod-autoscaler-tolerance`` (0.1 by
    default): the summary counts utilization above ``target * (1 + tolerance)`` as above
    target, since the engine does not act on smaller deviations. ``scale_up_window`` and
    ``scale_down_window`` are the HPA's stabilization windows (upstream's defaults without
    a behavior), which the plot shades after each scale event.
    """

    name: str
    namespace: str = "default"
    tolerance: float = 0.1
    scale_up_window: timedelta = timedelta(0)
    scale_down_window: timedelta = timedelta(minutes=5)
    samples: list[Sample] = field(default_factory=list)
    events: list[TimelineEvent] = field(default_factory=list)

    def append_sample(self, sample: Sample) -> None:
        if self.samples and sample.offset < self.samples[-1].offset:
            raise TimelineError(
                f"sample at {sample.offset} is earlier than the last one "
                f"at {self.samples[-1].offset}"
            )
        self.samples.append(sample)

    def append_event(self, event: TimelineEvent) -> None:
        if self.events and event.offset < self.events[-1].offset:
            raise TimelineError(
                f"event at {event.offset} is earlier than the last one at {self.events[-1].offset}"
            )
        self.events.append(event)


def find_rescales(timeline: Timeline) -> list[Rescale]:
    """The ``SuccessfulRescale`` events, each with the replica count it started from.

    The starting count is whichever is later: the last sample strictly before the event
    (its ``current_replicas``), or the previous rescale (its new size); samples taken at
    the very instant of a rescale may already show the new size, so they are not used.
    Without either, the first sample's count is the best guess; without samples, the
    event is its own start and counts as neither up nor down.
    """
    rescales: list[Rescale] = []
    index = 0
    previous: Sample | None = None
    for event in timeline.events:
        size = event.new_size
        if size is None:
            continue
        while index < len(timeline.samples) and timeline.samples[index].offset < event.offset:
            previous = timeline.samples[index]
            index += 1
        last = rescales[-1] if rescales else None
        if last is not None and (previous is None or last.offset >= previous.offset):
            start = last.to_replicas
        elif previous is not None:
            start = previous.current_replicas
        elif timeline.samples:
            start = timeline.samples[0].current_replicas
        else:
            start = size
        rescales.append(Rescale(event.offset, start, size, event))
    return rescales
