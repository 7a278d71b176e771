"""The nodes the cached pods are bound to, kept in step with the pod informer's events.

The pod GC's pass (``podgc.controller``) needs to list every pod only when one of them
could be an orphan: when a pod is bound to a node the node informer does not know, or a
node waits in quarantine. ``BoundNodes`` counts the pods bound to each node from the pod
informer's handler calls (an add or update records the pod's ``spec.nodeName`` by its cache
key, a delete drops the key), so it always describes the informer's cache: the same
objects the pod lister would return. ``pass_has_work`` (``podgc.orphans``) over its
``nodes`` then tells whether the general pass could change anything.
"""

from __future__ import annotations

from collections.abc import KeysView
from typing import Any

from podscale.client.cache import object_key
from podscale.client.informer import EventHandler
from podscale.controllers.podgc.orphans import node_name_of

__all__ = ["BoundNodes"]

JSON = dict[str, Any]


class BoundNodes:
    """Pods per bound node over one pod cache; register ``handler()`` on its informer."""

    def __init__(self) -> None:
        self._node_of: dict[str, str] = {}  # cache key -> the pod's node ("" unbound)
        self._pods: dict[str, int] = {}  # node -> pods bound to it (never 0, never "")

    def handler(self) -> EventHandler:
        return EventHandler(
            on_add=self.seen, on_update=lambda _old, new: self.seen(new), on_delete=self.gone
        )

    def nodes(self) -> KeysView[str]:
        """Every node at least one cached pod is bound to."""
        return self._pods.keys()

    def seen(self, pod: JSON) -> None:
        """``pod`` is in the cache as it is now (added or updated)."""
        key = object_key(pod)
        node = node_name_of(pod)
        if self._node_of.get(key) == node:
            return
        self._drop(key)
        self._node_of[key] = node
        if node:
            self._pods[node] = self._pods.get(node, 0) + 1

    def gone(self, pod: JSON) -> None:
        """``pod`` left the cache."""
        self._drop(object_key(pod))

    def _drop(self, key: str) -> None:
        node = self._node_of.pop(key, None)
        if node:
            left = self._pods[node] - 1
            if left:
                self._pods[node] = left
            else:
                del self._pods[node]
