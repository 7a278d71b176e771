"""What ``ReplicaSetController.reconcile`` reads from the listers and writes as status.

The sync's lister reads and its status write, apart from the informer wiring and the
create/delete loop of ``replicaset.controller``: ``claim_candidates`` narrows a namespace's
pods to those the claim (``controllers.runtime_pods.claim_pods``) can act on, through the
caches' label and controller indexes; ``related_pods`` is upstream's
``getIndirectlyRelatedPods`` for the deletion ranking of ``decisions.plan_replicas``;
``update_replica_set_status`` writes what ``status.replica_set_status`` computed through
the ``status`` subresource, with upstream's one retry on a fresh copy. Pod I/O lives in
``controllers.runtime_pods``.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.kinds import kind_for
from podscale.api.selectors import Selector, selector_from_label_selector
from podscale.client.cache import CONTROLLER_INDEX, Lister, object_key
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import controller_ref_of, meta, namespace_of

__all__ = ["claim_candidates", "related_pods", "update_replica_set_status"]

_REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
# Upstream's statusUpdateRetries: one retry on a fresh copy after a failed status write.
_STATUS_UPDATE_RETRIES: Final = 1

JSON = dict[str, Any]


def claim_candidates(
    pod_lister: Lister, namespace: str, selector: Selector, uid: str
) -> list[JSON]:
    """The pods of ``namespace`` the claim can act on, ordered by key: those the selector
    matches (adoptable, or already ours) and those this ReplicaSet controls (kept, or
    released when they no longer match). Every other pod is left alone by the claim, so
    upstream's list of the whole namespace is narrowed to these through the caches'
    label and controller indexes (a namespace of many ReplicaSets made each sync scan all
    their pods)."""
    found = {object_key(pod): pod for pod in pod_lister.list(namespace, selector)}
    if uid:
        for pod in pod_lister.by_index(CONTROLLER_INDEX, uid):
            if (meta(pod).get("namespace") or "") == namespace:
                found.setdefault(object_key(pod), pod)
    return [found[key] for key in sorted(found)]


def related_pods(rs: JSON, rs_lister: Lister, pod_lister: Lister) -> list[JSON]:
    """Upstream's ``getIndirectlyRelatedPods``: the pods selected by every ReplicaSet
    under the same controller (this one included), each once. A ReplicaSet without a
    controller has none, so the same-node rank is 0 for all its pods, as upstream."""
    owner = controller_ref_of(rs)
    if owner is None:
        return []
    namespace = namespace_of(rs)
    related: dict[str, JSON] = {}
    for other in rs_lister.list(namespace):
        ref = controller_ref_of(other)
        if ref is None or ref.get("uid") != owner.get("uid"):
            continue
        try:
            selector = selector_from_label_selector((other.get("spec") or {}).get("selector"))
        except ValueError:
            continue  # an invalid selector matches no pods
        for pod in pod_lister.list(namespace, selector):
            related.setdefault(str(meta(pod).get("uid")), pod)
    return list(related.values())


async def update_replica_set_status(api: ControllerApi, rs: JSON, status: JSON) -> JSON:
    """Upstream's ``updateReplicaSetStatus``: write ``status`` through the status
    subresource unless ``rs`` already has it; after a failed write, read the ReplicaSet
    afresh and write once more (``statusUpdateRetries``), without comparing again. Returns
    the ReplicaSet as written (or ``rs`` when nothing was written); raises the last error.
    """
    if (rs.get("status") or {"replicas": 0}) == status:
        return rs
    current = rs
    for attempt in range(_STATUS_UPDATE_RETRIES + 1):
        body = copy_json(current)
        body["status"] = status
        try:
            return await api.update(_REPLICA_SET, namespace_of(current), body, "status")
        except ApiError:
            if attempt >= _STATUS_UPDATE_RETRIES:
                raise
        # A failed read is the more interesting error; it propagates as is.
        current = await api.get(_REPLICA_SET, namespace_of(rs), str(meta(rs).get("name")))
    raise AssertionError("unreachable: the last attempt returns or raises")
