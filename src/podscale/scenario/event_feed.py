"""The Events a snapshot must look at: those written since the previous snapshot's read.

``EventCursor`` (``scenario.snapshot_values``) keeps only the Events whose (uid, count) it
has not seen, in the list's order then by time. Every Event listed by the previous snapshot
was seen then, and one unchanged since still carries the same mark: only the Events created
or updated since can be new. At a fleet's peak thousands of Events are stored (they live an
hour) and a few dozen change per minute, so listing and scanning all of them at every tick
was work over everything stored for an answer about what changed.

``EventFeed`` reads as ``kubectl get events -w`` would after its first LIST: a watch from
that LIST's resourceVersion, here the store's (what the API's watch serves, served alike),
read without waiting for what it already holds at the snapshot's instant (``take_ready``:
a watch delivers each write as it is committed, so nothing of that instant is missing). The
changed Events still present, each in its latest state, in the LIST's order (namespace,
name), are the subsequence of the full LIST the cursor can find new: the cursor's answer is
the same. When the watch cannot tell (the first read, a watch ended because too much was
written in between, or a store whose watches do not say they ended) the Events are listed
whole and a new watch starts from that LIST.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.apiserver.operations.shared_list import served_object
from podscale.store.interface import Store, Watch

__all__ = ["EventFeed"]

JSON = dict[str, Any]
# What one ``take_ready`` hands over; the feed drains until nothing is left.
_BATCH: Final = 1024


class EventFeed:
    """The Events changed since the previous read (every Event, the first time)."""

    def __init__(self, store: Store, resource: str, info: KindInfo) -> None:
        self._store = store
        self._resource = resource
        self._info = info
        self._watch: Watch | None = None

    async def changed(self, relist: Callable[[], Awaitable[JSON]]) -> list[JSON]:
        """The Events written since the last call and not deleted since, in the LIST's
        order; ``relist`` (the whole LIST, its body) when the watch cannot tell."""
        watch = self._watch
        if watch is not None and getattr(watch, "closed", True) is False:
            latest: dict[tuple[str, str], JSON | None] = {}
            while ready := watch.take_ready(_BATCH):
                for event in ready:
                    metadata = event.object.get("metadata") or {}
                    key = (str(metadata.get("namespace") or ""), str(metadata.get("name")))
                    latest[key] = None if event.type == "DELETED" else event.object
            items = [latest[key] for key in sorted(latest)]
            return [served_object(obj, self._info) for obj in items if obj is not None]
        self.close()
        listed = await relist()
        revision = int((listed.get("metadata") or {}).get("resourceVersion") or 0)
        self._watch = self._store.watch(self._resource, None, since=revision)
        return list(listed.get("items") or [])

    def close(self) -> None:
        """Stop watching (the next read lists again)."""
        if self._watch is not None:
            self._watch.close()
            self._watch = None
