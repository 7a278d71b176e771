"""When a scenario's external metric values are (re)published, as a pure schedule.

A scenario's ``externalMetrics`` (``podscale.scenario.external_metrics``) are step-hold series:
each value holds from its ``at`` until the next. ``podscale.scenario.run`` publishes
them through the embedded plane's ``PushMetricsProvider``, which forgets a value ``ttl``
(2 minutes) after it was written, like a real adapter whose source stopped. So a held value
is republished every ``REPUBLISH_EVERY`` (30 s, as the external-metric example's README
tells a human pusher to do), and a new value is published at its own ``at``: a series is
never missing between its first ``at`` and the end of the run, and never served stale for
longer than one republish period. Each publication also refreshes the sample's timestamp,
as a real exporter's would. A stopped step (value None) publishes nothing until the series'
next value: the provider forgets the last one ``ttl`` after its last write.

``ExternalMetricFeed`` only computes the schedule (offsets after the run's start); the run
does the writing. Series are read through the structural ``SeriesLike`` protocol, since
``podscale.scenario`` sits above the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Final, NamedTuple, Protocol

from podscale.api.quantity import Quantity

__all__ = ["REPUBLISH_EVERY", "ExternalMetricFeed", "Publication", "SeriesLike"]

REPUBLISH_EVERY: Final = timedelta(seconds=30)


class ValueLike(Protocol):
    @property
    def at(self) -> timedelta: ...
    @property
    def value(self) -> Quantity | None: ...


class SeriesLike(Protocol):
    """The fields of ``podscale.scenario.model.ExternalMetricSeries`` a run reads."""

    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    @property
    def labels(self) -> Mapping[str, str]: ...
    @property
    def values(self) -> Sequence[ValueLike]: ...


class Publication(NamedTuple):
    """What to write: ``series`` now reads ``value``."""

    series: SeriesLike
    value: Quantity


class ExternalMetricFeed:
    """The publication schedule of several series; ``due`` advances it."""

    def __init__(
        self, series: Sequence[SeriesLike], republish_every: timedelta = REPUBLISH_EVERY
    ) -> None:
        if republish_every <= timedelta(0):
            raise ValueError("republish_every must be positive")
        self._series = [s for s in series if s.values]
        self._every = republish_every
        # Per series: the offset of its next publication (its first value's ``at`` to begin;
        # None once it is stopped for good).
        self._next: list[timedelta | None] = [min(v.at for v in s.values) for s in self._series]

    def next_at(self) -> timedelta | None:
        """The offset of the next publication (None: none left)."""
        return min((at for at in self._next if at is not None), default=None)

    @staticmethod
    def _held(series: SeriesLike, offset: timedelta) -> tuple[Quantity | None, timedelta | None]:
        """The value held at ``offset`` (not before the first ``at``; None while stopped)
        and the ``at`` of the value after it."""
        steps = sorted(series.values, key=lambda v: v.at)
        held = steps[0].value
        for step in steps:
            if step.at > offset:
                return held, step.at
            held = step.value
        return held, None

    def due(self, offset: timedelta) -> list[Publication]:
        """Every publication due at ``offset`` (in series order), and the schedule moved on."""
        result: list[Publication] = []
        for i, series in enumerate(self._series):
            due_at = self._next[i]
            if due_at is None or due_at > offset:
                continue
            value, change_at = self._held(series, offset)
            if value is None:  # stopped: nothing until the next value, if any
                self._next[i] = change_at
                continue
            result.append(Publication(series, value))
            following = offset + self._every
            self._next[i] = following if change_at is None else min(following, change_at)
        return result
