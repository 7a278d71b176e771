"""Adopting and releasing ReplicaSets: which ReplicaSets a Deployment controls (I/O shell).

Upstream's ``ReplicaSetControllerRefManager.ClaimReplicaSets`` with
``RecheckDeletionTimestamp`` (pkg/controller/controller_ref_manager.go), as the Deployment
controller uses it in ``getReplicaSetsForDeployment``: a ReplicaSet controlled by the
Deployment is kept while its labels match the selector and released once they stop
matching; an orphan that matches is adopted, but only after a fresh (uncached) read shows
the Deployment still exists with the same uid and is not being deleted. Neither adoption
nor release happens while the Deployment is being deleted. The ownership rules are the
ReplicaSet controller's (``replicaset.ownership.claim_action``, generic over the owner);
only the patches differ, naming a Deployment. Used by ``deployment.controller``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.replicaset.ownership import claim_action
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi

__all__ = ["claim_replica_sets", "deployment_controller_ref"]

JSON = dict[str, Any]
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def deployment_controller_ref(deployment: Mapping[str, Any]) -> JSON:
    """The ownerReference a Deployment puts on its ReplicaSets (``metav1.NewControllerRef``)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": _meta(deployment).get("name", ""),
        "uid": _meta(deployment).get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


async def _recheck(api: ControllerApi, deployment: Mapping[str, Any]) -> Exception | None:
    """``RecheckDeletionTimestamp``: adoption is refused unless a fresh read agrees."""
    namespace = str(_meta(deployment).get("namespace") or "")
    name = str(_meta(deployment).get("name", ""))
    try:
        fresh = await api.get(DEPLOYMENT, namespace, name)
    except ApiError as err:
        return RuntimeError(f"can't recheck DeletionTimestamp: {err}")
    fresh_uid, uid = _meta(fresh).get("uid"), _meta(deployment).get("uid")
    if fresh_uid != uid:
        return RuntimeError(
            "can't recheck DeletionTimestamp: original Deployment "
            f"{namespace}/{name} is gone: got uid {fresh_uid}, wanted {uid}"
        )
    if _meta(fresh).get("deletionTimestamp"):
        return RuntimeError(f"{namespace}/{name} has just been deleted")
    return None


def _patch_for(action: str, deployment: Mapping[str, Any], rs: Mapping[str, Any]) -> JSON:
    # The uid in the patch is a precondition: a recreated ReplicaSet is never touched.
    if action == "adopt":
        refs: list[JSON] = [deployment_controller_ref(deployment)]
    else:
        refs = [{"$patch": "delete", "uid": _meta(deployment).get("uid", "")}]
    return {"metadata": {"ownerReferences": refs, "uid": _meta(rs).get("uid", "")}}


async def claim_replica_sets(
    api: ControllerApi, deployment: Mapping[str, Any], replica_sets: list[JSON]
) -> list[JSON]:
    """The ReplicaSets ``deployment`` controls after adoption and release (adopted ones
    as returned by the patch). Every ReplicaSet is tried; then the first error is raised,
    as ``ClaimReplicaSets`` returns an aggregate. A ReplicaSet gone meanwhile is skipped."""
    claimed: list[JSON] = []
    errors: list[Exception] = []
    recheck: Exception | bool | None = False  # False: not rechecked yet
    for rs in replica_sets:
        action = claim_action(deployment, rs)
        if action == "keep":
            claimed.append(rs)
            continue
        if action == "ignore":
            continue
        if action == "adopt":
            if recheck is False:
                recheck = await _recheck(api, deployment)
            if isinstance(recheck, Exception):
                errors.append(recheck)
                continue
        meta = _meta(rs)
        try:
            patched = await api.patch(
                REPLICA_SET,
                str(meta.get("namespace") or ""),
                str(meta.get("name", "")),
                _patch_for(action, deployment, rs),
                content_type=STRATEGIC_MERGE_PATCH,
            )
        except ApiError as err:
            # Gone, or its uid changed (422 on the precondition): nothing to claim.
            if err.status not in (404, 422):
                errors.append(err)
            continue
        if action == "adopt":
            claimed.append(patched)
    if errors:
        raise errors[0]
    return claimed
