"""The namespace controller: empties a Terminating namespace, then lets it go.

Upstream's NamespaceController (``pkg/controller/namespace``) as one podscale
``Controller``. Keys are namespace names. A namespace is queued when it is added or
changed while it has a ``deletionTimestamp``, 5 s later (upstream's
``namespaceDeletionGracePeriod``: last-moment creations land first). ``reconcile``:

1. reads the namespace live; gone or not being deleted: nothing to do;
2. sets ``status.phase: Terminating`` if the API server's mark did not (status write);
3. with ``spec.finalizers`` already empty: nothing left for this controller;
4. for every kind of ``deletion.deletable_kinds`` of what the server serves now (its
   discovery through the client's ``served_kinds``, read on every pass as upstream's
   deleter does, so custom resources of the CRDs of the moment are emptied too; the kind
   registry when the client cannot discover), lists the namespace's objects and deletes
   each with propagation Background, then lists again and ``assess``es what remains;
   writes the five ``Namespace*`` conditions when they change (group versions discovery
   could not read make ``NamespaceDeletionDiscoveryFailure`` true and the pass an error);
5. raises when a kind could not be emptied (the manager retries with backoff); requeues
   after ``estimate / 2 + 1`` seconds while pods finish their grace period or finalizers
   hold items; else removes ``kubernetes`` from ``spec.finalizers`` through
   ``namespaces/{name}/finalize``, and the API server deletes the namespace.

Conflicts on the namespace are retried on a fresh read, as upstream's
``retryOnConflictError``. Time comes from the injected clock only.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, all_kinds, kind_for
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.namespace.deletion import (
    KindResult,
    assess,
    deletable_kinds,
    deletion_conditions,
    discovery_failure_message,
    merge_conditions,
    pod_estimate,
    requeue_seconds,
    without_finalizer,
)
from podscale.controllers.runtime_api import ControllerApi, KindDiscovery, SharedInformers
from podscale.store.interface import Clock
from podscale.store.objects import format_timestamp

__all__ = ["DELETION_GRACE_PERIOD", "NamespaceContentError", "NamespaceController"]

_LOG = logging.getLogger(__name__)
NAMESPACE: Final = kind_for("v1", "Namespace")
# Upstream's namespaceDeletionGracePeriod: how long after a change a namespace is looked at.
DELETION_GRACE_PERIOD: Final = timedelta(seconds=5)
_CONFLICT_RETRIES: Final = 10

JSON = dict[str, Any]


class NamespaceContentError(Exception):
    """Some kinds could not be emptied; the message lists upstream's per-kind errors."""


def _meta(obj: JSON) -> JSON:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


class NamespaceController:
    """Deletes the content of Terminating namespaces; see the module docstring."""

    name: Final = "namespace"
    workers_flag: Final = "concurrent_namespace_syncs"

    def __init__(
        self, api: ControllerApi, clock: Clock, *, kinds: Sequence[KindInfo] | None = None
    ) -> None:
        """``kinds`` fixes the kinds to empty; by default they are what the client's
        ``served_kinds`` lists on each pass (the built-in kinds when it has none)."""
        self._api = api
        self._clock = clock
        self._kinds = deletable_kinds(kinds if kinds is not None else all_kinds())
        self._discovery = api if kinds is None and isinstance(api, KindDiscovery) else None
        self._queue: WorkQueue[str] | None = None

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return (NAMESPACE,)

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        informers.informer_for(NAMESPACE).add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), None)
        )

    def _enqueue(self, namespace: JSON) -> None:
        if self._queue is None:
            raise RuntimeError("NamespaceController used before bind()")
        meta = _meta(namespace)
        if meta.get("deletionTimestamp") and meta.get("name"):
            self._queue.add_after(str(meta["name"]), DELETION_GRACE_PERIOD)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        namespace = await self._get(key)
        if namespace is None or not _meta(namespace).get("deletionTimestamp"):
            return
        namespace = await self._retry_on_conflict(namespace, self._mark_terminating)
        if namespace is None or not (namespace.get("spec") or {}).get("finalizers"):
            return
        estimate, namespace = await self._delete_all_content(namespace)
        if estimate > 0:
            if self._queue is not None:
                self._queue.add_after(key, timedelta(seconds=requeue_seconds(estimate)))
            return
        await self._retry_on_conflict(namespace, self._finalize)

    async def _get(self, name: str) -> JSON | None:
        try:
            return await self._api.get(NAMESPACE, None, name)
        except ApiError as err:
            if err.status == 404:
                return None
            raise

    async def _retry_on_conflict(
        self, namespace: JSON, write: Callable[[JSON], Awaitable[JSON]]
    ) -> JSON | None:
        """``write`` the namespace, re-reading it after each conflict; None once it is gone
        (or its uid changed: a new namespace of the same name is not ours to touch)."""
        uid = _meta(namespace).get("uid")
        for _ in range(_CONFLICT_RETRIES):
            try:
                return await write(namespace)
            except ApiError as err:
                if err.status == 404:
                    return None
                if err.status != 409:
                    raise
            fresh = await self._get(str(_meta(namespace).get("name", "")))
            if fresh is None or _meta(fresh).get("uid") != uid:
                return None
            namespace = fresh
        raise NamespaceContentError("namespace kept changing; retrying later")

    async def _mark_terminating(self, namespace: JSON) -> JSON:
        if (namespace.get("status") or {}).get("phase") == "Terminating":
            return namespace
        status = dict(namespace.get("status") or {})
        status["phase"] = "Terminating"
        return await self._api.update(NAMESPACE, None, {**namespace, "status": status}, "status")

    async def _finalize(self, namespace: JSON) -> JSON:
        spec = dict(namespace.get("spec") or {})
        spec["finalizers"] = without_finalizer(spec.get("finalizers") or [])
        return await self._api.update(NAMESPACE, None, {**namespace, "spec": spec}, "finalize")

    async def _delete_all_content(self, namespace: JSON) -> tuple[int, JSON]:
        """One pass over every kind: the estimate (seconds) of what remains, and the
        namespace as last written."""
        name = str(_meta(namespace).get("name", ""))
        deleted_at = _meta(namespace).get("deletionTimestamp")
        results: dict[KindInfo, KindResult] = {}
        errors: list[str] = []
        kinds, undiscovered = await self._discover()
        for info in kinds:
            try:
                results[info] = await self._empty_kind(info, name, deleted_at)
            except ApiError as err:
                errors.append(str(err))
                continue
            error = results[info].error
            if error is not None:
                errors.append(error)
        namespace = await self._write_conditions(namespace, results, errors, undiscovered)
        if errors:
            raise NamespaceContentError(
                f"deletion of namespace {name} failed: " + ", ".join(sorted(errors))
            )
        if undiscovered:
            # What could be listed was emptied; the rest waits for discovery to answer.
            raise NamespaceContentError(discovery_failure_message(undiscovered))
        return max((result.estimate for result in results.values()), default=0), namespace

    async def _discover(self) -> tuple[tuple[KindInfo, ...], list[str]]:
        """The kinds to empty now, and the group versions discovery failed to list (whose
        previously known kinds are emptied anyway, as upstream keeps partial results)."""
        if self._discovery is None:
            return self._kinds, []
        served = await self._discovery.served_kinds()
        failed = served.failed
        kept = [k for k in self._kinds if (k.group, k.version) in failed]
        self._kinds = deletable_kinds((*served.kinds, *kept))
        return self._kinds, sorted(f"{g}/{v}" if g else v for g, v in failed)

    async def _empty_kind(self, info: KindInfo, namespace: str, deleted_at: Any) -> KindResult:
        items = (await self._api.list(info, namespace)).get("items") or []
        estimate = 0
        if info.kind == "Pod" and not info.group:
            estimate = pod_estimate(items, deleted_at, self._clock.now())
        for item in items:
            try:
                await self._api.delete(
                    info, namespace, str(_meta(item).get("name", "")), propagation="Background"
                )
            except ApiError as err:
                if err.status not in (404, 405):
                    raise
        remaining = (await self._api.list(info, namespace)).get("items") or []
        return assess(info, namespace, remaining, estimate)

    async def _write_conditions(
        self,
        namespace: JSON,
        results: dict[KindInfo, KindResult],
        errors: list[str],
        undiscovered: list[str],
    ) -> JSON:
        now = format_timestamp(self._clock.now())
        status = dict(namespace.get("status") or {})
        failing = deletion_conditions(results, errors, now, undiscovered)
        conditions, changed = merge_conditions(status.get("conditions") or [], failing, now)
        if not changed:
            return namespace
        status["conditions"] = conditions
        try:
            return await self._api.update(
                NAMESPACE, None, {**namespace, "status": status}, "status"
            )
        except ApiError as err:
            # Upstream only reports it: the conditions are written again on the next pass.
            name = _meta(namespace).get("name")
            _LOG.warning("could not update the conditions of namespace %s: %s", name, err)
            return namespace
