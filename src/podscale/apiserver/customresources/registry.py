"""One API server's custom kinds, kept current with the CRDs in its store.

``CustomKindRegistry`` lives on the ``ServerState`` (one per server, so several servers in one
process never share kinds). ``current(store)`` answers from the last ``CustomKinds`` snapshot
while no CRD was written (``Store.resource_revision`` of the CRDs has not moved); after a CRD
write it relists the CRDs and rebuilds the snapshot only when one of them changed (names and
resourceVersions compared). Reads are therefore always as fresh as the store, with no watch to
keep alive, and cost a dict lookup however many CRDs there are and whatever else is written:
writes of custom resources never relist the CRDs. ``definitions.custom_kinds`` turns each CRD
into its kinds; ``lifecycle`` decides what to write back to the CRDs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from podscale.apiserver.customresources.definitions import CRD_RESOURCE, CustomKind, custom_kinds
from podscale.store.interface import Store

__all__ = ["CustomKindRegistry", "CustomKinds"]

JSON = dict[str, Any]


@dataclass(frozen=True)
class CustomKinds:
    """The custom kinds served at one revision of the CRDs, and the CRDs themselves."""

    definitions: tuple[JSON, ...] = ()
    kinds: tuple[CustomKind, ...] = ()
    _by_resource: Mapping[tuple[str, str, str], CustomKind] = field(
        default_factory=dict, compare=False
    )
    _by_name: Mapping[str, JSON] = field(default_factory=dict, compare=False)
    # Values derived from these CRDs alone (OpenAPI documents): a new snapshot starts empty,
    # so nothing outlives the CRDs it was computed from.
    _memo: dict[tuple[str, ...], Any] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, definitions: list[JSON]) -> CustomKinds:
        kinds = tuple(kind for crd in definitions for kind in custom_kinds(crd))
        by_resource = {(k.group, k.version, k.plural): k for k in kinds}
        by_name: dict[str, JSON] = {}
        for crd in definitions:
            by_name.setdefault(str((crd.get("metadata") or {}).get("name")), crd)
        return cls(tuple(definitions), kinds, by_resource, by_name, {})

    def lookup(self, group: str, version: str, plural: str) -> CustomKind | None:
        """The kind serving ``/apis/<group>/<version>/<plural>``, if any."""
        return self._by_resource.get((group, version, plural))

    def definition(self, name: str) -> JSON | None:
        """The stored CRD called ``name`` (``<plural>.<group>``), if any."""
        return self._by_name.get(name)

    def kinds_of(self, crd_name: str) -> list[CustomKind]:
        return [kind for kind in self.kinds if kind.crd_name == crd_name]

    def memo(self, key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        """``compute()``, once per snapshot and ``key`` (a racing duplicate is harmless)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


def _fingerprint(definitions: list[JSON]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(meta.get("name", "")), str(meta.get("resourceVersion", "")))
        for meta in (crd.get("metadata") or {} for crd in definitions)
    )


class CustomKindRegistry:
    """The per-server cache of ``CustomKinds``; thread-safe (handlers may run off the loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision = -1
        self._fingerprint: tuple[tuple[str, str], ...] = ()
        self._kinds = CustomKinds()
        self._reconciled: CustomKinds | None = None

    def current(self, store: Store) -> CustomKinds:
        """The kinds as of the store's latest revision."""
        revision = store.resource_revision(CRD_RESOURCE)
        with self._lock:
            if revision == self._revision:
                return self._kinds
            # Read the revision before listing: a CRD write racing the list moves it again,
            # so the next call relists rather than trusting a snapshot that might miss it.
            definitions = store.list(CRD_RESOURCE).items
            fingerprint = _fingerprint(definitions)
            if fingerprint != self._fingerprint:
                self._kinds = CustomKinds.build(definitions)
                self._fingerprint = fingerprint
            self._revision = revision
            return self._kinds

    def reconciled(self, kinds: CustomKinds) -> bool:
        """Whether ``lifecycle`` already brought the CRDs of this snapshot up to date."""
        with self._lock:
            return kinds is self._reconciled

    def mark_reconciled(self, kinds: CustomKinds) -> None:
        with self._lock:
            self._reconciled = kinds
