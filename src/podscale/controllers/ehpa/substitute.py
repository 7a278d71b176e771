"""The Substitute a Preview EffectiveHorizontalPodAutoscaler's HPA scales instead of the
workload, kept as Crane keeps it.

``wanted_substitute`` is the object Crane creates (``ehpa-<name>``, the EHPA's labels and
controller reference, ``spec.substituteTargetRef`` the EHPA's target, ``spec.replicas``
the target's replicas at creation); ``reconcile_substitute`` creates it, points it at the
EHPA's target again when that changed, and keeps its status as Crane's substitute
controller does: ``labelSelector`` the target's pod selector (from its ``/scale``), so
the HPA reads the workload's pods, and ``replicas`` equal to ``spec.replicas``, what the
HPA last asked for. ``controller`` calls it on every Preview sync.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.client.http import ApiError
from podscale.controllers.ehpa import decisions
from podscale.controllers.ehpa.kind import EHPA, GROUP, SUBSTITUTE
from podscale.controllers.ehpa.types import EhpaSpec
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import meta

__all__ = ["reconcile_substitute", "wanted_substitute"]

JSON = dict[str, Any]


def wanted_substitute(obj: Mapping[str, Any], spec: EhpaSpec, scale: Mapping[str, Any]) -> JSON:
    name = decisions.generated_name(str(meta(obj).get("name") or ""))
    return {
        "apiVersion": f"{GROUP}/{EHPA.version}",
        "kind": SUBSTITUTE.kind,
        "metadata": {
            "name": name,
            "namespace": meta(obj).get("namespace"),
            "labels": decisions.owned_labels(obj),
            "ownerReferences": [decisions.owner_reference(obj)],
        },
        "spec": {
            "substituteTargetRef": spec.target.to_json(),
            "replicas": int((scale.get("spec") or {}).get("replicas") or 0),
        },
    }


async def reconcile_substitute(
    api: ControllerApi, obj: Mapping[str, Any], spec: EhpaSpec, scale: Mapping[str, Any]
) -> bool:
    """Create or update the Substitute and its status; True when it was created."""
    wanted = wanted_substitute(obj, spec, scale)
    namespace = str(meta(obj).get("namespace"))
    name = str(wanted["metadata"]["name"])
    created = False
    try:
        current = await api.get(SUBSTITUTE, namespace, name)
    except ApiError as err:
        if err.status != 404:
            raise
        current = await api.create(SUBSTITUTE, namespace, wanted)
        created = True
    target = wanted["spec"]["substituteTargetRef"]
    if (current.get("spec") or {}).get("substituteTargetRef") != target:
        current = {
            **current,
            "spec": {**(current.get("spec") or {}), "substituteTargetRef": target},
        }
        current = await api.update(SUBSTITUTE, namespace, current)
    status = {
        "labelSelector": str((scale.get("status") or {}).get("selector") or ""),
        "replicas": int((current.get("spec") or {}).get("replicas") or 0),
    }
    if (current.get("status") or {}) != status:
        await api.update(SUBSTITUTE, namespace, {**current, "status": status}, "status")
    return created
