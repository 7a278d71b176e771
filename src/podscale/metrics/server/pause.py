"""``Pause``: the metrics server's wait between two ticks (``scraper.MetricsServer.run``).

A wait of some seconds on the running loop that ``end()`` cuts short, built from one future
and one timer, and waking in the loop iterations ``asyncio.timeout`` around
``asyncio.Event.wait`` woke in (what it replaced): on virtual time, whatever else runs at the
same instant sees the same order.
"""

from __future__ import annotations

import asyncio

__all__ = ["Pause"]


class Pause:
    """The wait between two ticks: ``wait(seconds)`` returns after ``seconds`` or once
    ``end()`` was called (at once, ever after). One future and one timer: what
    ``asyncio.timeout`` around ``asyncio.Event.wait`` does, without the timeout's cancelling
    of the task each tick (a third of a replay's loop callbacks were once the scraper's
    waits), and waking in the same loop iterations: the timer is set as the timeout sets
    its own, and resolving the future wakes the task one iteration later as cancelling it
    did, so whatever else runs at that instant sees the same order."""

    def __init__(self) -> None:
        self.ended = False
        self._waiter: asyncio.Future[None] | None = None

    def end(self) -> None:
        self.ended = True
        _wake(self._waiter)

    async def wait(self, seconds: float) -> None:
        if self.ended:
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        when = loop.time() + seconds
        timer = (
            loop.call_soon(_wake, waiter)
            if when <= loop.time()
            else loop.call_at(when, _wake, waiter)
        )
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None
            timer.cancel()


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
