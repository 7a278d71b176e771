"""What the HPA controller remembers of each HPA between syncs, and keeps in the state store.

``StateKeeper`` holds, per HPA key: the engine's ``History`` (``histories``, upstream's
recommendations/scaleUpEvents/scaleDownEvents maps), the uid whose stored state was
loaded, its documents as last stored, the signature of the trace and the key of the
history last stored (``history_key``: while they stay equal, nothing is encoded to be
compared), and who else wrote the target's replicas (``contests``,
``contest_target.ContestMemory``).

Beyond upstream, given a ``StateStore`` (``ControllerContext.history``) the engine's
history survives a controller restart: it is stored under the HPA's uid, read at the first
sync of an HPA (``load``) and rewritten only when it meaningfully changed (``store``, by
``history_store.state_changes``); an HPA's documents are deleted with it (``delete``). An
HPA still carrying the annotations older versions kept them in is read once and the
annotations removed (a merge patch of the synced kind). Without a store (None), everything
stays in memory, as upstream does. Neighbours: ``controller`` (the caller: ``load`` and
``store`` once per sync, ``forget`` and ``delete`` when an HPA goes), ``history_store``
(the documents' format and what counts as a change), ``contest_target``.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.controllers.hpa.contest_target import ContestMemory
from podscale.controllers.hpa.history_key import history_key
from podscale.controllers.hpa.history_store import (
    HISTORY_STATE,
    LAST_DECISION_STATE,
    LEGACY_ANNOTATIONS,
    legacy_state,
    load_history,
    retention_for,
    state_changes,
    trace_signature,
)
from podscale.controllers.runtime_api import ControllerApi
from podscale.history import StateStore
from podscale.hpa import Config, Decision, History
from podscale.hpa.contest import REPLICAS_WRITES_STATE
from podscale.hpa.trace import DecisionTrace

__all__ = ["StateKeeper"]

_LOG = logging.getLogger(__name__)
MERGE_PATCH: Final = "application/merge-patch+json"

JSON = dict[str, Any]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


class StateKeeper:
    """Each HPA's remembered and stored state by key; see the module docstring."""

    def __init__(
        self, api: ControllerApi, store: StateStore | None, config: Config, kind: KindInfo
    ) -> None:
        self._api = api
        self._store = store
        self._config = config
        # The kind of the synced objects: the legacy annotations are removed there.
        self._kind = kind
        # Upstream's recommendations/scaleUpEvents/scaleDownEvents maps, one History per key.
        self.histories: dict[str, History] = {}
        # Per key: the uid of the HPA whose stored state was loaded (a new uid under the
        # same name is a re-created HPA: loaded afresh), and its documents as stored.
        self._loaded: dict[str, str] = {}
        self._stored: dict[str, dict[str, JSON]] = {}
        # Per key: the signature of the trace last stored, so an unchanged trace is not
        # encoded again on every sync.
        self._stored_traces: dict[str, DecisionTrace] = {}
        # Per key: the ``history_key`` of the history document last stored or found the same
        # as the stored one, so an unchanged history is not encoded again on every sync.
        self._stored_histories: dict[str, Hashable] = {}
        # Per key: who else wrote the target's replicas (podscale.hpa.contest).
        self.contests = ContestMemory(store)

    def forget(self, key: str) -> None:
        """Everything remembered of ``key`` (its HPA is gone from the informer)."""
        self.histories.pop(key, None)
        self._loaded.pop(key, None)
        self._stored.pop(key, None)
        self._stored_traces.pop(key, None)
        self._stored_histories.pop(key, None)
        self.contests.forget(key)

    def delete(self, key: str, hpa: JSON) -> None:
        """The stored documents of the deleted ``hpa``."""
        uid = str(_meta(hpa).get("uid") or "")
        if self._store is not None and uid:
            try:
                self._store.delete_state(uid)
            except Exception:  # a store failure must not stop the informer's handlers
                _LOG.exception("could not delete the stored state of %s", key)

    async def load(self, key: str, hpa: JSON, now: datetime) -> JSON:
        """At the first sync of an HPA (of this uid): its stored documents, the history
        restored from them, and the migration of older versions' annotations. Returns the
        HPA to sync (the patched object when annotations were removed)."""
        uid = str(_meta(hpa).get("uid") or "")
        loaded = self._loaded.get(key)
        if loaded == uid:
            return hpa
        if loaded is not None:  # re-created under the same name: nothing carries over
            self.histories.pop(key, None)
            self._stored_traces.pop(key, None)
        self._loaded[key] = uid
        self._stored[key] = {}
        self._stored_histories.pop(key, None)
        self.contests.load(key, None)
        if self._store is None or not uid:
            return hpa
        stored = {
            name: document
            for name in (HISTORY_STATE, LAST_DECISION_STATE)
            if (document := self._store.get_state(uid, name)) is not None
        }
        self.contests.load(key, self._store.get_state(uid, REPLICAS_WRITES_STATE))
        legacy, present = legacy_state(hpa)
        for name, document in legacy.items():
            if name not in stored:
                self._store.put_state(uid, name, document)
                stored[name] = document
        self._stored[key] = stored
        if key not in self.histories:
            restored = load_history(stored.get(HISTORY_STATE), now=now)
            if restored is not None:
                self.histories[key] = restored
        if present:
            return await self._remove_annotations(key, hpa)
        return hpa

    async def _remove_annotations(self, key: str, hpa: JSON) -> JSON:
        """Older versions' annotations off the HPA (their content is in the store now)."""
        meta = _meta(hpa)
        patch = {"metadata": {"annotations": dict.fromkeys(LEGACY_ANNOTATIONS)}}
        try:
            patched = await self._api.patch(
                self._kind,
                str(meta.get("namespace") or ""),
                str(meta.get("name") or ""),
                patch,
                content_type=MERGE_PATCH,
            )
        except ApiError as err:
            _LOG.warning("could not remove the history annotations of %s: %s", key, err)
            self._loaded.pop(key, None)  # try again at the next sync
            return hpa
        return patched

    def store(self, hpa: JSON, decision: Decision, history: History | None, now: datetime) -> None:
        """Store what meaningfully changed since the last write (nothing for a quiet HPA)."""
        uid = str(_meta(hpa).get("uid") or "")
        if self._store is None or not uid:
            return
        key = object_key(hpa)
        signature = trace_signature(decision.trace)
        spec = hpa.get("spec") or {}
        kept = None
        if history is not None:
            retention = retention_for(spec, self._config)
            kept = history_key(history, now=now, retention=retention)
        stored = self._stored.setdefault(key, {})
        changes = state_changes(
            stored,
            decision,
            history,
            spec=spec,
            now=now,
            config=self._config,
            trace_unchanged=self._stored_traces.get(key) == signature,
            history_unchanged=kept is not None and self._stored_histories.get(key) == kept,
        )
        try:
            for name, document in changes.items():
                self._store.put_state(uid, name, document)
                stored[name] = document
        except Exception:  # a store failure must not stop scaling; compared afresh next time
            _LOG.exception("could not store the history of %s", key)
            self._stored_traces.pop(key, None)
            self._stored_histories.pop(key, None)
            return
        self._stored_traces[key] = signature
        if kept is None:
            self._stored_histories.pop(key, None)
        else:
            self._stored_histories[key] = kept
