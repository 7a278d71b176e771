"""Which HPAs control which pods: the index behind upstream's ``AmbiguousSelector``.

Upstream's ``hpaSelectorStore`` (pkg/controller/podautoscaler/hpa_selector_store.go): per
namespace, each known HPA's target selector. An HPA is registered with a selector that
matches nothing when the informer first delivers it (``register``), gets its target's
real selector each time a sync reads the target's scale (``update``, only if still
registered), and is dropped when deleted (``remove``). ``controlling`` answers which
HPAs select at least one of a set of pods; more than one means none of them may scale.
Until an HPA has synced once it selects nothing, so (as upstream) the first of two
conflicting HPAs to sync may act once before both see the conflict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from podscale.api.selectors import Selector

__all__ = ["SelectorIndex"]


class SelectorIndex:
    """HPA key (``namespace/name``) -> its target's selector, grouped by namespace."""

    def __init__(self) -> None:
        self._namespaces: dict[str, dict[str, Selector]] = {}

    def register(self, namespace: str, key: str) -> bool:
        """Add ``key`` selecting nothing unless present; True if it was new."""
        selectors = self._namespaces.setdefault(namespace, {})
        if key in selectors:
            return False
        selectors[key] = Selector.nothing()
        return True

    def update(self, namespace: str, key: str, selector: Selector) -> bool:
        """Set ``key``'s selector if it is registered; True if it was."""
        selectors = self._namespaces.get(namespace)
        if selectors is None or key not in selectors:
            return False
        selectors[key] = selector
        return True

    def remove(self, namespace: str, key: str) -> None:
        selectors = self._namespaces.get(namespace)
        if selectors is None:
            return
        selectors.pop(key, None)
        if not selectors:
            del self._namespaces[namespace]

    def controlling(self, namespace: str, pods: Iterable[Mapping[str, Any]]) -> list[str]:
        """The keys, sorted, of every HPA in ``namespace`` selecting any of ``pods``."""
        selectors = self._namespaces.get(namespace)
        if not selectors:
            return []
        label_sets: dict[tuple[tuple[str, str], ...], Mapping[str, str]] = {}
        for pod in pods:
            labels = (pod.get("metadata") or {}).get("labels") or {}
            label_sets.setdefault(tuple(sorted(labels.items())), labels)
        found = {
            key
            for key, selector in selectors.items()
            if any(selector.matches(labels) for labels in label_sets.values())
        }
        return sorted(found)
