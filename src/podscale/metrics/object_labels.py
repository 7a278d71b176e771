"""Labels of live objects, for metric providers that must honour a ``labelSelector``.

A custom metrics read for ``pods/*`` selects objects by their labels, which a metric source
does not know: adapters list the matching objects from the cluster and keep only their
values (prometheus-adapter's ``getMultiple``). ``ObjectLabels`` is that lookup;
``StoreObjectLabels`` answers it from a ``Store`` (the one the API server serves), so an
object that is gone (a deleted pod) reads as None and its stale samples are never served.
``podscale.metrics.push`` takes one. ``labels_version`` lets a reader that remembers what
it filtered (``podscale.metrics.server.selection_memo``) tell that no object changed since.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from podscale.store.interface import NotFoundError, Store

__all__ = ["ObjectLabels", "StoreObjectLabels"]


class ObjectLabels(Protocol):
    """``labels_of(group_resource, namespace, name)``: the object's labels ({} if it has
    none), or None when no such object exists. ``namespace`` None: a root-scoped object."""

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None: ...


class StoreObjectLabels:
    """``ObjectLabels`` over a store; resources are named as the store names them
    (GroupResource strings: ``pods``, ``deployments.apps``)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # Labels by object, with the revision they were read at: an HPA's every sync asks
        # for each of its pods, and decoding each pod from the store was most of that read.
        self._read: dict[tuple[str, str, str], tuple[int, Mapping[str, str]]] = {}

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None:
        key = (group_resource, namespace or "", name)
        revision = self._store.revision_of(*key)
        if revision is None:
            self._read.pop(key, None)
            return None
        cached = self._read.get(key)
        if cached is not None and cached[0] == revision:
            return cached[1]
        try:
            obj = self._store.get(*key)
        except NotFoundError:
            return None
        labels = (obj.get("metadata") or {}).get("labels") or {}
        read = {str(k): str(v) for k, v in labels.items()}
        if cached is None and len(self._read) % 1024 == 1023:
            self._forget_deleted()
        self._read[key] = (revision, read)
        return read

    def labels_version(self, group_resource: str) -> int:
        """A version of every object of ``group_resource`` as ``labels_of`` reads it: the
        store's latest write to one of them (it moves with every create, update and delete,
        and ``labels_of`` reads nothing else), for readers that remember its answers."""
        return self._store.resource_revision(group_resource)

    def _forget_deleted(self) -> None:
        """Drop the labels of objects gone from the store (pods come and go all day)."""
        for key in [k for k in self._read if self._store.revision_of(*k) is None]:
            del self._read[key]
