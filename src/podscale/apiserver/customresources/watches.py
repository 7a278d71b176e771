"""When a watch on a custom resource ends: once the CRD that served it is gone.

kube-apiserver serves each CRD's resources from a storage of their own; when the CRD is
deleted (after its finalizer removed every custom resource) or replaced, that storage is torn
down and the watches open on it end, so clients relist and get a 404. ``DefinitionWatch``
gives the watch loops (``operations.watch`` for the in-process client, ``http.watch`` for HTTP)
the same ending: it remembers the uid of the CRD serving the kind when the watch opened and
says ``gone`` once the kind is no longer served by that CRD (deleted, re-created under the same
name, or the version no longer served). It looks at most once per ``CHECK_SECONDS`` (a
snapshot lookup in ``registry`` while no write happened); the loops wait no longer than that
between looks, and deliver the events already queued (the custom resources' deletions) before
they end. Built-in kinds never end this way.
"""

from __future__ import annotations

from typing import Final

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.customresources.lifecycle import custom_kinds
from podscale.apiserver.state import ServerState

__all__ = ["CHECK_SECONDS", "DefinitionWatch"]

# How often an open watch on a custom kind looks whether its CRD still serves it.
CHECK_SECONDS: Final = 1.0


def _serving_uid(state: ServerState, info: KindInfo) -> str | None:
    """The uid of the CRD serving ``info`` now; None for a built-in kind, "" when no CRD
    serves it any more."""
    if not isinstance(info, CustomKind):
        return None
    kinds = custom_kinds(state)
    if kinds.lookup(info.group, info.version, info.plural) is None:
        return ""
    crd = kinds.definition(info.crd_name)
    return str(((crd or {}).get("metadata") or {}).get("uid") or "")


class DefinitionWatch:
    """Whether the CRD behind one watch is gone; see the module docstring."""

    def __init__(self, state: ServerState, info: KindInfo) -> None:
        self._state = state
        self._info = info
        self._uid = _serving_uid(state, info)
        self._next_check = 0.0

    @property
    def custom(self) -> bool:
        """Whether this watch can end this way (a custom kind)."""
        return self._uid is not None

    def wait(self, wanted: float | None) -> float | None:
        """The longest a watch loop may wait for an event (``wanted``: its own limit)."""
        if self._uid is None:
            return wanted
        return CHECK_SECONDS if wanted is None else min(wanted, CHECK_SECONDS)

    def gone(self, now: float) -> bool:
        """True once the CRD no longer serves the kind (``now``: the loop's clock)."""
        if self._uid is None or now < self._next_check:
            return False
        self._next_check = now + CHECK_SECONDS
        return _serving_uid(self._state, self._info) != self._uid
