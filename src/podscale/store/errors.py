"""Store failures beyond the fixed contract in ``interface``.

Both are ``StoreError`` subclasses so callers that catch the base still catch them. The API
server maps ``BackendError`` to a 500/503 ``Status`` and ``InvalidContinueError`` to 400.
Messages never contain SQL text or file contents: they are safe to show to clients.
"""

from __future__ import annotations

from podscale.store.interface import StoreError

__all__ = ["BackendError", "InvalidContinueError"]


class BackendError(StoreError):
    """The storage backend failed or refused to start (I/O error, full disk, corrupt or
    unsafe database location). The write it interrupted was not applied."""


class InvalidContinueError(StoreError):
    """A continue token this store did not issue, or one issued for another resource or
    namespace. Message: ``invalid continue token: ...`` as upstream's 400."""
