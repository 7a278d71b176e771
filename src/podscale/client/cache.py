"""The informer's local cache: objects by ``namespace/name``, with named indexes.

client-go's ``Indexer``/``Lister``: controllers read from here instead of the API server.
``Lister`` is the read-only face handed to controllers; ``podscale.client.informer`` keeps
the cache in step with the server. Objects are stored as received and must be treated as
read-only by readers (copy before changing, as with client-go's shared caches).

Beyond client-go, the cache also indexes every ``label=value`` pair, so a selector list
with an exact-match requirement (``app=web``, ``app in (web)``) reads only the objects
carrying that label instead of the whole namespace: the HPA controller lists each
target's pods on every sync, and a scan of 100,000 pods per HPA does not keep up.
The answer is the same as the scan's (same objects, same order). And every cache indexes
objects by the uid of their controller (the ownerReference with ``controller: true``): a
ReplicaSet's sync reads the pods it controls without classifying the whole namespace.

A selector list is also remembered until the cache next changes: the HPA controller, the
simulated usage and the metrics scrapes ask for the same workload's pods many times between
two pod events. The memo is keyed on the namespace and the selector (equal selectors match
the same labels) and emptied by every ``upsert``, ``remove`` and ``replace``, so an answer is
only reused while every object it was computed from is unchanged; each caller gets a list
of its own. Those three also count into ``Lister.changes``, which lets a reader tell that
nothing it read before can have changed (the Deployment controller's quiet repeats).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from podscale.api.selectors import Selector

__all__ = [
    "CONTROLLER_INDEX",
    "Cache",
    "IndexFunc",
    "Lister",
    "controller_index",
    "namespace_index",
    "object_key",
]

JSON = dict[str, Any]
IndexFunc = Callable[[JSON], Iterable[str]]
# The built-in index of objects by their controller's uid.
CONTROLLER_INDEX = "controller"


def object_key(obj: Mapping[str, Any]) -> str:
    """``namespace/name``, or ``name`` for cluster-scoped objects (client-go's key)."""
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    name = str(meta.get("name") or "")
    return f"{namespace}/{name}" if namespace else name


def namespace_index(obj: JSON) -> Iterable[str]:
    return [str((obj.get("metadata") or {}).get("namespace") or "")]


def controller_index(obj: JSON) -> Iterable[str]:
    """The uid of the object's controller, if it has one."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True and ref.get("uid"):
            return [str(ref["uid"])]
    return []


_NO_KEYS: frozenset[str] = frozenset()


class Cache:
    """A thread-unsafe store of objects with indexes, owned by one informer."""

    def __init__(self, indexers: Mapping[str, IndexFunc] | None = None) -> None:
        self._items: dict[str, JSON] = {}
        self._indexers: dict[str, IndexFunc] = {
            "namespace": namespace_index,
            CONTROLLER_INDEX: controller_index,
            **(indexers or {}),
        }
        self._indexes: dict[str, dict[str, set[str]]] = {name: {} for name in self._indexers}
        self._labels: dict[tuple[str, str], set[str]] = {}
        # ``Lister.list`` answers with a selector since the last change (see the docstring).
        self.selections: dict[tuple[str | None, Selector], builtins.list[JSON]] = {}
        # Counts every ``upsert``, ``remove`` and ``replace``: the same count means every
        # answer a reader got since is still the answer (objects are never changed in place).
        self.changes = 0

    def upsert(self, obj: JSON) -> JSON | None:
        """Store ``obj``; returns the object it replaced, if any."""
        self.changes += 1
        if self.selections:
            self.selections.clear()
        key = object_key(obj)
        old = self._items.get(key)
        if old is not None:
            self._unindex(key, old)
        self._items[key] = obj
        self._index(key, obj)
        return old

    def remove(self, obj: JSON) -> JSON | None:
        self.changes += 1
        if self.selections:
            self.selections.clear()
        key = object_key(obj)
        old = self._items.pop(key, None)
        if old is not None:
            self._unindex(key, old)
        return old

    def replace(self, objects: Iterable[JSON]) -> None:
        """Swap the whole content (after a relist)."""
        self.changes += 1
        self.selections.clear()
        self._items.clear()
        self._indexes = {name: {} for name in self._indexers}
        self._labels = {}
        for obj in objects:
            self.upsert(obj)

    def get(self, key: str) -> JSON | None:
        return self._items.get(key)

    def list_keys(self) -> list[str]:
        return list(self._items)

    def values(self) -> list[JSON]:
        return list(self._items.values())

    def by_index(self, index: str, value: str) -> list[JSON]:
        keys = self._indexes[index].get(value, set())
        return [self._items[key] for key in sorted(keys)]

    def keys_labelled(self, label: str, value: str) -> AbstractSet[str]:
        """Keys of the objects whose label ``label`` is ``value`` (read-only)."""
        return self._labels.get((label, value), _NO_KEYS)

    def namespace_keys(self, namespace: str) -> AbstractSet[str]:
        """Keys of the objects in ``namespace`` (read-only)."""
        return self._indexes["namespace"].get(namespace, _NO_KEYS)

    def _index(self, key: str, obj: JSON) -> None:
        for name, func in self._indexers.items():
            for value in func(obj):
                self._indexes[name].setdefault(value, set()).add(key)
        for pair in _label_pairs(obj):
            self._labels.setdefault(pair, set()).add(key)

    def _unindex(self, key: str, obj: JSON) -> None:
        for pair in _label_pairs(obj):
            found = self._labels.get(pair)
            if found is not None:
                found.discard(key)
                if not found:
                    del self._labels[pair]
        for name, func in self._indexers.items():
            for value in func(obj):
                keys = self._indexes[name].get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del self._indexes[name][value]


def _label_pairs(obj: JSON) -> Iterable[tuple[str, str]]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return [(str(k), str(v)) for k, v in labels.items()]


def _narrowest(cache: Cache, selector: Selector) -> AbstractSet[str] | None:
    """The smallest label-index bucket the selector's exact-match requirements name, or
    None when it has none (it must then be checked against every object)."""
    best: AbstractSet[str] | None = None
    for requirement in selector.requirements:
        value = selector.requires_exact_match(requirement.key)
        if value is None:
            continue
        keys = cache.keys_labelled(requirement.key, value)
        if best is None or len(keys) < len(best):
            best = keys
    return best


class Lister:
    """Read-only queries over a ``Cache`` (client-go's generated listers)."""

    def __init__(self, cache: Cache) -> None:
        self._cache = cache

    def get(self, namespace: str, name: str) -> JSON | None:
        return self._cache.get(f"{namespace}/{name}" if namespace else name)

    @property
    def changes(self) -> int:
        """How many times the cache changed so far: while it stays the same, every list
        and get answers with the same objects as before."""
        return self._cache.changes

    def list(
        self, namespace: str | None = None, selector: Selector | None = None
    ) -> builtins.list[JSON]:
        """Objects in ``namespace`` (all when ``None``) whose labels ``selector`` matches,
        ordered by key."""
        if selector is None:
            return self._select(namespace, None)
        memo = self._cache.selections
        try:
            found = memo.get((namespace, selector))
        except TypeError:  # a selector built with unhashable values: not remembered
            return self._select(namespace, selector)
        if found is None:
            found = memo[(namespace, selector)] = self._select(namespace, selector)
        return found.copy()

    def _select(self, namespace: str | None, selector: Selector | None) -> builtins.list[JSON]:
        """``list`` computed afresh."""
        candidates = None if selector is None else _narrowest(self._cache, selector)
        if candidates is not None and selector is not None:
            if namespace is not None:
                in_namespace = self._cache.namespace_keys(namespace)
                if len(in_namespace) < len(candidates):
                    candidates, in_namespace = in_namespace, candidates
                keys = [key for key in candidates if key in in_namespace]
            else:
                keys = list(candidates)
            found = []
            for key in sorted(keys):
                obj = self._cache.get(key)
                if obj is not None and selector.matches(
                    (obj.get("metadata") or {}).get("labels") or {}
                ):
                    found.append(obj)
            return found
        if namespace is None:
            objects = sorted(self._cache.values(), key=object_key)
        else:
            objects = self._cache.by_index("namespace", namespace)
        if selector is None:
            return objects
        return [
            obj
            for obj in objects
            if selector.matches((obj.get("metadata") or {}).get("labels") or {})
        ]

    def by_index(self, index: str, value: str) -> builtins.list[JSON]:
        return self._cache.by_index(index, value)
