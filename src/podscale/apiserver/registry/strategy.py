"""Upstream REST strategies: what a write may change, before defaulting and validation.

kube-apiserver's per-kind ``PrepareForCreate``/``PrepareForUpdate`` of the main and the
``status`` strategies, with the generic registry's ``BeforeUpdate`` around them:

- generation is the server's: the kinds of ``generation.GENERATION_ON_SPEC`` start it at
  1 here, ``generation.update_generation`` bumps it; every other kind keeps whatever it has.
  The store persists the value decided here.
- status is owned by the status subresource (reset on create for workloads and HPAs; a new
  Pod starts ``Pending`` with its QoS class (``pod_qos.pod_qos_class``), a new Namespace
  ``Active`` with the ``kubernetes`` finalizer, which only ``namespaces/finalize`` changes
  later); a status write keeps the stored spec, and per kind some metadata (Deployment
  labels; Pod owner references and deletion timestamp).
- uid (when left out), creationTimestamp and a set deletionTimestamp or grace period are
  the stored ones; a deletionTimestamp set by an update is refused by validation (pods/status
  drops it). ``keep_equal_timestamps`` treats a re-rendered instant (``+00:00`` for ``Z``)
  as the same value for callers that compare timestamps themselves.

Called by ``operations`` (create/update/patch) and ``operations.subresources`` (status and
scale writes); ``admission`` does the rest of the write pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.service_fields import prepare_service_create, prepare_service_update
from podscale.apiserver.registry.generation import GENERATION_ON_SPEC, update_generation
from podscale.apiserver.registry.pod_qos import pod_qos_class

__all__ = [
    "keep_equal_timestamps",
    "prepare_for_create",
    "prepare_for_finalize",
    "prepare_for_status_update",
    "prepare_for_update",
]

JSON = dict[str, Any]

# Kinds whose status is owned by the status subresource (upstream strategies reset it).
_STATUS_RESET_ON_CREATE: Final = frozenset(
    {"HorizontalPodAutoscaler", "ReplicaSet", "Deployment", "StatefulSet"}
    | {"Service", "PodDisruptionBudget", "CustomResourceDefinition"}
)
_STATUS_KEPT_ON_UPDATE: Final = frozenset(
    {
        "HorizontalPodAutoscaler",
        "ReplicaSet",
        "Deployment",
        "StatefulSet",
        "Pod",
        "Node",
        "Namespace",
        "Service",
        "PodDisruptionBudget",
        "CustomResourceDefinition",
    }
)
# The finalizer the namespace controller removes once a namespace's content is gone.
_KUBERNETES_FINALIZER: Final = "kubernetes"
# Metadata a status write takes from the stored object (besides the generic BeforeUpdate
# fields); every other kind's status strategy only keeps the spec.
_STATUS_KEEPS_METADATA: Final[Mapping[str, tuple[str, ...]]] = {
    "Deployment": ("labels",),
    "Pod": ("ownerReferences",),
    # The CRD status strategy: a status write changes status only, not labels or owners.
    "CustomResourceDefinition": ("labels", "annotations", "ownerReferences"),
}


def prepare_for_create(obj: JSON) -> None:
    """Upstream ``PrepareForCreate``: a new workload or HPA starts with an empty status, a new
    Pod with ``{phase: Pending, qosClass}``; workloads and Pods start at generation 1."""
    if obj.get("kind") in _STATUS_RESET_ON_CREATE:
        obj.pop("status", None)
    elif obj.get("kind") == "Pod":
        obj["status"] = {"phase": "Pending", "qosClass": pod_qos_class(obj.get("spec"))}
    elif obj.get("kind") == "Namespace":
        _prepare_namespace_for_create(obj)
    metadata = obj["metadata"]
    # Server-owned metadata is never taken from a create request.
    for key in ("uid", "creationTimestamp", "deletionTimestamp", "selfLink"):
        metadata.pop(key, None)
    if obj.get("kind") in GENERATION_ON_SPEC:
        metadata["generation"] = 1
    if obj.get("kind") == "Service":
        prepare_service_create(obj)
    if obj.get("kind") == "CustomResourceDefinition":
        _record_storage_version(obj)


def _prepare_namespace_for_create(obj: JSON) -> None:
    """Upstream's namespace ``PrepareForCreate``: a new namespace is Active, and its
    ``spec.finalizers`` always holds ``kubernetes`` (appended to any others), so the
    namespace controller empties it before it goes. Not a default: /finalize may drop it."""
    obj["status"] = {"phase": "Active"}
    spec = obj.setdefault("spec", {})
    if spec is None:
        spec = obj["spec"] = {}
    if not isinstance(spec, dict):
        return  # the wrong JSON type: admission refuses it next
    finalizers = spec.get("finalizers")
    if finalizers is None:
        spec["finalizers"] = [_KUBERNETES_FINALIZER]
    elif isinstance(finalizers, list) and _KUBERNETES_FINALIZER not in finalizers:
        finalizers.append(_KUBERNETES_FINALIZER)


def prepare_for_finalize(obj: JSON, old: JSON) -> None:
    """Upstream ``BeforeUpdate`` + the namespace finalize strategy: ``namespaces/finalize``
    writes the spec (its finalizers) and metadata; the status is the stored one."""
    _before_update(obj["metadata"], old.get("metadata") or {})
    if "status" in old:
        obj["status"] = copy_json(old["status"])
    else:
        obj.pop("status", None)


def _keep(metadata: JSON, old_metadata: Mapping[str, Any], key: str) -> None:
    if key in old_metadata:
        metadata[key] = copy_json(old_metadata[key])
    else:
        metadata.pop(key, None)


def _before_update(metadata: JSON, old_metadata: Mapping[str, Any]) -> None:
    """The generic registry's ``BeforeUpdate``: generation, uid (when left out), the
    creation timestamp and a set deletion timestamp or grace period are the stored ones."""
    _keep(metadata, old_metadata, "generation")
    if not metadata.get("uid") and old_metadata.get("uid"):
        metadata["uid"] = old_metadata["uid"]
    if old_metadata.get("creationTimestamp"):
        metadata["creationTimestamp"] = old_metadata["creationTimestamp"]
    if old_metadata.get("deletionTimestamp"):
        metadata["deletionTimestamp"] = old_metadata["deletionTimestamp"]
    grace = old_metadata.get("deletionGracePeriodSeconds")
    if grace is not None and metadata.get("deletionGracePeriodSeconds") is None:
        metadata["deletionGracePeriodSeconds"] = grace


def prepare_for_update(obj: JSON, old: JSON) -> None:
    """Upstream ``BeforeUpdate`` + ``PrepareForUpdate`` of the main resource: status changes
    only through the status subresource, and generation follows the kind's rule."""
    _before_update(obj["metadata"], old.get("metadata") or {})
    if obj.get("kind") in _STATUS_KEPT_ON_UPDATE:
        if "status" in old:
            obj["status"] = copy_json(old["status"])
        else:
            obj.pop("status", None)
    spec = obj.get("spec")
    if obj.get("kind") == "Namespace" and isinstance(spec, dict):
        # Namespace finalizers change only through /finalize (``prepare_for_finalize``).
        old_finalizers = (old.get("spec") or {}).get("finalizers")
        if old_finalizers is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = copy_json(old_finalizers)
    if obj.get("kind") == "Service":
        prepare_service_update(obj, old)
    if obj.get("kind") == "CustomResourceDefinition":
        _record_storage_version(obj)
    update_generation(obj, old)


def _record_storage_version(obj: JSON) -> None:
    """The CRD strategies' bookkeeping: the storage version is added to
    ``status.storedVersions`` (never removed: only a status write may drop one, once no
    object is stored in it any more), so every version objects may be stored in is known."""
    versions = (
        (obj.get("spec") or {}).get("versions") if isinstance(obj.get("spec"), dict) else None
    )
    if not isinstance(versions, list):
        return  # the wrong shape: validation refuses it next
    storage = next(
        (v.get("name") for v in versions if isinstance(v, dict) and v.get("storage") is True),
        None,
    )
    if not isinstance(storage, str):
        return
    status = obj.get("status")
    if not isinstance(status, dict):
        status = obj["status"] = {}
    stored = status.get("storedVersions")
    if not isinstance(stored, list):
        stored = status["storedVersions"] = []
    if storage not in stored:
        stored.append(storage)


def prepare_for_status_update(obj: JSON, old: JSON) -> None:
    """Upstream ``BeforeUpdate`` + the kind's status strategy ``PrepareForUpdate``.

    Every status write keeps the stored spec (so generation never moves). Deployments also
    keep their labels, Pods their owner references and deletion timestamp (a kubelet can
    never set one), their QoS class and observed generations when the write leaves them
    out. Annotations and finalizers change freely: the Deployment controller writes its
    revision annotation this way.
    """
    metadata = obj["metadata"]
    old_metadata = old.get("metadata") or {}
    if obj.get("kind") == "Pod":
        metadata.pop("deletionTimestamp", None)
    _before_update(metadata, old_metadata)
    if "spec" in old:
        obj["spec"] = copy_json(old["spec"])
    else:
        obj.pop("spec", None)
    for key in _STATUS_KEEPS_METADATA.get(str(obj.get("kind")), ()):
        _keep(metadata, old_metadata, key)
    status, old_status = obj.get("status"), old.get("status")
    if obj.get("kind") == "Pod" and isinstance(status, dict) and isinstance(old_status, dict):
        _keep_pod_status_fields(status, old_status)


def _keep_pod_status_fields(status: JSON, old_status: Mapping[str, Any]) -> None:
    """``qosClass`` is immutable and old kubelets drop it; an observedGeneration left out
    (of the status or of a condition, matched per type in order) is the stored one."""
    for key in ("qosClass", "observedGeneration"):
        if not status.get(key) and old_status.get(key):
            status[key] = old_status[key]
    # Values of the wrong shape are left for the type check to refuse (a 422, not a crash).
    remembered: dict[str, list[Any]] = {}
    for condition in _conditions(old_status):
        remembered.setdefault(condition["type"], []).append(condition.get("observedGeneration"))
    for condition in _conditions(status):
        queue = remembered.get(condition["type"])
        old_generation = queue.pop(0) if queue else None
        if not condition.get("observedGeneration") and old_generation:
            condition["observedGeneration"] = old_generation


def _conditions(status: Mapping[str, Any]) -> list[JSON]:
    """The conditions with a string type, when ``conditions`` is a list."""
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        return []
    return [c for c in conditions if isinstance(c, dict) and isinstance(c.get("type"), str)]


def _instant(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def keep_equal_timestamps(metadata: JSON, old_metadata: JSON) -> None:
    """Clients re-render timestamps (the Python client sends ``+00:00`` for ``Z``); upstream
    compares parsed times, so the same instant is the same value, not an immutable change."""
    for key in ("creationTimestamp", "deletionTimestamp"):
        new, old = metadata.get(key), old_metadata.get(key)
        if new != old and _instant(new) is not None and _instant(new) == _instant(old):
            metadata[key] = old
