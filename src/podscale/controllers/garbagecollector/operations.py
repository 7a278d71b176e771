"""The garbage collector's writes: each planner ``Action`` as the API calls upstream makes.

Upstream's operations.go and patch.go over podscale's clients. A delete carries
preconditions (the uid, and the resourceVersion the decision was made on); when only the
resourceVersion moved and the ownerReferences did not, it is retried on the uid alone, so a
status write racing the collector does not stall it, while an object re-created under the
same name is never deleted. ownerReference removal and unblocking are strategic merge
patches naming the dependent's uid (the server refuses them on a re-created object), with
upstream's JSON merge patch fallback when the server does not take strategic merge (415).
A finalizer goes through a JSON merge patch carrying the resourceVersion, retried on
conflict. An object that is already gone needs nothing (NotFound is success).
``controller`` drives this; ``actions`` defines what is applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.garbagecollector.actions import (
    Action,
    DeleteObject,
    Event,
    RemoveFinalizer,
    RemoveOwnerReferences,
    UnblockOwnerReferences,
)
from podscale.controllers.garbagecollector.graph import (
    Node,
    ObjectRef,
    OwnerRef,
    node_from_object,
)
from podscale.controllers.garbagecollector.mapping import KindMapping, registry_mapping
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.store.interface import Preconditions

__all__ = ["GcOperations", "kind_of"]

JSON = dict[str, Any]
MERGE_PATCH: Final = "application/merge-patch+json"
# client-go's retry.DefaultBackoff.Steps: attempts of a finalizer removal on conflict.
_FINALIZER_ATTEMPTS: Final = 4


# How the JSON merge patch fallback rewrites the live ownerReferences list.
_OwnersEdit = Callable[[list[JSON]], list[JSON]]


_REGISTRY: Final = registry_mapping()


def kind_of(api_version: str, kind: str) -> KindInfo | None:
    """The built-in resource for ``apiVersion``/``kind`` (``mapping.KindMapping.kind_of``
    over the kind registry); None if unknown."""
    return _REGISTRY.kind_of(api_version, kind)


def _resolve(mapping: KindMapping, api_version: str, kind: str) -> KindInfo:
    info = mapping.kind_of(api_version, kind)
    if info is None:
        # Upstream's restMappingError: the item is retried, never acted on by guess.
        raise LookupError(f"unable to get REST mapping for {kind}.{api_version}")
    return info


def _scope(info: KindInfo, namespace: str) -> str | None:
    return namespace if info.namespaced else None


def _owner_ref_json(ref: OwnerRef, *, block: bool) -> JSON:
    raw: JSON = {"apiVersion": ref.api_version, "kind": ref.kind, "name": ref.name, "uid": ref.uid}
    if ref.controller:
        raw["controller"] = True
    raw["blockOwnerDeletion"] = block
    return raw


def _is(err: ApiError, *codes: int) -> bool:
    return err.status in codes


class GcOperations:
    """Applies actions through ``api``; events go through ``recorder``."""

    def __init__(
        self,
        api: ControllerApi,
        recorder: EventRecorder,
        mapping: Callable[[], KindMapping] = lambda: _REGISTRY,
    ) -> None:
        """``mapping`` gives the current REST mapping (the controller's latest discovery)."""
        self._api = api
        self._recorder = recorder
        self._mapping = mapping

    def _kind(self, api_version: str, kind: str) -> KindInfo:
        return _resolve(self._mapping(), api_version, kind)

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> JSON | None:
        """The live object at those coordinates, or None when there is none."""
        info = self._kind(api_version, kind)
        try:
            return await self._api.get(info, _scope(info, namespace), name)
        except ApiError as err:
            if _is(err, 404):
                return None
            raise

    async def apply_all(self, actions: Sequence[Action], nodes: Mapping[str, Node]) -> None:
        """Perform ``actions`` in order (``nodes``: the graph they were planned on); the
        first failure raises. A delete that follows the unblocking of the same object is
        sent with the resourceVersion and ownerReferences that patch produced."""
        written: dict[str, Node] = {}
        for action in actions:
            if isinstance(action, DeleteObject):
                decided = written.get(action.ref.uid) or nodes.get(action.ref.uid)
                if decided is not None and action.ref.uid in written:
                    action = replace(action, precondition_resource_version=decided.resource_version)
                await self._delete(action, decided.owner_references if decided else ())
            elif isinstance(action, RemoveOwnerReferences):
                await self._remove_owner_references(action)
            elif isinstance(action, UnblockOwnerReferences):
                node = nodes.get(action.ref.uid)
                after = await self._unblock(node) if node is not None else None
                if after is not None:
                    written[after.ref.uid] = after
            elif isinstance(action, RemoveFinalizer):
                await self._remove_finalizer(action.ref, action.finalizer)
            else:
                await self._record(action)

    # -- delete -----------------------------------------------------------------------

    async def _delete(self, action: DeleteObject, owners: tuple[OwnerRef, ...]) -> None:
        ref = action.ref
        try:
            await self._send_delete(action, action.precondition_resource_version)
            return
        except ApiError as err:
            if _is(err, 404):
                return
            if not _is(err, 409):
                raise
            conflict = err
        live = await self.get(ref.api_version, ref.kind, ref.namespace, ref.name)
        current = node_from_object(live) if live is not None else None
        if current is None or current.ref.uid != action.precondition_uid:
            return  # gone, or re-created under the same name: not ours to delete
        if action.precondition_resource_version is None or current.owner_references != owners:
            raise conflict  # the decision is stale: replan on the next event
        try:
            await self._send_delete(action, None)
        except ApiError as err:
            if not _is(err, 404):
                raise

    async def _send_delete(self, action: DeleteObject, resource_version: str | None) -> None:
        ref = action.ref
        info = self._kind(ref.api_version, ref.kind)
        namespace = _scope(info, ref.namespace)
        await self._api.delete(
            info,
            namespace,
            ref.name,
            propagation=action.propagation,
            preconditions=Preconditions(action.precondition_uid, resource_version),
        )

    # -- ownerReferences --------------------------------------------------------------

    async def _patch(
        self, ref: ObjectRef, strategic: JSON, merge_owners: _OwnersEdit
    ) -> JSON | None:
        """The object as patched; None when it is gone or was re-created."""
        info = self._kind(ref.api_version, ref.kind)
        namespace = _scope(info, ref.namespace)
        try:
            return await self._api.patch(
                info, namespace, ref.name, strategic, content_type=STRATEGIC_MERGE_PATCH
            )
        except ApiError as err:
            if _is(err, 404):
                return None
            if not _is(err, 415):
                raise
        live = await self.get(ref.api_version, ref.kind, ref.namespace, ref.name)
        if live is None:
            return None
        meta = live.get("metadata") or {}
        if meta.get("uid") != ref.uid:
            return None
        refs = [dict(o) for o in meta.get("ownerReferences") or ()]
        patch = {
            "metadata": {
                "resourceVersion": meta.get("resourceVersion"),
                "ownerReferences": merge_owners(refs),
            }
        }
        return await self._api.patch(info, namespace, ref.name, patch, content_type=MERGE_PATCH)

    async def _remove_owner_references(self, action: RemoveOwnerReferences) -> None:
        removed = set(action.owner_uids)
        pieces = [{"$patch": "delete", "uid": uid} for uid in action.owner_uids]
        strategic = {"metadata": {"ownerReferences": pieces, "uid": action.ref.uid}}

        def keep(refs: list[JSON]) -> list[JSON]:
            return [o for o in refs if o.get("uid") not in removed]

        await self._patch(action.ref, strategic, keep)

    async def _unblock(self, node: Node) -> Node | None:
        blocking = [o for o in node.owner_references if o.block_owner_deletion]
        if not blocking:
            return None
        refs = [_owner_ref_json(o, block=False) for o in blocking]
        strategic = {"metadata": {"ownerReferences": refs, "uid": node.ref.uid}}

        def unblock(refs: list[JSON]) -> list[JSON]:
            return [{**o, "blockOwnerDeletion": False} for o in refs]

        patched = await self._patch(node.ref, strategic, unblock)
        return node_from_object(patched) if patched is not None else None

    # -- finalizers and events --------------------------------------------------------

    async def _remove_finalizer(self, ref: ObjectRef, finalizer: str) -> None:
        info = self._kind(ref.api_version, ref.kind)
        for _ in range(_FINALIZER_ATTEMPTS):
            live = await self.get(ref.api_version, ref.kind, ref.namespace, ref.name)
            meta = (live or {}).get("metadata") or {}
            finalizers = list(meta.get("finalizers") or ())
            if live is None or meta.get("uid") != ref.uid or finalizer not in finalizers:
                return
            remaining = [f for f in finalizers if f != finalizer]
            patch = {
                "metadata": {
                    "resourceVersion": meta.get("resourceVersion"),
                    "finalizers": remaining,
                }
            }
            try:
                await self._api.patch(
                    info, _scope(info, ref.namespace), ref.name, patch, content_type=MERGE_PATCH
                )
                return
            except ApiError as err:
                if _is(err, 404):
                    return
                if not _is(err, 409):
                    raise
        raise RuntimeError(
            f"updateMaxRetries({_FINALIZER_ATTEMPTS}) has reached. The garbage collector "
            f"will retry later for owner {ref}"
        )

    async def _record(self, event: Event) -> None:
        ref = event.ref
        involved = {
            "apiVersion": ref.api_version,
            "kind": ref.kind,
            "metadata": {"name": ref.name, "namespace": ref.namespace, "uid": ref.uid},
        }
        await self._recorder.record(involved, event.type, event.reason, event.message)
