"""The names of the pods a selector matches, per the pod informer, kept while it stands.

``SimulatedUsage.select_pods`` (a ``PodSelection`` of ``podscale.metrics.server``) answers
the HPA controller's metric reads at every sync and the usage history's every minute: the
same (namespace, selector) questions, mostly between two pod events. ``NameSelection``
keeps each answer with the informer cache's change count (``Lister.changes``: every upsert,
remove and relist moves it, and cached objects are never changed in place), so an answer is
reused only while every pod object it was read from is the one the cache holds; the first
question after a change empties the memo. A selector that cannot be hashed is never kept.
"""

from __future__ import annotations

from typing import Final

from podscale.api.selectors import Selector
from podscale.client.cache import Lister

__all__ = ["NameSelection", "select_names"]

# Questions kept between two pod events (one per HPA and per usage-history target).
_LIMIT: Final = 4096


def select_names(lister: Lister, namespace: str, selector: Selector) -> tuple[str, ...]:
    """Names of the pods in ``namespace`` whose labels ``selector`` matches, in key order."""
    return tuple(
        str((pod.get("metadata") or {}).get("name") or "")
        for pod in lister.list(namespace, selector)
    )


class NameSelection:
    """``select_names`` over one lister, kept by question while the lister's cache has not
    changed; see the module docstring."""

    __slots__ = ("_at", "_kept", "_lister")

    def __init__(self, lister: Lister) -> None:
        self._lister = lister
        self._kept: dict[tuple[str, Selector], tuple[str, ...]] = {}
        self._at = lister.changes

    def select(self, namespace: str, selector: Selector) -> tuple[str, ...]:
        changes = self._lister.changes
        kept = self._kept
        if changes != self._at:
            kept.clear()
            self._at = changes
        key = (namespace, selector)
        try:
            found = kept.get(key)
        except TypeError:  # a selector built with unhashable values: not kept
            return select_names(self._lister, namespace, selector)
        if found is None:
            if len(kept) >= _LIMIT:
                kept.clear()
            found = kept[key] = select_names(self._lister, namespace, selector)
        return found
