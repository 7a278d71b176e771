"""The IHPA controller's writes: its status and the ReplicaProfile it keeps.

``controller.IhpaController`` reads an IHPA and lets ``reconcile.decide`` choose; these
functions do the API calls that follow. ``existing_profile`` reads the ReplicaProfile
named as the IHPA into a ``reconcile.Existing`` (None when absent); ``write_profile``
creates it (the IHPA its controller owner with ``blockOwnerDeletion``, so the garbage
collector removes it), merge-patches its spec, or deletes it (a 404 is fine), as the
decision's ``rp_action`` says; ``write_status`` merge-patches the ``status`` subresource
with ``status_json`` only when it changed, clearing fields no longer present.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.client.http import ApiError
from podscale.controllers.kapacity import reconcile as decision
from podscale.controllers.kapacity.gray import ReplicaSplit
from podscale.controllers.kapacity.ihpa_status import IhpaStatus
from podscale.controllers.kapacity.kind import IHPA, REPLICA_PROFILE
from podscale.controllers.kapacity.reading import JSON
from podscale.controllers.kapacity.types import Ihpa
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import meta

__all__ = ["existing_profile", "status_json", "write_profile", "write_status"]

_MERGE_PATCH: Final = "application/merge-patch+json"


def status_json(status: IhpaStatus) -> JSON:
    """``status`` in Kapacity's field names; absent parts are omitted."""
    body: JSON = {}
    if status.previous is not None:
        body["previousPortraitValue"] = status.previous.to_json()
    if status.current is not None:
        body["currentPortraitValue"] = status.current.to_json()
    if status.gray is not None:
        body["gray"] = status.gray.to_json()
    if status.conditions:
        body["conditions"] = [c.to_json() for c in status.conditions]
    return body


async def existing_profile(api: ControllerApi, ihpa: Ihpa) -> decision.Existing | None:
    try:
        found = await api.get(REPLICA_PROFILE, ihpa.namespace, ihpa.name)
    except ApiError as err:
        if err.status == 404:
            return None
        raise
    spec: Mapping[str, Any] = found.get("spec") or {}
    split = ReplicaSplit(
        int(spec.get("onlineReplicas") or 0),
        int(spec.get("cutoffReplicas") or 0),
        int(spec.get("standbyReplicas") or 0),
    )
    return decision.Existing(split, spec)


async def write_profile(
    api: ControllerApi, obj: JSON, ihpa: Ihpa, chosen: decision.Decision
) -> None:
    if chosen.rp_action == "create":
        owner = {
            "apiVersion": obj.get("apiVersion"),
            "kind": IHPA.kind,
            "name": ihpa.name,
            "uid": meta(obj).get("uid"),
            "controller": True,
            "blockOwnerDeletion": True,
        }
        body = {
            "apiVersion": f"{REPLICA_PROFILE.group}/{REPLICA_PROFILE.version}",
            "kind": REPLICA_PROFILE.kind,
            "metadata": {
                "name": ihpa.name,
                "namespace": ihpa.namespace,
                "ownerReferences": [owner],
            },
            "spec": chosen.rp_spec,
        }
        await api.create(REPLICA_PROFILE, ihpa.namespace, body)
    elif chosen.rp_action == "patch":
        await api.patch(
            REPLICA_PROFILE,
            ihpa.namespace,
            ihpa.name,
            {"spec": chosen.rp_spec},
            content_type=_MERGE_PATCH,
        )
    elif chosen.rp_action == "delete":
        try:
            await api.delete(REPLICA_PROFILE, ihpa.namespace, ihpa.name)
        except ApiError as err:
            if err.status != 404:
                raise


async def write_status(api: ControllerApi, obj: JSON, status: IhpaStatus) -> None:
    body = status_json(status)
    old = obj.get("status") or {}
    if old == body:
        return
    patch: JSON = {key: None for key in old if key not in body}
    patch.update(body)
    try:
        await api.patch(
            IHPA,
            meta(obj).get("namespace"),
            str(meta(obj).get("name")),
            {"status": patch},
            content_type=_MERGE_PATCH,
            subresource="status",
        )
    except ApiError as err:
        if err.status != 404:
            raise
