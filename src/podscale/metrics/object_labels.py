"""Labels of live objects, for metric providers that must honour a ``labelSelector``.

A custom metrics read for ``pods/*`` selects objects by their labels, which a metric source
does not know: adapters list the matching objects from the cluster and keep only their
values (prometheus-adapter's ``getMultiple``). ``ObjectLabels`` is that lookup;
``StoreObjectLabels`` answers it from a ``Store`` (the one the API server serves), so an
object that is gone (a deleted pod) reads as None and its stale samples are never served.
``podscale.metrics.push`` takes one.
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

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None:
        try:
            obj = self._store.get(group_resource, namespace or "", name)
        except NotFoundError:
            return None
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return {str(k): str(v) for k, v in labels.items()}
