"""Selector semantics of a watch: which events a filtered watch delivers, and as what.

Upstream's watch cache judges every event by both the object's new state and the state it
replaced (``cache_watcher.go``, ``convertToWatchEvent``): new matches and old did not ->
ADDED; both match -> MODIFIED; old matched and new does not -> DELETED, carrying the old
state at the event's resourceVersion; neither -> nothing. A DELETED event's "new state"
never matches. This makes the filter exact and stateless: a client that listed at revision
R and watches from R sees an object leave its selector even if the change happened before
the watch opened. ``watch`` (HTTP) and ``operations.watch`` (in-process) both use it.
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.operations.selectors import Predicate
from podscale.store.interface import WatchEvent

__all__ = ["filter_event"]

JSON = dict[str, Any]


def filter_event(event: WatchEvent, predicate: Predicate) -> tuple[str, JSON] | None:
    """The (type, object) to send for ``event`` under ``predicate``, or None to skip it."""
    matches_now = event.type != "DELETED" and predicate(event.object)
    if event.type == "ADDED":
        return ("ADDED", event.object) if matches_now else None
    if not event.previous_known:
        # The store lost the replaced state: never invent an ADDED or DELETED from a guess.
        if event.type == "DELETED":
            return ("DELETED", event.object) if predicate(event.object) else None
        return ("MODIFIED", event.object) if matches_now else None
    previous = event.previous()
    matched_before = previous is not None and predicate(previous)
    if matches_now:
        return ("MODIFIED" if matched_before else "ADDED"), event.object
    if not matched_before or previous is None:
        return None
    if event.type == "DELETED":
        return "DELETED", event.object
    gone = dict(previous)
    gone["metadata"] = {**(previous.get("metadata") or {}), "resourceVersion": str(event.revision)}
    return "DELETED", gone
