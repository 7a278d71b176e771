"""Upstream REST strategies: what a create or update may change, before defaulting/validation.

kube-apiserver's per-kind ``PrepareForCreate``/``PrepareForUpdate``: status is owned by the
status subresource (reset on create for workloads and HPAs; a new Pod starts ``Pending`` with
its QoS class), generation and the other server-owned metadata are the server's, and a
timestamp re-rendered by a client (``+00:00`` for ``Z``) is the same value. Called by
``operations`` and ``operations_subresources``; ``admission`` does the rest of the write
pipeline.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any, Final

from podscale.api import QuantityError, parse_quantity

__all__ = ["keep_equal_timestamps", "pod_qos_class", "prepare_for_create", "prepare_for_update"]

JSON = dict[str, Any]

# Kinds whose status is owned by the status subresource (upstream strategies reset it).
_STATUS_RESET_ON_CREATE: Final = frozenset(
    {"HorizontalPodAutoscaler", "ReplicaSet", "Deployment", "StatefulSet"}
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
    }
)


def prepare_for_create(obj: JSON) -> None:
    """Upstream ``PrepareForCreate``: a new workload or HPA starts with an empty status, a new
    Pod with ``{phase: Pending, qosClass}``."""
    if obj.get("kind") in _STATUS_RESET_ON_CREATE:
        obj.pop("status", None)
    elif obj.get("kind") == "Pod":
        obj["status"] = {"phase": "Pending", "qosClass": pod_qos_class(obj.get("spec"))}
    metadata = obj["metadata"]
    # Server-owned metadata is never taken from a create request.
    for key in ("uid", "creationTimestamp", "generation", "deletionTimestamp", "selfLink"):
        metadata.pop(key, None)


def prepare_for_update(obj: JSON, old: JSON) -> None:
    """Upstream ``PrepareForUpdate``: status changes only through the status subresource, and
    generation is the server's (the store bumps it on spec changes)."""
    keep_equal_timestamps(obj["metadata"], old.get("metadata") or {})
    old_generation = (old.get("metadata") or {}).get("generation")
    if old_generation is None:
        obj["metadata"].pop("generation", None)
    else:
        obj["metadata"]["generation"] = old_generation
    if obj.get("kind") in _STATUS_KEPT_ON_UPDATE:
        if "status" in old:
            obj["status"] = copy.deepcopy(old["status"])
        else:
            obj.pop("status", None)
    spec = obj.get("spec")
    if obj.get("kind") == "Namespace" and isinstance(spec, dict):
        # Namespace finalizers change only through /finalize, which podscale does not serve.
        old_finalizers = (old.get("spec") or {}).get("finalizers")
        if old_finalizers is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = copy.deepcopy(old_finalizers)


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


_QOS_RESOURCES: Final = ("cpu", "memory")


def _nonzero(resources: Any) -> dict[str, Any]:
    """The cpu/memory entries of a requests/limits map that parse and are not zero."""
    out: dict[str, Any] = {}
    if not isinstance(resources, dict):
        return out
    for name in _QOS_RESOURCES:
        try:
            quantity = parse_quantity(resources[name]) if name in resources else None
        except (QuantityError, TypeError, ValueError):
            quantity = None
        if quantity is not None and not quantity.is_zero():
            out[name] = quantity
    return out


def pod_qos_class(spec: Any) -> str:
    """Upstream ``GetPodQOS``: BestEffort without any cpu/memory request or limit,
    Guaranteed when every container limits both and requests equal limits, else Burstable."""
    containers: list[JSON] = []
    if isinstance(spec, dict):
        for key in ("containers", "initContainers"):
            containers.extend(c for c in spec.get(key) or [] if isinstance(c, dict))
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        container_requests = _nonzero(
            resources.get("requests") if isinstance(resources, dict) else None
        )
        container_limits = _nonzero(
            resources.get("limits") if isinstance(resources, dict) else None
        )
        for name, quantity in container_requests.items():
            requests[name] = requests[name] + quantity if name in requests else quantity
        for name, quantity in container_limits.items():
            limits[name] = limits[name] + quantity if name in limits else quantity
        if set(container_limits) != set(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if (
        guaranteed
        and set(requests) == set(limits)
        and all(requests[n] == limits[n] for n in limits)
    ):
        return "Guaranteed"
    return "Burstable"
