"""The Deployment's new ReplicaSet: finding it synced, or creating it (I/O shell).

Upstream's ``getNewReplicaSet`` (``sync.go``). An existing new ReplicaSet gets the
Deployment's annotations, the next revision (``revisions.new_replica_set_annotations``)
and its ``minReadySeconds``; then the Deployment records that revision and, the first
time, Progressing/FoundNewReplicaSet. A missing one is created as
``<deployment>-<pod-template-hash>`` with the hash label on its labels, selector and pod
template, a controller ownerReference, the revision and replicas annotations, and the size
``rollout.new_replica_set_replicas`` allows; that is a ScalingReplicaSet event
("Scaled up replica set <name> from 0 to <n>") and Progressing/NewReplicaSetCreated.
A name taken by a ReplicaSet this Deployment controls with an equal template is that
ReplicaSet (a slow cache); taken by anything else it is a hash collision:
``status.collisionCount`` goes up and the error requeues the sync, which then hashes
differently. Other failures set Progressing False/ReplicaSetCreateError and a Warning
event, except in a terminating namespace. Works on a ``sync.DeploymentSync``; called by
``strategies`` only.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping
from typing import Any, Final

from podscale.client.http import ApiError
from podscale.controllers.deployment import conditions as cond
from podscale.controllers.deployment.claim import deployment_controller_ref
from podscale.controllers.deployment.hashing import (
    POD_TEMPLATE_HASH_LABEL,
    compute_hash,
    new_replica_set_name,
    templates_equal,
)
from podscale.controllers.deployment.replicasets import ReplicaSetState
from podscale.controllers.deployment.revisions import (
    REVISION_ANNOTATION,
    max_revision,
    new_replica_set_annotations,
)
from podscale.controllers.deployment.rollout import new_replica_set_replicas
from podscale.controllers.deployment.sync import REPLICA_SET, DeploymentSync

__all__ = ["create", "sync_existing"]

JSON = dict[str, Any]
_NAMESPACE_TERMINATING: Final = "NamespaceTerminating"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name", ""))


def _min_ready(obj: Mapping[str, Any]) -> int:
    return int((obj.get("spec") or {}).get("minReadySeconds") or 0)


def _set_min_ready(rs: JSON, seconds: int) -> None:
    # minReadySeconds is omitempty in apps/v1: 0 is not written.
    spec = rs.setdefault("spec", {})
    if seconds:
        spec["minReadySeconds"] = seconds
    else:
        spec.pop("minReadySeconds", None)


def _namespace_terminating(err: ApiError) -> bool:
    causes = (err.body.get("details") or {}).get("causes") or ()
    return any(cause.get("type") == _NAMESPACE_TERMINATING for cause in causes)


async def sync_existing(sync: DeploymentSync, new_name: str, old_names: list[str]) -> None:
    """An existing new ReplicaSet: sync its annotations/minReadySeconds, the revision."""
    rs = sync.replica_sets[new_name]
    new_revision = max_revision(sync.states(old_names)) + 1
    annotations, changed = new_replica_set_annotations(
        _meta(sync.deployment).get("annotations") or {},
        _meta(rs).get("annotations") or {},
        new_revision,
        exists=True,
        replicas=sync.replicas,
        strategy=sync.strategy,
    )
    if changed or _min_ready(rs) != _min_ready(sync.deployment):
        body = copy.deepcopy(rs)
        body["metadata"]["annotations"] = annotations
        _set_min_ready(body, _min_ready(sync.deployment))
        sync.replica_sets[new_name] = await sync.api.update(REPLICA_SET, sync.namespace, body)
        return  # the Deployment's revision follows on the next sync, as upstream
    needs_update = sync.set_revision(str((annotations or {}).get(REVISION_ANNOTATION, "")))
    found = cond.new_replica_set_condition(sync.deployment, new_name, created=False, now=sync.now)
    if found is not None:
        sync.set_condition(found)
        needs_update = True
    if needs_update:
        await sync.update_deployment_status(copy.deepcopy(sync.deployment))


def _body(sync: DeploymentSync, old_names: list[str]) -> tuple[JSON, str]:
    spec = sync.deployment.get("spec") or {}
    template = copy.deepcopy(spec.get("template") or {})
    collisions = (sync.deployment.get("status") or {}).get("collisionCount")
    template_hash = compute_hash(template, collisions)
    labels = {**((template.get("metadata") or {}).get("labels") or {})}
    labels[POD_TEMPLATE_HASH_LABEL] = template_hash
    template.setdefault("metadata", {})["labels"] = labels
    selector = copy.deepcopy(spec.get("selector") or {})
    selector["matchLabels"] = {
        **(selector.get("matchLabels") or {}),
        POD_TEMPLATE_HASH_LABEL: template_hash,
    }
    name = new_replica_set_name(_name(sync.deployment), template_hash)
    new_revision = max_revision(sync.states(old_names)) + 1
    annotations, _ = new_replica_set_annotations(
        _meta(sync.deployment).get("annotations") or {},
        {},
        new_revision,
        exists=False,
        replicas=sync.replicas,
        strategy=sync.strategy,
    )
    placeholder = ReplicaSetState(name=name, replicas=0)
    replicas = new_replica_set_replicas(
        sync.replicas, sync.strategy, [*sync.states(old_names), placeholder], placeholder
    )
    body: JSON = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": sync.namespace,
            "labels": dict(labels),
            "annotations": annotations,
            "ownerReferences": [deployment_controller_ref(sync.deployment)],
        },
        "spec": {"replicas": replicas, "selector": selector, "template": template},
    }
    _set_min_ready(body, _min_ready(sync.deployment))
    return body, str(new_revision)


async def create(sync: DeploymentSync, old_names: list[str]) -> str:
    """Create the new ReplicaSet (``getNewReplicaSet`` with createIfNotExisted); its name.

    A name already taken by this Deployment's ReplicaSet with an equal template is
    that ReplicaSet (a slow cache); by anything else, a hash collision: bump
    ``status.collisionCount`` and fail, so the retry hashes differently.
    """
    body, new_revision = _body(sync, old_names)
    name = _name(body)
    replicas = int(body["spec"]["replicas"])
    already_exists = False
    try:
        created = await sync.api.create(REPLICA_SET, sync.namespace, body)
    except ApiError as err:
        if err.status == 409 and err.reason == "AlreadyExists":
            created = await _existing_or_collision(sync, name, err)
            already_exists = True
        else:
            if not _namespace_terminating(err):
                await _report_create_failure(sync, name, err)
            raise
    sync.replica_sets[name] = created
    if not already_exists and replicas > 0:
        await sync.record_scaling(f"Scaled up replica set {name} from 0 to {replicas}")
    needs_update = sync.set_revision(new_revision)
    if not already_exists:
        condition = cond.new_replica_set_condition(
            sync.deployment, name, created=True, now=sync.now
        )
        if condition is not None:
            sync.set_condition(condition)
            needs_update = True
    if needs_update:
        await sync.update_deployment_status(copy.deepcopy(sync.deployment))
    return name


async def _existing_or_collision(sync: DeploymentSync, name: str, err: ApiError) -> JSON:
    existing = await sync.api.get(REPLICA_SET, sync.namespace, name)
    refs = _meta(existing).get("ownerReferences") or ()
    owner_uid = next((r.get("uid") for r in refs if r.get("controller") is True), None)
    template = (sync.deployment.get("spec") or {}).get("template") or {}
    existing_template = (existing.get("spec") or {}).get("template") or {}
    if owner_uid == _meta(sync.deployment).get("uid") and templates_equal(
        template, existing_template
    ):
        return existing
    sync.bump_collision_count()
    with contextlib.suppress(ApiError):  # the original error requeues the sync anyway
        await sync.update_deployment_status(copy.deepcopy(sync.deployment))
    raise err


async def _report_create_failure(sync: DeploymentSync, name: str, err: ApiError) -> None:
    message = f'Failed to create new replica set "{name}": {err}'
    if cond.has_progress_deadline(sync.deployment):
        sync.set_condition(
            cond.new_condition(cond.PROGRESSING, "False", cond.FAILED_RS_CREATE, message, sync.now)
        )
        with contextlib.suppress(ApiError):  # the failed create is the bigger issue
            await sync.update_deployment_status(copy.deepcopy(sync.deployment))
    await sync.recorder.record(sync.deployment, "Warning", cond.FAILED_RS_CREATE, message)
