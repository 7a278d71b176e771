"""``NodeAllocatables``: each simulated node's allocatable, read from the node informer.

``runtime.simulated.usage.SimulatedUsage`` asks at every advance (the node capacity the
pods' usage is capped by, ``runtime.load.node_caps``) and at every scrape (the nodes the
kubelets answer for), while the nodes change far less often. So the answer, a dict by node
name in name order, is kept with the node objects it was read from and given again while
the lister holds the same ones; and each node's quantities are parsed again only when its
resourceVersion moved (``resources.node_allocatable``). The registered names come from
``nodes.SimulatedNodes``; a registered node the lister does not hold has no entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from podscale.client.cache import Lister
from podscale.runtime.simulated.nodes import SimulatedNodes
from podscale.runtime.simulated.resources import Resources, node_allocatable

__all__ = ["NodeAllocatables"]

JSON = dict[str, Any]


class NodeAllocatables:
    """The registered nodes' allocatable, kept between node changes; see the module docstring."""

    def __init__(self, nodes: SimulatedNodes) -> None:
        self._nodes = nodes
        self.lister: Lister | None = None
        # Each node's allocatable by name, with the resourceVersion it was read at.
        self._by_version: dict[str, tuple[str, Resources]] = {}
        # The sorted node names (the tuple, kept per names set).
        self._order: tuple[frozenset[str], tuple[str, ...]] | None = None
        # The last answer with what it was read from: the sorted names and the node
        # objects the lister held for them.
        self._answer: tuple[tuple[str, ...], tuple[JSON | None, ...], dict[str, Resources]] | None
        self._answer = None

    def bind(self, lister: Lister) -> None:
        """Read the nodes from ``lister`` (the node informer's)."""
        self.lister = lister

    def current(self) -> dict[str, Resources]:
        """Each registered node's allocatable, by name in name order (read-only: the same
        dict is answered again). Kept with the node objects it was read from and given
        again while the lister holds the same ones (``==`` of the tuples: the very objects,
        or equal ones, which give the same allocatable); a node added, removed or replaced
        with a different object reads them again."""
        lister = self.lister
        if not lister:
            return {}
        names = self._nodes.names
        order = self._order
        if order is None or order[0] is not names:
            order = self._order = (names, tuple(sorted(names)))
        get = lister.get
        found = tuple([get("", name) for name in order[1]])
        cached = self._answer
        if cached is not None and cached[0] is order[1] and cached[1] == found:
            return cached[2]
        allocatable = self._read(order[1], found)
        self._answer = (order[1], found, allocatable)
        return allocatable

    def _read(self, names: Sequence[str], found: Sequence[JSON | None]) -> dict[str, Resources]:
        """``current`` read afresh from the node objects of ``names`` (None: absent)."""
        return {
            name: self._node(name, obj)
            for name, obj in zip(names, found, strict=True)
            if obj is not None
        }

    def _node(self, name: str, node: JSON) -> Resources:
        """``node_allocatable(node)``, parsed again only when the node's resourceVersion
        moved."""
        version = str((node.get("metadata") or {}).get("resourceVersion") or "")
        cached = self._by_version.get(name)
        if version and cached is not None and cached[0] == version:
            return cached[1]
        resources = node_allocatable(node)
        if version:
            self._by_version[name] = (version, resources)
        return resources
