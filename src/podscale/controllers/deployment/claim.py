"""Adopting and releasing ReplicaSets: which ReplicaSets a Deployment controls (I/O shell).

Upstream's ``ReplicaSetControllerRefManager.ClaimReplicaSets`` with
``RecheckDeletionTimestamp`` (pkg/controller/controller_ref_manager.go), as the Deployment
controller uses it in ``getReplicaSetsForDeployment``: a ReplicaSet controlled by the
Deployment is kept while its labels match the selector and released once they stop
matching; an orphan that matches is adopted, but only after a fresh (uncached) read shows
the Deployment still exists with the same uid and is not being deleted. Neither adoption
nor release happens while the Deployment is being deleted. The loop, the ownership rules
and the errors are the ReplicaSet controller's for its pods (``runtime_pods.claim_objects``,
``replicaset.ownership.claim_action``); only the ownerReference names a Deployment. Used by
``deployment.strategies.sync_claimed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_pods import claim_objects

__all__ = ["claim_replica_sets", "deployment_controller_ref"]

JSON = dict[str, Any]
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


async def claim_replica_sets(
    api: ControllerApi, deployment: Mapping[str, Any], replica_sets: list[JSON]
) -> list[JSON]:
    """The ReplicaSets ``deployment`` controls after adoption and release (adopted ones
    as returned by the patch): ``ClaimReplicaSets``, the same ``ClaimObject`` loop as the
    ReplicaSet controller's pods (``runtime_pods.claim_objects``)."""
    ref = deployment_controller_ref(deployment)
    return await claim_objects(api, deployment, ref, replica_sets, REPLICA_SET)
