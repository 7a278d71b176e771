"""Client-side throttling and retry rules of a REST client, after client-go's ``rest`` package.

``podscale.client.http.HttpApi`` asks this module two things before and after each request:

- how long to wait before sending: a token bucket of ``qps`` tokens a second holding at most
  ``burst`` (client-go's ``flowcontrol.NewTokenBucketRateLimiter``, which starts full and
  lets callers reserve tokens ahead, each waiting its turn). ``resolve_limits`` reads the
  limits as ``rest.Config`` does: unset (or 0) means 5 qps / burst 10, a negative qps means
  no limiter at all. One ``HttpApi`` shares one bucket, as one clientset shares one.
- whether a failed attempt is tried again and after how long: ``retry_after`` is
  ``checkWait`` (a 429 or any 5xx that carries an integer ``Retry-After``), and
  ``retryable_transport_error`` is the per-call ``IsRetryableErrorFunc`` (a dropped
  connection on a GET; for a watch also a timeout), for which client-go fakes a
  ``Retry-After: 1``. At most ``DEFAULT_MAX_RETRIES`` retries follow the first attempt.

The decisions are pure (``take``, ``retry_after``, ``retryable_transport_error``); the
``TokenBucket`` shell keeps the state and waits through an injected ``sleep`` reading an
injected monotonic ``now`` (both default to the running asyncio loop, so on
``podscale.runtime``'s virtual-time loop throttling takes no real time).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Final

import httpx

__all__ = [
    "CONTROLLER_MANAGER_LIMITS",
    "DEFAULT_BURST",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_QPS",
    "KUBECTL_DISCOVERY_LIMITS",
    "TRANSPORT_ERROR_RETRY_AFTER",
    "Bucket",
    "Limits",
    "TokenBucket",
    "resolve_limits",
    "retry_after",
    "retryable_transport_error",
    "take",
]

# rest.Config's DefaultQPS / DefaultBurst: what every client gets when it sets nothing.
DEFAULT_QPS: Final = 5.0
DEFAULT_BURST: Final = 10
# rest.Request's maxRetries: retries after the first attempt.
DEFAULT_MAX_RETRIES: Final = 10
# The Retry-After (seconds) client-go makes up for a retryable connection error.
TRANSPORT_ERROR_RETRY_AFTER: Final = 1


@dataclass(frozen=True, slots=True)
class Limits:
    """A token bucket's rate (tokens a second) and size."""

    qps: float
    burst: int

    def __post_init__(self) -> None:
        if self.qps <= 0 or self.burst < 1:
            raise ValueError("a token bucket needs qps > 0 and burst >= 1")


# kube-controller-manager's --kube-api-qps / --kube-api-burst defaults.
CONTROLLER_MANAGER_LIMITS: Final = Limits(qps=20.0, burst=30)
# kubectl's discovery client (its other requests keep rest.Config's defaults).
KUBECTL_DISCOVERY_LIMITS: Final = Limits(qps=50.0, burst=300)


def resolve_limits(qps: float | None = None, burst: int | None = None) -> Limits | None:
    """The bucket ``rest.Config``'s QPS/Burst give: None or 0 take the defaults; a negative
    qps turns throttling off (None)."""
    rate = qps if qps else DEFAULT_QPS
    if rate < 0:
        return None
    if burst is not None and burst < 0:
        raise ValueError(f"burst must not be negative, got {burst}")
    return Limits(qps=rate, burst=burst or DEFAULT_BURST)


@dataclass(frozen=True, slots=True)
class Bucket:
    """Tokens left (negative: reserved ahead by waiting callers) as of ``at`` seconds."""

    tokens: float
    at: float


def take(bucket: Bucket | None, now: float, limits: Limits) -> tuple[Bucket, float]:
    """Reserve one token at ``now``: the new bucket and the seconds to wait for the token.

    A fresh bucket (None) is full. Tokens refill at ``qps`` up to ``burst``; a caller who
    finds none still takes one (the count goes negative) and waits until it would have
    refilled, so concurrent callers are spaced ``1/qps`` apart in arrival order.
    """
    if bucket is None:
        tokens = float(limits.burst)
    else:
        elapsed = max(0.0, now - bucket.at)  # a clock that steps back refills nothing
        tokens = min(float(limits.burst), bucket.tokens + elapsed * limits.qps)
    tokens -= 1.0
    delay = 0.0 if tokens >= 0 else -tokens / limits.qps
    return Bucket(tokens=tokens, at=now), delay


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


class TokenBucket:
    """The shared bucket of one client; ``await wait()`` before each attempt."""

    def __init__(
        self,
        limits: Limits,
        *,
        now: Callable[[], float] = _loop_time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limits = limits
        self._now = now
        self._sleep = sleep
        self._bucket: Bucket | None = None

    async def wait(self) -> float:
        """Take a token, waiting until it exists; the seconds waited."""
        self._bucket, delay = take(self._bucket, self._now(), self.limits)
        if delay > 0:
            await self._sleep(delay)
        return delay


_INTEGER = re.compile(r"[+-]?[0-9]+")


def retry_after(status: int, headers: Mapping[str, str]) -> int | None:
    """``checkWait``: the seconds to wait before retrying a response, or None for no retry.

    Only a 429 or a 5xx qualifies, and only with a ``Retry-After`` that is an integer
    (client-go parses it with ``strconv.Atoi``: an HTTP date means no retry)."""
    if status != 429 and status < 500:
        return None
    value = headers.get("Retry-After", "")
    if not _INTEGER.fullmatch(value):
        return None
    return max(0, int(value))


def retryable_transport_error(method: str, error: Exception, *, watch: bool = False) -> bool:
    """Whether an attempt that got no response is tried again (client-go's per-call
    ``IsRetryableErrorFunc``).

    A plain request retries only a GET (writes are not idempotent) and only when an
    established connection broke: reset by the peer, closed before the response (EOF) or
    a lost HTTP/2 connection. A refused connection is not retried. A watch also retries a
    timeout.
    """
    if watch and isinstance(error, httpx.TimeoutException):
        return True
    if method.upper() != "GET":
        return False
    # httpx's names for a broken connection: ReadError / WriteError (reset, broken pipe)
    # and RemoteProtocolError (the server closed the connection before answering).
    return isinstance(error, httpx.ReadError | httpx.WriteError | httpx.RemoteProtocolError)
