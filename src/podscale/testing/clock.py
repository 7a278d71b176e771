"""A clock that only moves when told to: virtual time for tests and simulations.

Anything that takes a ``Clock`` (``podscale.store.interface.Clock``: the store, the work
queue, rate limiters, controllers) runs on it unchanged, so a five-minute window passes in
one ``advance`` call and no test ever sleeps.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["FakeClock"]


class FakeClock:
    """Starts at ``start`` (default 2026-01-01T00:00:00Z) and moves by ``advance``/``set``."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        if self._now.tzinfo is None:
            raise ValueError("FakeClock needs a timezone-aware start time")

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        """Move forward by ``delta`` (a timedelta or seconds); time never runs backwards."""
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        if step < timedelta(0):
            raise ValueError("time only moves forward")
        self._now += step
        return self._now

    def set(self, moment: datetime) -> None:
        if moment < self._now:
            raise ValueError("time only moves forward")
        self._now = moment
