"""Where the API server serves an object's state documents (``podscale.apiserver.history_api``
answers it, ``podscale describe`` asks it). Here, below both, so the CLI need not import
the server to build the URL."""

from __future__ import annotations

from typing import Final

__all__ = ["HISTORY_GROUP", "STATE_PREFIX", "state_path"]

HISTORY_GROUP: Final = "history.podscale.dev"
STATE_PREFIX: Final = f"/apis/{HISTORY_GROUP}/"


def state_path(namespace: str, uid: str) -> str:
    """The URL path of ``uid``'s documents: ``GET`` answers ``{"uid", "documents"}``."""
    return f"{STATE_PREFIX}v1/namespaces/{namespace}/state/{uid}"
