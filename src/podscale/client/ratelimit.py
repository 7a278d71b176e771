"""Per-item retry delays for the workqueue, after client-go's ``workqueue`` rate limiters.

A rate limiter answers "how long should this item wait before it is processed again?"
and forgets an item once it succeeded. Controllers combine them: the default controller
limiter is the slower of a per-item exponential backoff and an overall token bucket; the
HPA controller uses a fixed interval (its resync period) so every HPA is synced on a
steady beat. ``podscale.client.workqueue`` asks them on ``add_rate_limited``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from podscale.store.interface import Clock

__all__ = [
    "ExponentialFailureRateLimiter",
    "FixedIntervalRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "TokenBucketRateLimiter",
    "default_controller_rate_limiter",
]


class RateLimiter(Protocol):
    """client-go's ``TypedRateLimiter``: ``when`` is called once per failed attempt."""

    def when(self, item: Hashable) -> timedelta: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...


@dataclass
class ExponentialFailureRateLimiter:
    """``base * 2**failures``, capped at ``maximum`` (client-go: 5 ms base, 1000 s cap)."""

    base: timedelta = timedelta(milliseconds=5)
    maximum: timedelta = timedelta(seconds=1000)
    _failures: dict[Hashable, int] = field(default_factory=dict)

    def when(self, item: Hashable) -> timedelta:
        failures = self._failures.get(item, 0)
        self._failures[item] = failures + 1
        # Compare in float seconds first: 2**failures grows past timedelta's range, and
        # past a float's at 2**1024 (Go's math.Pow gives +Inf there; Python raises).
        seconds = self.base.total_seconds() * (2.0 ** min(failures, 1000))
        if seconds >= self.maximum.total_seconds():
            return self.maximum
        return timedelta(seconds=seconds)

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


@dataclass
class FixedIntervalRateLimiter:
    """Always the same delay; counts requeues (client-go's FixedItemIntervalRateLimiter)."""

    interval: timedelta
    _requeues: dict[Hashable, int] = field(default_factory=dict)

    def when(self, item: Hashable) -> timedelta:
        self._requeues[item] = self._requeues.get(item, 0) + 1
        return self.interval

    def forget(self, item: Hashable) -> None:
        self._requeues.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._requeues.get(item, 0)


@dataclass
class TokenBucketRateLimiter:
    """An overall rate of ``qps`` with bursts of ``burst``, shared by all items.

    Each call reserves a token; the delay is how long until that token exists. Time comes
    from ``clock`` so a simulation can run it on virtual time.
    """

    clock: Clock
    qps: float = 10.0
    burst: int = 100
    _tokens: float = field(init=False)
    _last: datetime | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._tokens = float(self.burst)

    def when(self, item: Hashable) -> timedelta:
        now = self.clock.now()
        if self._last is not None:
            elapsed = (now - self._last).total_seconds()
            self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps)
        self._last = now
        self._tokens -= 1.0
        if self._tokens >= 0:
            return timedelta(0)
        return timedelta(seconds=-self._tokens / self.qps)

    def forget(self, item: Hashable) -> None:
        """The bucket is shared: nothing per item to forget."""

    def num_requeues(self, item: Hashable) -> int:
        return 0


@dataclass
class MaxOfRateLimiter:
    """The longest delay any of ``limiters`` asks for (client-go's MaxOfRateLimiter)."""

    limiters: tuple[RateLimiter, ...]

    def when(self, item: Hashable) -> timedelta:
        return max((limiter.when(item) for limiter in self.limiters), default=timedelta(0))

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max((limiter.num_requeues(item) for limiter in self.limiters), default=0)


def default_controller_rate_limiter(clock: Clock) -> MaxOfRateLimiter:
    """client-go's DefaultControllerRateLimiter: 5 ms..1000 s backoff, 10 qps / 100 burst."""
    return MaxOfRateLimiter((ExponentialFailureRateLimiter(), TokenBucketRateLimiter(clock)))
