"""Waiting for the store to reach a revision: the engine's side of "not older than" reads.

A client may ask for data at least as new as a revision it saw elsewhere (another API
server, a watch): upstream's watch cache then blocks up to three seconds for its revision
to catch up before it answers "Too large resource version". ``engine.VersionedStore`` keeps
one ``RevisionWaiters`` registry: ``wait_for_revision`` parks an asyncio future here under
the engine's write lock, and every commit (from any thread) releases the futures its new
revision satisfies. The timeout is the waiting loop's own time, so on a virtual-time loop
(``podscale.runtime.virtual_time``) a three-second wait passes without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

__all__ = ["RevisionWaiters"]


@dataclass(eq=False, slots=True)
class _Waiter:
    revision: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]


class RevisionWaiters:
    """Futures waiting for a revision. Not locked itself: the engine's write lock guards
    ``add``, ``release`` and ``close`` so no commit slips between a check and a park."""

    def __init__(self) -> None:
        self._waiters: list[_Waiter] = []

    def add(self, revision: int, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
        """A future resolved once ``release`` sees ``revision`` (or ``close`` is called)."""
        future: asyncio.Future[None] = loop.create_future()
        self._waiters.append(_Waiter(revision, loop, future))
        return future

    def release(self, revision: int) -> None:
        """Wake the waiters ``revision`` satisfies (called after each commit)."""
        if not self._waiters:
            return
        keep: list[_Waiter] = []
        for waiter in self._waiters:
            if waiter.revision <= revision:
                _wake(waiter)
            else:
                keep.append(waiter)
        self._waiters = keep

    def discard(self, future: asyncio.Future[None]) -> None:
        """Forget a waiter that gave up (timed out or was cancelled)."""
        self._waiters = [w for w in self._waiters if w.future is not future]

    def close(self) -> None:
        """Wake everyone: the store is closing and no revision will come."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            _wake(waiter)


def _wake(waiter: _Waiter) -> None:
    # A closed waiting loop raises RuntimeError: nobody is left to wake there.
    with contextlib.suppress(RuntimeError):
        waiter.loop.call_soon_threadsafe(_resolve, waiter.future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
