"""The history's values and protocols (``podscale.history``'s contract for every backend).

A series is identified by a ``SeriesKey``: the workload (namespace, kind, name) and the
series' name. Names in use:

- ``cpu_usage`` / ``memory_usage``: the total usage of the workload's pods (CPU in cores,
  memory in bytes), what a forecaster predicts (never per-pod utilization, which depends on
  the replicas an autoscaler chose);
- ``metric/<index>/<name>``: the value of an autoscaler's ``spec.metrics[index]`` as its
  status reports it (``<name>``: the metric's name, ``cpu`` for a resource metric).

Points are ``(time, value)`` with aware UTC times; a store keeps at most one point per
series per resolution step (a later write to the same step replaces the value). Reads
return points in time order, inside ``[start, end)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol, runtime_checkable

__all__ = [
    "HistoryStore",
    "Point",
    "SeriesKey",
    "SeriesReader",
    "SeriesStore",
    "StateLister",
    "StateStore",
]

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True, order=True)
class SeriesKey:
    """One series of one workload."""

    namespace: str
    kind: str
    name: str
    series: str

    def text(self) -> str:
        """``namespace/kind/name/series``: how the key reads in messages and in storage."""
        return f"{self.namespace}/{self.kind}/{self.name}/{self.series}"


class Point(NamedTuple):
    at: datetime
    value: float


class SeriesReader(Protocol):
    """Reads a series' history (the SQLite and memory stores, and Prometheus)."""

    def read(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> Sequence[Point]:
        """The points of ``key`` in ``[start, end)`` at ``step`` resolution (a step's
        value is the mean of the points stored in it; steps without data are absent)."""
        ...


class SeriesStore(SeriesReader, Protocol):
    """A series history that can also be written (the memory and SQLite stores)."""

    def write(self, key: SeriesKey, points: Iterable[Point]) -> None:
        """Store ``points`` (any order); one value per resolution step, last write wins."""
        ...

    def keys(self, namespace: str | None = None) -> Sequence[SeriesKey]:
        """Every series stored (of ``namespace`` when given), sorted."""
        ...


class StateStore(Protocol):
    """Small JSON documents keyed by an object's uid and a name (an autoscaler's memory)."""

    def get_state(self, uid: str, name: str) -> JSON | None: ...

    def put_state(self, uid: str, name: str, document: JSON) -> None: ...

    def delete_state(self, uid: str) -> None:
        """Forget every document of ``uid`` (its object was deleted)."""
        ...


class HistoryStore(SeriesStore, StateStore, Protocol):
    """Both: what a control plane hands its controllers (``ControllerContext.history``)."""


@runtime_checkable
class StateLister(Protocol):
    """A ``StateStore`` that can also list an object's documents (the memory and SQLite
    stores): what the API server's read-only history path serves."""

    def state_of(self, uid: str) -> dict[str, JSON]:
        """Every document of ``uid`` by name (empty when there is none)."""
        ...
