"""The virtual-time loop's own handles and its inlined ``Handle._run`` equal asyncio's: the
same fields, reprs and cancellation bookkeeping (a cancelled scheduled timer is counted once,
and pruned), the callbacks' context, and a callback that raises reported to the exception
handler with the context asyncio's ``Handle._run`` gives it, the loop going on."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from podscale.runtime import VirtualTimeLoop

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


def boom(label: str) -> None:
    raise ValueError(label)


def reports(loop: asyncio.AbstractEventLoop, second: float) -> list[dict[str, Any]]:
    """Run a failing callback (from call_soon and from a timer) then a good one; what the
    exception handler got, and that the good one ran after. ``second`` is how long a
    second is (a real loop's wait is kept short)."""
    seen: list[dict[str, Any]] = []
    ran: list[str] = []
    loop.set_exception_handler(lambda _loop, context: seen.append(context))

    async def main() -> None:
        loop.call_soon(boom, "soon")
        loop.call_later(second, boom, "later")
        loop.call_later(second, ran.append, "after")
        await asyncio.sleep(2 * second)

    loop.run_until_complete(main())
    assert ran == ["after"]
    return seen


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
def test_a_failing_callback_is_reported_as_asyncio_reports_it(debug: bool) -> None:
    virtual, plain = VirtualTimeLoop(), asyncio.new_event_loop()
    virtual.set_debug(debug)
    try:
        ours, theirs = reports(virtual, 1.0), reports(plain, 0.001)
    finally:
        virtual.close()
        plain.close()
    assert len(ours) == len(theirs) == 2
    for mine, reference in zip(ours, theirs, strict=True):
        assert mine["message"] == reference["message"]
        assert repr(mine["exception"]) == repr(reference["exception"])
        assert set(mine) - {"source_traceback"} == set(reference) - {"source_traceback"}
        assert isinstance(mine["handle"], type(reference["handle"]))


def test_handles_are_asyncios_kinds_with_asyncios_reprs() -> None:
    loop, plain = VirtualTimeLoop(), asyncio.new_event_loop()
    try:
        soon, timer = loop.call_soon(print, "x"), loop.call_at(5.0, print, "y")
        reference_soon, reference_timer = plain.call_soon(print, "x"), plain.call_at(5.0, print)
        assert isinstance(soon, asyncio.Handle)
        assert isinstance(timer, asyncio.TimerHandle)
        assert repr(soon).split(" ")[0] == repr(reference_soon).split(" ")[0] == "<Handle"
        assert repr(timer).startswith("<TimerHandle when=5.0 ")
        assert timer.when() == 5.0
        assert not soon.cancelled()
        assert not timer.cancelled()
        for handle in (soon, timer, reference_soon, reference_timer):
            handle.cancel()
            handle.cancel()  # twice: counted once
            assert handle.cancelled()
            assert "cancelled" in repr(handle)
        assert loop._timer_cancelled_count == 1  # type: ignore[attr-defined]
    finally:
        loop.close()
        plain.close()


def test_a_cancelled_timer_never_runs_and_leaves_the_heap() -> None:
    loop = VirtualTimeLoop()
    ran: list[str] = []

    async def main() -> None:
        timer = loop.call_later(1.0, ran.append, "cancelled")
        loop.call_later(2.0, ran.append, "kept")
        timer.cancel()
        await asyncio.sleep(3.0)

    try:
        loop.run_until_complete(main())
        assert ran == ["kept"]
        assert loop._timer_cancelled_count == 0  # type: ignore[attr-defined]
        assert not loop._scheduled  # type: ignore[attr-defined]
    finally:
        loop.close()


def test_callbacks_run_in_their_context() -> None:
    loop = VirtualTimeLoop()
    seen: list[str] = []

    async def main() -> None:
        VAR.set("task")
        loop.call_soon(lambda: seen.append(VAR.get()))
        loop.call_later(1.0, lambda: seen.append(VAR.get()))
        other = contextvars.Context()
        other.run(VAR.set, "given")
        loop.call_soon(lambda: seen.append(VAR.get()), context=other)
        await asyncio.sleep(2.0)

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert seen == ["task", "given", "task"]
