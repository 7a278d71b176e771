"""The virtual-time loop's handles outside debug mode, and its report of a failed callback.

``runtime.virtual_time.VirtualTimeLoop`` builds these instead of asyncio's ``Handle`` and
``TimerHandle`` when it is not in debug mode: the same slots and fields, set without asking
the loop for its debug flag through a method call at each construction and cancellation (a
replay builds hundreds of thousands). ``callback_failed`` is what ``asyncio.Handle._run``
does when a callback raises; the loop runs callbacks itself and calls it then. Hand-written
because asyncio has no public hook for either; tests/unit/runtime/test_loop_handles.py holds
them equal to asyncio's own.
"""

from __future__ import annotations

import asyncio
from asyncio import format_helpers
from collections.abc import Callable
from contextvars import Context, copy_context
from typing import Any

__all__ = ["Handle", "TimerHandle", "callback_failed"]


class Handle(asyncio.Handle):
    """``asyncio.Handle`` as the loop builds it outside debug mode: the same fields, without
    asking the loop whether it is in debug mode (it is not; a loop in debug mode builds
    asyncio's own handles). ``cancel`` reads the loop's flag instead of calling for it."""

    __slots__ = ()

    def __init__(
        self,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        loop: asyncio.AbstractEventLoop,
        context: Context | None = None,
    ) -> None:
        self._context = copy_context() if context is None else context
        self._loop = loop
        self._callback = callback
        self._args = args
        self._cancelled = False
        self._repr = None
        self._source_traceback = None

    def cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            if self._loop._debug:  # type: ignore[attr-defined]
                self._repr = repr(self)  # type: ignore[assignment]
            self._callback = None  # type: ignore[assignment]
            self._args = None  # type: ignore[assignment]


class TimerHandle(asyncio.TimerHandle):
    """``asyncio.TimerHandle`` as the loop builds it outside debug mode (see ``Handle``)."""

    __slots__ = ()

    def __init__(
        self,
        when: float,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        loop: asyncio.AbstractEventLoop,
        context: Context | None = None,
    ) -> None:
        self._context = copy_context() if context is None else context
        self._loop = loop
        self._callback = callback
        self._args = args
        self._cancelled = False
        self._repr = None
        self._source_traceback = None
        self._when = when
        self._scheduled = False

    def cancel(self) -> None:
        if not self._cancelled:
            if self._scheduled:
                self._loop._timer_handle_cancelled(self)  # type: ignore[attr-defined]
            self._cancelled = True
            if self._loop._debug:  # type: ignore[attr-defined]
                self._repr = repr(self)  # type: ignore[assignment]
            self._callback = None  # type: ignore[assignment]
            self._args = None  # type: ignore[assignment]


def callback_failed(handle: asyncio.Handle, exc: BaseException) -> None:
    """``Handle._run``'s report of a callback that raised (the loop's exception handler)."""
    callback, args = handle._callback, handle._args  # type: ignore[attr-defined]
    source = format_helpers._format_callback_source(callback, args)
    context: dict[str, Any] = {
        "message": f"Exception in callback {source}",
        "exception": exc,
        "handle": handle,
    }
    if handle._source_traceback:  # type: ignore[attr-defined]
        context["source_traceback"] = handle._source_traceback  # type: ignore[attr-defined]
    handle._loop.call_exception_handler(context)  # type: ignore[attr-defined]
