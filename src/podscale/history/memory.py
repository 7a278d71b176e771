"""``MemoryHistory``: both history protocols in process (tests, replays, ``podscale demo``).

One-minute resolution for the stored points (the finest any writer uses); reads at a
coarser ``step`` average the minutes of each step. Nothing expires: a replay's history is
as long as its run. Not thread-safe (the event loop is its only user).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.history.types import Point, SeriesKey

__all__ = ["RESOLUTION", "MemoryHistory"]

JSON = dict[str, Any]
RESOLUTION = timedelta(minutes=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _minute(at: datetime) -> int:
    return int((at - _EPOCH) // RESOLUTION)


class MemoryHistory:
    """In-process ``SeriesStore`` and ``StateStore``."""

    def __init__(self) -> None:
        # Per key: sorted minute indexes and their values, side by side.
        self._minutes: dict[SeriesKey, list[int]] = {}
        self._values: dict[SeriesKey, list[float]] = {}
        self._state: dict[str, dict[str, JSON]] = {}

    def write(self, key: SeriesKey, points: Iterable[Point]) -> None:
        points = list(points)
        if not points:  # a series exists once it has a point (``keys`` lists only those)
            return
        minutes = self._minutes.setdefault(key, [])
        values = self._values.setdefault(key, [])
        for at, value in points:
            minute = _minute(at)
            index = bisect.bisect_left(minutes, minute)
            if index < len(minutes) and minutes[index] == minute:
                values[index] = float(value)
            else:
                minutes.insert(index, minute)
                values.insert(index, float(value))

    def read(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> Sequence[Point]:
        if step < RESOLUTION or step % RESOLUTION:
            raise ValueError(f"step must be a whole number of minutes, got {step}")
        minutes = self._minutes.get(key, [])
        values = self._values.get(key, [])
        first, last = _minute(start), _minute(end)
        lo = bisect.bisect_left(minutes, first)
        hi = bisect.bisect_left(minutes, last)
        width = step // RESOLUTION
        sums: dict[int, list[float]] = {}
        for minute, value in zip(minutes[lo:hi], values[lo:hi], strict=True):
            bucket = (minute - first) // width
            total = sums.setdefault(bucket, [0.0, 0.0])
            total[0] += value
            total[1] += 1
        return [
            Point(start + bucket * step, total[0] / total[1])
            for bucket, total in sorted(sums.items())
        ]

    def keys(self, namespace: str | None = None) -> Sequence[SeriesKey]:
        return sorted(k for k in self._minutes if namespace is None or k.namespace == namespace)

    def get_state(self, uid: str, name: str) -> JSON | None:
        return self._state.get(uid, {}).get(name)

    def put_state(self, uid: str, name: str, document: JSON) -> None:
        self._state.setdefault(uid, {})[name] = document

    def delete_state(self, uid: str) -> None:
        self._state.pop(uid, None)

    def state_of(self, uid: str) -> dict[str, JSON]:
        return dict(sorted(self._state.get(uid, {}).items()))
