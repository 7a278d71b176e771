"""Store failures beyond the fixed contract in ``interface``.

All are ``StoreError`` subclasses so callers that catch the base still catch them. The API
server maps ``BackendError`` to a 500/503 ``Status``, ``InvalidContinueError`` to 400 and
``TooLargeResourceVersionError`` to upstream's 504 "Too large resource version".
Messages never contain SQL text or file contents: they are safe to show to clients.
"""

from __future__ import annotations

from podscale.store.interface import StoreError

__all__ = ["BackendError", "InvalidContinueError", "TooLargeResourceVersionError"]


class BackendError(StoreError):
    """The storage backend failed or refused to start (I/O error, full disk, corrupt or
    unsafe database location). The write it interrupted was not applied."""


class InvalidContinueError(StoreError):
    """A continue token this store did not issue, or one issued for another resource or
    namespace. Message: ``invalid continue token: ...`` as upstream's 400."""


class TooLargeResourceVersionError(StoreError):
    """A read asked for a revision the store has not reached (``requested`` > ``current``):
    an exact list at a future revision, or a "not older than" read whose wait timed out.
    Message: ``Too large resource version: R, current: C`` (upstream's storage error)."""

    def __init__(self, requested: int, current: int, *, resource: str = "") -> None:
        super().__init__(
            f"Too large resource version: {requested}, current: {current}", resource=resource
        )
        self.requested = requested
        self.current = current
