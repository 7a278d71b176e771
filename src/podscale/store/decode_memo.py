"""What a repeated list made of each stored object, kept while the object stays unchanged.

``engine.VersionedStore`` keeps every object serialized and ``list`` decodes each one it hands
out (``listing.pick_page``), so a reader that lists the same resource every simulated minute
(a scenario's snapshots, the Event expiry of ``apiserver.registry.event_ttl``) decoded all
of it each time although few objects changed in between. A ``DecodeMemo`` is the ``decode``
such a reader passes to ``Store.list``: it remembers, by the stored bytes, what ``make``
returned for them, and makes anew only for bytes it has not seen.

Exact by construction: the result depends on the bytes alone (``make`` must be a pure
function of them), and every write stores new bytes, so a changed object is made anew and a
deleted one is simply not listed. The store keeps the same bytes object while an object is
unchanged, so a lookup hashes it once (bytes cache their hash) and matches by identity.
What it hands out is shared between calls: callers must treat it as read-only.

``turn`` ends one listing: only what that listing used is kept for the next one, so the
memo holds no more than the objects currently listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["DecodeMemo"]

T = TypeVar("T")


class DecodeMemo(Generic[T]):
    """``make(data)`` for each stored object's bytes, remembered from the previous listing."""

    def __init__(self, make: Callable[[bytes], T]) -> None:
        self._make = make
        self._kept: dict[bytes, T] = {}
        self._used: dict[bytes, T] = {}

    def __call__(self, data: bytes) -> T:
        used = self._used
        if data in used:
            return used[data]
        made = self._kept[data] if data in self._kept else self._make(data)
        used[data] = made
        return made

    def turn(self) -> None:
        """A listing is complete: keep only what it used."""
        self._kept, self._used = self._used, {}

    def kept(self) -> int:
        """How many objects the last complete listing left in the memo."""
        return len(self._kept)
