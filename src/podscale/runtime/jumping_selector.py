"""The virtual-time loop's selector: where ``podscale.runtime.virtual_time`` moves time.

``JumpingSelector`` wraps the loop's real selector. ``VirtualTimeLoop._run_once`` polls it
with the time until the earliest timer; instead of waiting that long it polls for real only
when something could arrive (or skips the poll), then jumps the loop's virtual time to the
timer (``Jumper``: the loop's side of that contract).
"""

from __future__ import annotations

import selectors
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

__all__ = ["Jumper", "JumpingSelector"]


class Jumper(Protocol):
    """What the selector needs of its loop (``VirtualTimeLoop``)."""

    _polling: bool
    polls: int
    autojump_threshold: float

    def may_receive(self) -> bool: ...

    def advance_to_next_timer(self) -> None: ...

    @property
    def threads_busy(self) -> int: ...


class JumpingSelector(selectors.BaseSelector):
    """The loop's selector, wrapped: the one place where virtual time moves.

    ``VirtualTimeLoop._run_once`` polls its selector with timeout 0 when callbacks are
    ready, ``None`` when nothing is scheduled at all, and otherwise the time until the
    earliest timer. Only that last case is a wait for a timer; there, this selector first
    polls for real (for I/O, and for thread-safe callbacks, which arrive through the loop's
    self-pipe) and, if nothing came and no executor work is outstanding, moves virtual time
    to the timer's deadline and reports no events, so ``_run_once`` finds the timer due.

    The real poll (a system call) is skipped when nothing can arrive through it
    (``VirtualTimeLoop.may_receive``): a closed simulation then never polls at all.
    """

    def __init__(self, loop: Jumper, inner: selectors.BaseSelector) -> None:
        self._loop = loop
        self._inner = inner
        # How many file objects are registered (every registration passes through here):
        # ``may_receive`` asks on every loop iteration, and ``len(get_map())`` costs calls.
        self.registered = 0
        self._count()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        loop = self._loop
        if timeout is not None and not loop.may_receive():
            if timeout > 0:
                loop.advance_to_next_timer()
            return []
        return self.poll(timeout)

    def poll(self, timeout: float | None) -> list[tuple[selectors.SelectorKey, int]]:
        """``select`` once ``may_receive`` said yes (or there is no timer at all): poll
        for real, then jump if nothing came while waiting for a timer."""
        loop = self._loop
        loop._polling = True
        loop.polls += 1
        try:
            if timeout is None or timeout <= 0:
                return self._inner.select(timeout)
            if loop.threads_busy:
                # A thread's result will arrive through the self-pipe; virtual time waits.
                return self._inner.select(None)
            events = self._inner.select(loop.autojump_threshold)
        finally:
            loop._polling = False
        if events:
            return events
        loop.advance_to_next_timer()
        return []

    def register(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        try:
            return self._inner.register(fileobj, events, data)
        finally:
            self._count()

    def unregister(self, fileobj: FileDescriptorLike) -> selectors.SelectorKey:
        try:
            return self._inner.unregister(fileobj)
        finally:
            self._count()

    def modify(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        try:
            return self._inner.modify(fileobj, events, data)
        finally:  # the generic modify unregisters and registers again: count once done
            self._count()

    def _count(self) -> None:
        self.registered = len(self._inner.get_map() or ())  # a closed selector has no map

    def get_map(self) -> Mapping[FileDescriptorLike, selectors.SelectorKey]:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()
