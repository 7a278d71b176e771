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
from typing import Final, Protocol

from podscale.store.interface import Clock

__all__ = [
    "ExponentialFailureRateLimiter",
    "FixedIntervalRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "TokenBucketRateLimiter",
    "default_controller_rate_limiter",
]

_ZERO: Final = timedelta(0)
# Backoff exponents are capped here (2.0**1024 overflows a float); every cap is far below.
_MAX_EXPONENT: Final = 1000
# How many token-bucket waits are remembered (``TokenBucketRateLimiter._delays``).
_MAX_DELAYS: Final = 64


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
    # The delay for each failure count: a controller that requeues on every sync asks for
    # the same few delays over and over. Exact: a delay depends on the count, ``base`` and
    # ``maximum`` only, and the memo is dropped when either field is set to another value
    # (timedelta is immutable, so the same object means the same value).
    _delays: dict[int, timedelta] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _delays_for: tuple[timedelta, timedelta] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def when(self, item: Hashable) -> timedelta:
        failures = self._failures.get(item, 0)
        self._failures[item] = failures + 1
        memo = self._delays_for
        if memo is None or memo[0] is not self.base or memo[1] is not self.maximum:
            self._delays.clear()
            self._delays_for = (self.base, self.maximum)
        # Past 2**1000 every count gives the same delay: the memo stays small.
        exponent = failures if failures < _MAX_EXPONENT else _MAX_EXPONENT
        delay = self._delays.get(exponent)
        if delay is None:
            delay = self._delays[exponent] = _backoff(self.base, self.maximum, exponent)
        return delay

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


def _backoff(base: timedelta, maximum: timedelta, exponent: int) -> timedelta:
    """``base * 2**exponent`` capped at ``maximum``. Compared in float seconds first:
    2**exponent grows past timedelta's range, and past a float's at 2**1024 (Go's
    math.Pow gives +Inf there; Python raises, hence ``_MAX_EXPONENT``)."""
    seconds = base.total_seconds() * (2.0**exponent)
    if seconds >= maximum.total_seconds():
        return maximum
    return timedelta(seconds=seconds)


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
    # The delay for each wait in float seconds: a bucket kept empty by one requeueing key
    # asks for the same wait (1/qps) over and over, and converting a float to a timedelta
    # (rounded to the microsecond) is the dearest step. Exact: ``timedelta(seconds=s)``
    # depends on ``s`` alone; emptied when it grows past ``_MAX_DELAYS`` entries.
    _delays: dict[float, timedelta] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self._tokens = float(self.burst)

    def when(self, item: Hashable) -> timedelta:
        now = self.clock.now()
        last = self._last
        if last is not None:
            elapsed = (now - last).total_seconds()
            # ``min(burst, refilled)`` without the call (the same float, NaN included).
            burst, refilled = float(self.burst), self._tokens + elapsed * self.qps
            self._tokens = refilled if refilled < burst else burst
        self._last = now
        tokens = self._tokens = self._tokens - 1.0
        if tokens >= 0:
            return _ZERO
        seconds = -tokens / self.qps
        delays = self._delays
        delay = delays.get(seconds)
        if delay is None:
            if len(delays) >= _MAX_DELAYS:
                delays.clear()
            delay = delays[seconds] = timedelta(seconds=seconds)
        return delay

    def forget(self, item: Hashable) -> None:
        """The bucket is shared: nothing per item to forget."""

    def num_requeues(self, item: Hashable) -> int:
        return 0


@dataclass
class MaxOfRateLimiter:
    """The longest delay any of ``limiters`` asks for (client-go's MaxOfRateLimiter)."""

    limiters: tuple[RateLimiter, ...]

    def when(self, item: Hashable) -> timedelta:
        # A loop, not max() over a generator: asked once per requeue of every controller.
        delay: timedelta | None = None
        for limiter in self.limiters:
            each = limiter.when(item)
            if delay is None or each > delay:
                delay = each
        return _ZERO if delay is None else delay

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max((limiter.num_requeues(item) for limiter in self.limiters), default=0)


def default_controller_rate_limiter(clock: Clock) -> MaxOfRateLimiter:
    """client-go's DefaultControllerRateLimiter: 5 ms..1000 s backoff, 10 qps / 100 burst."""
    return MaxOfRateLimiter((ExponentialFailureRateLimiter(), TokenBucketRateLimiter(clock)))
