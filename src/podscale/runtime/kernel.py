"""Running a program: one kernel, on virtual time or on real time.

``run_virtual`` is ``asyncio.run`` on a ``VirtualTimeLoop`` (``podscale.runtime.virtual_time``):
same task and async-generator cleanup, same executor shutdown. ``run`` is the switch between
that and a normal asyncio loop; the program is the same coroutine either way and finds its
clock with ``podscale.runtime.clocks.current_clock``. ``until`` bounds the run in the loop's
own time (virtual seconds, or real ones): at the deadline the program is cancelled and the
run returns ``None``, which is how a never-ending simulation is run "for an hour".
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import Any, TypeVar

from podscale.runtime.virtual_time import DEFAULT_START, VirtualTimeLoop

__all__ = ["run", "run_virtual"]

T = TypeVar("T")


def run_virtual(
    main: Coroutine[Any, Any, T],
    *,
    start: datetime = DEFAULT_START,
    until: timedelta | None = None,
    autojump_threshold: float = 0.0,
) -> T | None:
    """Run ``main`` to completion on a fresh ``VirtualTimeLoop`` starting at ``start``.

    Returns ``main``'s result, or ``None`` if ``until`` (virtual time after ``start``) came
    first. Exceptions from ``main`` propagate, as with ``asyncio.run``.
    """

    def new_loop() -> asyncio.AbstractEventLoop:
        return VirtualTimeLoop(start, autojump_threshold=autojump_threshold)

    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(_bounded(main, until))


def run(
    main: Coroutine[Any, Any, T],
    *,
    virtual: bool,
    start: datetime | None = None,
    until: timedelta | None = None,
) -> T | None:
    """Run ``main`` on virtual time (from ``start``) or on real time (``start`` must be
    ``None``: real time starts now). ``until`` bounds the run in either; see ``run_virtual``."""
    if virtual:
        return run_virtual(main, start=start or DEFAULT_START, until=until)
    if start is not None:
        main.close()  # never awaited: close it so Python does not warn about it
        raise ValueError("a real-time run starts now; start is for virtual time only")
    with asyncio.Runner() as runner:
        return runner.run(_bounded(main, until))


async def _bounded(main: Coroutine[Any, Any, T], until: timedelta | None) -> T | None:
    if until is None:
        return await main
    if until < timedelta(0):
        main.close()
        raise ValueError("until must not be negative")
    task = asyncio.ensure_future(main)
    done, _ = await asyncio.wait({task}, timeout=until.total_seconds())
    if task in done:
        return task.result()
    task.cancel()
    # The program's own cleanup (finally blocks) runs now; a value it returns anyway is not
    # the result, but an error it raises is. ``wait`` (not ``await task``) so that a
    # cancellation of this run itself still propagates.
    await asyncio.wait({task})
    if not task.cancelled():
        failure = task.exception()
        if failure is not None:
            raise failure
    return None
