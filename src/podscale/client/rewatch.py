"""When an informer's watch cannot start: client-go's reflector backoff, as pure functions.

A reflector whose watch request fails because the server is unreachable (connection
refused) or throttles it (429) does not relist: it waits on its backoff manager and watches
again from the same resourceVersion, so an API server restart costs no full relist. The
manager (``wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)``) waits 800 ms,
then doubles up to 30 s; each wait is stretched by up to ``jitter`` times itself (a random
share), and a backoff asked for more than ``reset_after`` after the previous one starts
again from 800 ms. ``podscale.client.informer.Informer`` keeps a ``RewatchState`` and asks
``next_rewatch_delay``; ``watch_start_retriable`` is the reflector's
``isWatchErrorRetriable``. Other failures still end ``Informer.run`` and
``podscale.client.supervisor`` restarts it (a relist) on its own backoff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

import httpx

__all__ = [
    "REFLECTOR_BACKOFF",
    "RewatchBackoff",
    "RewatchState",
    "next_rewatch_delay",
    "watch_start_retriable",
]


@dataclass(frozen=True, slots=True)
class RewatchBackoff:
    """``initial`` times ``factor`` per step up to ``cap``, jittered, reset after a quiet
    ``reset_after``."""

    initial: timedelta = timedelta(milliseconds=800)
    cap: timedelta = timedelta(seconds=30)
    factor: float = 2.0
    jitter: float = 1.0
    reset_after: timedelta = timedelta(minutes=2)

    def __post_init__(self) -> None:
        if self.initial <= timedelta(0) or self.cap < self.initial or self.factor < 1.0:
            raise ValueError("backoff needs 0 < initial <= cap and factor >= 1")
        if self.jitter < 0:
            raise ValueError("jitter must not be negative")


REFLECTOR_BACKOFF: Final = RewatchBackoff()


@dataclass(frozen=True, slots=True)
class RewatchState:
    """The next un-jittered wait and when the last backoff was asked for."""

    next_wait: timedelta
    last: datetime


def next_rewatch_delay(
    policy: RewatchBackoff, state: RewatchState | None, now: datetime, share: float
) -> tuple[RewatchState, timedelta]:
    """The wait for a backoff asked for at ``now`` and the state after it; ``share`` in
    [0, 1) is the random part of the jitter (client-go's ``rand.Float64``)."""
    if state is None or now - state.last > policy.reset_after:
        base = policy.initial
    else:
        base = state.next_wait
    following = min(policy.cap, base * policy.factor)
    # client-go jitters every wait, the capped ones too (so a wait may reach 2 x cap).
    delay = base + base * (policy.jitter * share)
    return RewatchState(next_wait=following, last=now), delay


def watch_start_retriable(error: BaseException) -> bool:
    """The reflector's ``isWatchErrorRetriable``: the API server refused the connection
    (most likely it is restarting) or answered 429. Read through the error's ``status``
    (``podscale.client.http.ApiError``, which imports this package's informer)."""
    if isinstance(error, httpx.ConnectError):
        return _refused(error)
    return getattr(error, "status", None) == 429


def _refused(error: BaseException) -> bool:
    """Whether a refused connection is behind ``error`` (not a DNS or TLS failure)."""
    seen: BaseException | None = error
    for _ in range(8):  # httpx wraps httpcore's error, which wraps the OSError
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False
