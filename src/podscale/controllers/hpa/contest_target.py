"""Reading and remembering who writes an HPA target's ``spec.replicas`` (the shell side).

The pure side is ``podscale.hpa.contest`` (observing writes) and
``podscale.hpa.contest_verdict`` (condition, event, trace). This module does the I/O the
HPA controller (``controller``) needs for them:

- ``read_owners``: the target object itself, read through the mapping that served its
  ``/scale`` (a Scale carries no ``managedFields``), only when ``contest.needs_owners``
  says the replicas moved unaccounted; its ``metadata.managedFields`` (None when absent).
  A target the controller may not read (403: the RBAC role grants ``get`` on the built-in
  workloads only, ``controllermanager.rbac``) or that does not serve a plain read counts
  as carrying none: the write is reported by an unknown writer, once. Any other failure is
  ``UNREADABLE``: the observation waits for the next sync.
- ``observe_replicas``: one sync's look at the replicas read through ``/scale``: the
  owners read when needed, then ``contest.observe``.
- ``ContestMemory``: each HPA's ``ContestState``, loaded from and written to the state
  store's ``REPLICAS_WRITES_STATE`` document when the autoscaler's own last write or the
  observed writes changed. A change of the expected value alone (the first sight of the
  target, a move to or from 0) is not stored: a restarted controller takes the value it
  reads as expected, so a quiet HPA is never written.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi
from podscale.history import StateStore
from podscale.hpa.contest import (
    REPLICAS_WRITES_STATE,
    ContestState,
    ReplicasWrite,
    contest_from_dict,
    contest_to_dict,
    needs_owners,
    observe,
)

__all__ = ["UNREADABLE", "ContestMemory", "observe_replicas", "read_owners"]

_LOG = logging.getLogger(__name__)
JSON = dict[str, Any]


class _Unreadable:
    def __repr__(self) -> str:
        return "UNREADABLE"


UNREADABLE: Final = _Unreadable()
# Answers that will not change at the next sync: forbidden, not found, not allowed.
_NO_OWNERS: Final = frozenset({403, 404, 405})


async def read_owners(
    api: ControllerApi, info: KindInfo, namespace: str, name: str
) -> list[Any] | _Unreadable | None:
    """The target's ``metadata.managedFields`` (None: it carries none), or ``UNREADABLE``."""
    try:
        target = await api.get(info, namespace, name)
    except ApiError as err:
        _LOG.info(
            "could not read %s %s/%s for its managedFields: %s", info.kind, namespace, name, err
        )
        return None if err.status in _NO_OWNERS else UNREADABLE
    managed = (target.get("metadata") or {}).get("managedFields")
    return list(managed) if isinstance(managed, list) else None


async def observe_replicas(
    api: ControllerApi,
    state: ContestState,
    scale: JSON,
    info: KindInfo,
    namespace: str,
    ref: Mapping[str, Any],
    now: datetime,
    *,
    own_manager: str,
) -> tuple[ContestState, ReplicasWrite | None]:
    """The contest ``state`` after reading ``scale``, and the foreign write seen, if any."""
    replicas = int((scale.get("spec") or {}).get("replicas") or 0)
    managed: list[Any] | None = None
    if needs_owners(state, replicas):
        owners = await read_owners(api, info, namespace, str(ref.get("name") or ""))
        if owners is UNREADABLE:
            return state, None  # look again at the next sync
        managed = owners if isinstance(owners, list) else None
    return observe(
        state,
        replicas=replicas,
        managed_fields=managed,
        now=now,
        own_manager=own_manager,
    )


def _signature(document: Mapping[str, Any] | None) -> Any:
    if document is None:
        return contest_to_dict(ContestState())
    return {**document, "expectedReplicas": None}


def _same_values(a: Any, b: Any) -> bool:
    """Equal, and of the same types throughout: 1, 1.0 and True are equal, yet are stored
    as different JSON."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_values(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


class ContestMemory:
    """Each HPA's ``ContestState`` by key, backed by a ``StateStore`` when given."""

    def __init__(self, store: StateStore | None) -> None:
        self._store = store
        self._states: dict[str, ContestState] = {}
        self._stored: dict[str, JSON] = {}
        # Per key: the last state whose document was found stored (or was stored). The
        # same state again has the same document, compared equal to the same stored one:
        # nothing to encode nor compare (every sync puts a state, mostly an unchanged one).
        self._settled: dict[str, ContestState] = {}

    def load(self, key: str, document: Mapping[str, Any] | None) -> None:
        """Start ``key`` from its stored document (an HPA's first sync, or re-created)."""
        self._states[key] = contest_from_dict(document)
        self._settled.pop(key, None)
        if isinstance(document, Mapping):
            self._stored[key] = dict(document)
        else:
            self._stored.pop(key, None)

    def get(self, key: str) -> ContestState:
        return self._states.get(key) or ContestState()

    def forget(self, key: str) -> None:
        self._states.pop(key, None)
        self._stored.pop(key, None)
        self._settled.pop(key, None)

    def put(self, key: str, uid: str, state: ContestState) -> None:
        """Keep ``state``; store it when its document changed."""
        self._states[key] = state
        if self._store is None or not uid:
            return
        settled = self._settled.get(key)
        if settled is not None and _same_values(settled, state):
            return
        document = contest_to_dict(state)
        if _signature(self._stored.get(key)) == _signature(document):
            self._settled[key] = state
            return
        try:
            self._store.put_state(uid, REPLICAS_WRITES_STATE, document)
        except Exception:  # a store failure must not stop scaling; retried on change
            _LOG.exception("could not store the replicas writes of %s", key)
            return
        self._stored[key] = document
        self._settled[key] = state
