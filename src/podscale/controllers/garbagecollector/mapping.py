"""The garbage collector's REST mapping and monitored kinds, from the served kinds.

Upstream's collector maps an ownerReference's apiVersion/kind to a resource through a REST
mapper over discovery, and monitors every deletable resource discovery lists
(``GetDeletableResources``: preferred versions with the delete, list and watch verbs, minus
the ignored ones). ``KindMapping`` is that over a set of ``KindInfo`` values: the kind
registry's at first (``registry_mapping``), then whatever ``controller`` last learned from
the client's ``served_kinds`` (built-in and custom kinds alike). Pure; ``operations`` and the
graph's scope lookups read it, ``controller`` replaces it when discovery changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from podscale.api.kinds import KindInfo, all_kinds

__all__ = ["IGNORED_KINDS", "KindMapping", "monitored_kinds", "registry_mapping"]

# kube-controller-manager's default --gc-ignored-resources: events are never collected.
IGNORED_KINDS: Final = frozenset({("", "Event"), ("events.k8s.io", "Event")})


def monitored_kinds(kinds: Iterable[KindInfo]) -> tuple[KindInfo, ...]:
    """The kinds the collector watches: every top-level kind in its preferred version that
    can be deleted, listed and watched, except the ignored ones."""
    return tuple(
        info
        for info in kinds
        if info.top_level
        and info.preferred
        and (info.group, info.kind) not in IGNORED_KINDS
        and {"delete", "list", "watch"} <= set(info.verbs)
    )


class KindMapping:
    """apiVersion/kind to the served ``KindInfo`` (an immutable snapshot)."""

    def __init__(self, kinds: Iterable[KindInfo]) -> None:
        self._kinds = tuple(info for info in kinds if info.top_level)
        self._by_group_kind: dict[tuple[str, str], list[KindInfo]] = {}
        for info in self._kinds:
            self._by_group_kind.setdefault((info.group, info.kind), []).append(info)

    @property
    def kinds(self) -> tuple[KindInfo, ...]:
        return self._kinds

    def kind_of(self, api_version: str, kind: str) -> KindInfo | None:
        """The served resource for ``apiVersion``/``kind``: that version if served, else the
        group's preferred one (the REST mapping by group and kind); None if unknown."""
        group, _, version = api_version.rpartition("/")
        candidates = self._by_group_kind.get((group, kind), [])
        for info in candidates:
            if info.version == version:
                return info
        preferred = [info for info in candidates if info.preferred] or candidates
        return preferred[0] if preferred else None

    def scope_of(self, api_version: str, kind: str) -> bool | None:
        """Whether the kind is namespaced; None when no version of it is served."""
        info = self.kind_of(api_version, kind)
        return None if info is None else info.namespaced


def registry_mapping() -> KindMapping:
    """The mapping of podscale's built-in kinds (what a server without CRDs serves)."""
    return KindMapping(all_kinds())
