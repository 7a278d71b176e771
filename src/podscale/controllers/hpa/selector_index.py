"""Which HPAs control which pods: the index behind upstream's ``AmbiguousSelector``.

Upstream's ``hpaSelectorStore`` (pkg/controller/podautoscaler/hpa_selector_store.go): per
namespace, each known HPA's target selector. An HPA is registered with a selector that
matches nothing when the informer first delivers it (``register``), gets its target's
real selector each time a sync reads the target's scale (``update``, only if still
registered), and is dropped when deleted (``remove``). ``controlling`` answers which
HPAs select at least one of a set of pods; more than one means none of them may scale.
Until an HPA has synced once it selects nothing, so (as upstream) the first of two
conflicting HPAs to sync may act once before both see the conflict. ``target_pods`` is a
sync's use of it (the HPA controller, ``controller``): the pods a scale's
``status.selector`` matches, from the pod informer's ``Lister``, and the HPAs controlling
any of them.

Each sync asks ``controlling`` once, so it must not cost O(HPAs in the namespace) (that is
O(n^2) per sync period). As upstream's ``BiMultimap`` indexes selectors by their labels, a
selector with an exact-match requirement (``app=web``) is filed under that label pair and
only tried against pods carrying it; the others (``app!=x``, ``tier``) are tried always;
``Selector.nothing()`` matches nothing and is never tried. The answer is the same as trying
every selector.

``target_pods`` also keeps each HPA's last answer, with the very pod objects it was computed
from and the namespace's ``generation`` (bumped by every selector change): the next sync's
pods are mostly the same objects (a pod is replaced, never edited, when it changes: see
``tests/integration/controllers/test_hpa_cache_untouched.py``), so while they all are and
no selector changed the answer is the kept one, without reading every pod's labels again.
``controlling`` is a pure function of the selectors and the pods' labels, so it is the
same answer (``tests/unit/controllers/hpa/test_controlling_memo.py``).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Any

from podscale.api.selectors import Selector, SelectorError, parse_selector
from podscale.client.cache import Lister

__all__ = ["SelectorIndex"]


Pair = tuple[str, str]
JSON = dict[str, Any]


def _filing(selector: Selector) -> Pair | None:
    """The label pair every object ``selector`` matches must carry, if there is one."""
    for requirement in selector.requirements:
        value = selector.requires_exact_match(requirement.key)
        if value is not None:
            return requirement.key, value
    return None


class _Namespace:
    """The selectors of one namespace, filed for lookup by label pair."""

    def __init__(self) -> None:
        self.selectors: dict[str, Selector] = {}
        self.by_pair: dict[Pair, set[str]] = {}
        self.always: set[str] = set()  # no exact-match requirement: tried for every pod
        self.generation = 0  # bumped by every put and drop: kept answers are then stale

    def put(self, key: str, selector: Selector) -> None:
        self.drop(key)
        self.generation += 1
        self.selectors[key] = selector
        if selector.matches_nothing:
            return
        pair = _filing(selector)
        if pair is None:
            self.always.add(key)
        else:
            self.by_pair.setdefault(pair, set()).add(key)

    def drop(self, key: str) -> None:
        self.generation += 1
        old = self.selectors.pop(key, None)
        if old is None or old.matches_nothing:
            return
        pair = _filing(old)
        if pair is None:
            self.always.discard(key)
            return
        keys = self.by_pair.get(pair)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self.by_pair[pair]


class SelectorIndex:
    """HPA key (``namespace/name``) -> its target's selector, grouped by namespace."""

    def __init__(self) -> None:
        self._namespaces: dict[str, _Namespace] = {}
        # HPA key -> (its namespace's entry and generation, the pods, ``controlling``'s
        # answer for them): ``target_pods``' last answer (see the module docstring).
        self._kept: dict[str, tuple[_Namespace, int, tuple[JSON, ...], list[str]]] = {}

    def register(self, namespace: str, key: str) -> bool:
        """Add ``key`` selecting nothing unless present; True if it was new."""
        entry = self._namespaces.setdefault(namespace, _Namespace())
        if key in entry.selectors:
            return False
        entry.put(key, Selector.nothing())
        return True

    def update(self, namespace: str, key: str, selector: Selector) -> bool:
        """Set ``key``'s selector if it is registered; True if it was."""
        entry = self._namespaces.get(namespace)
        if entry is None or key not in entry.selectors:
            return False
        if entry.selectors[key] != selector:
            entry.put(key, selector)
        return True

    def remove(self, namespace: str, key: str) -> None:
        self._kept.pop(key, None)
        entry = self._namespaces.get(namespace)
        if entry is None:
            return
        entry.drop(key)
        if not entry.selectors:
            del self._namespaces[namespace]

    def target_pods(
        self, pods: Lister, key: str, namespace: str, scale: Mapping[str, Any]
    ) -> tuple[list[JSON], list[str]]:
        """The pods the scale's selector matches and the HPAs controlling any of them."""
        text = str((scale.get("status") or {}).get("selector") or "")
        if not text:
            return [], []
        try:
            selector = parse_selector(text)
        except SelectorError:
            return [], []  # the engine reports InvalidSelector
        self.update(namespace, key, selector)
        found = pods.list(namespace, selector)
        entry = self._namespaces.get(namespace)
        if entry is None:
            return found, []
        kept = self._kept.get(key)
        if (
            kept is not None
            and kept[0] is entry
            and kept[1] == entry.generation
            and len(kept[2]) == len(found)
            and all(map(operator.is_, kept[2], found))
        ):
            return found, list(kept[3])
        answer = self.controlling(namespace, found)
        # A tuple of the objects themselves: held, their ids are never reused meanwhile.
        self._kept[key] = (entry, entry.generation, tuple(found), answer)
        return found, list(answer)

    def controlling(self, namespace: str, pods: Iterable[Mapping[str, Any]]) -> list[str]:
        """The keys, sorted, of every HPA in ``namespace`` selecting any of ``pods``."""
        entry = self._namespaces.get(namespace)
        if entry is None:
            return []
        # The pods' distinct label sets, each tried once (a workload's pods share theirs).
        # Keyed by the pairs in the labels' own order, not sorted: the same set in another
        # order is only tried twice, which adds nothing to the answer (a union).
        label_sets: dict[tuple[Pair, ...], Mapping[str, str]] = {}
        for pod in pods:
            labels = (pod.get("metadata") or {}).get("labels") or {}
            pairs = tuple(labels.items())
            if pairs not in label_sets:
                label_sets[pairs] = labels
        found: set[str] = set()
        always, by_pair, selectors = entry.always, entry.by_pair, entry.selectors
        for pairs, labels in label_sets.items():
            candidates = set(always)
            for pair in pairs:
                filed = by_pair.get(pair)
                if filed is not None:
                    candidates.update(filed)
            found.update(key for key in candidates - found if selectors[key].matches(labels))
        return sorted(found)
