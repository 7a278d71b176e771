"""The WebApp operator's decisions: pure functions from a WebApp (and its ReplicaSet) to writes.

A WebApp owns exactly one ReplicaSet, named as the WebApp, whose controller ownerReference
(``controller: true``, ``blockOwnerDeletion: true``) names it, so the garbage collector
removes it with the WebApp. ``desired_replica_set`` is the ReplicaSet the spec asks for;
``replica_set_patch`` the merge patch that brings an existing one there (replicas, pod
template, the load annotations passed on), None when it already is; ``desired_status`` the
status the WebApp reports from its ReplicaSet, the way operators' workloads (and
Deployments) report theirs: ``replicas`` and ``readyReplicas`` from the ReplicaSet's
status, ``selector`` as a label selector string for the scale subresource's
``labelSelectorPath`` (how an HPA finds the pods), ``observedGeneration``. A changed
template reaches new pods only: rolling pods over is a Deployment's job, which this example
leaves out. ``controller`` is the shell that gathers these inputs and writes the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.quantity import parse_quantity
from podscale.controllers.webapp.kind import CONTAINER_NAME, KIND, NAME_LABEL, WEBAPP

__all__ = [
    "PASSED_ON_PREFIX",
    "REASON_CREATED",
    "REASON_NOT_OWNED",
    "desired_replica_set",
    "desired_status",
    "is_controlled_by",
    "not_owned_message",
    "pod_labels",
    "replica_set_patch",
    "selector_string",
]

JSON = dict[str, Any]
# The WebApp's annotations under this prefix are copied to its ReplicaSet: the simulated
# load (``load.podscale.dev/v1alpha1``, read from ReplicaSets by the simulated cluster), so a
# load declared on a WebApp reaches its pods.
PASSED_ON_PREFIX: Final = "load.podscale.dev/"
# Event reasons (on the WebApp), in upstream's CamelCase style.
REASON_CREATED: Final = "ReplicaSetCreated"
REASON_NOT_OWNED: Final = "ReplicaSetNotOwned"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def pod_labels(webapp: Mapping[str, Any]) -> dict[str, str]:
    """The labels of the WebApp's ReplicaSet and pods; its selector matches exactly these."""
    return {NAME_LABEL: str(_meta(webapp).get("name") or "")}


def selector_string(webapp: Mapping[str, Any]) -> str:
    """``pod_labels`` as a label selector string (``status.selector``)."""
    return ",".join(f"{key}={value}" for key, value in sorted(pod_labels(webapp).items()))


def _owner_reference(webapp: Mapping[str, Any]) -> JSON:
    meta = _meta(webapp)
    return {
        "apiVersion": WEBAPP.api_version,
        "kind": KIND,
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_controlled_by(obj: Mapping[str, Any], webapp: Mapping[str, Any]) -> bool:
    """Whether ``obj``'s controller ownerReference is ``webapp`` (same uid)."""
    uid = _meta(webapp).get("uid")
    return any(
        ref.get("controller") is True and ref.get("uid") == uid
        for ref in _meta(obj).get("ownerReferences") or ()
    )


def _replicas(webapp: Mapping[str, Any]) -> int:
    value = (webapp.get("spec") or {}).get("replicas")
    # The CRD defaults replicas to 1; an object stored before that default reads the same.
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _container(spec: Mapping[str, Any]) -> JSON:
    container: JSON = {"name": CONTAINER_NAME, "image": spec.get("image")}
    port = spec.get("port")
    if isinstance(port, int):
        container["ports"] = [{"containerPort": port, "protocol": "TCP"}]
    resources = spec.get("resources")
    if isinstance(resources, Mapping) and resources:
        container["resources"] = {
            key: {name: _canonical(amount) for name, amount in value.items()}
            for key, value in resources.items()
            if isinstance(value, Mapping)
        }
    return container


def _canonical(amount: Any) -> Any:
    """A quantity in the form the API server stores it (``0.5`` -> ``500m``), so comparing
    the written template with the stored one sees no difference that is not there; a value
    that is no quantity is passed on for the ReplicaSet's validation to refuse."""
    try:
        return str(parse_quantity(amount))
    except (TypeError, ValueError):
        return amount


def _template(webapp: Mapping[str, Any]) -> JSON:
    spec = webapp.get("spec") or {}
    return {
        "metadata": {"labels": pod_labels(webapp)},
        "spec": {"containers": [_container(spec)]},
    }


def _passed_on(annotations: Any) -> dict[str, str]:
    if not isinstance(annotations, Mapping):
        return {}
    return {
        key: value
        for key, value in annotations.items()
        if key.startswith(PASSED_ON_PREFIX) and isinstance(value, str)
    }


def desired_replica_set(webapp: Mapping[str, Any]) -> JSON:
    """The ReplicaSet the WebApp asks for, ready to create."""
    meta = _meta(webapp)
    metadata: JSON = {
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
        "labels": pod_labels(webapp),
        "ownerReferences": [_owner_reference(webapp)],
    }
    annotations = _passed_on(meta.get("annotations"))
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": metadata,
        "spec": {
            "replicas": _replicas(webapp),
            "selector": {"matchLabels": pod_labels(webapp)},
            "template": _template(webapp),
        },
    }


def _covers(current: Any, wanted: Any) -> bool:
    """Whether ``current`` holds every field of ``wanted`` with the same value (the API
    server defaults more fields into a stored template than the operator writes)."""
    if isinstance(wanted, Mapping):
        return isinstance(current, Mapping) and all(
            _covers(current.get(key), value) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(current, list)
            and len(current) == len(wanted)
            and all(_covers(c, w) for c, w in zip(current, wanted, strict=True))
        )
    return bool(current == wanted)


# The container fields the operator writes only when the WebApp sets them.
_OPTIONAL_FIELDS: Final = ("ports", "resources")


def _leftovers(current: Any, wanted: Mapping[str, Any]) -> bool:
    """Whether the stored container keeps an optional field the WebApp no longer sets."""
    containers = ((current or {}).get("spec") or {}).get("containers") or [{}]
    (want,) = wanted["spec"]["containers"]
    return any(containers[0].get(key) and key not in want for key in _OPTIONAL_FIELDS)


def replica_set_patch(webapp: Mapping[str, Any], replica_set: Mapping[str, Any]) -> JSON | None:
    """The merge patch bringing the owned ``replica_set`` to what ``webapp`` asks (its
    replicas and pod template), or None when nothing differs."""
    wanted = desired_replica_set(webapp)["spec"]
    current = replica_set.get("spec") or {}
    patch: JSON = {}
    if current.get("replicas") != wanted["replicas"]:
        patch["replicas"] = wanted["replicas"]
    if not _covers(current.get("template"), wanted["template"]) or _leftovers(
        current.get("template"), wanted["template"]
    ):
        # The whole template, so fields the WebApp no longer sets (a port, resources)
        # go away: a merge patch replaces the containers list as a whole.
        patch["template"] = wanted["template"]
    result: JSON = {"spec": patch} if patch else {}
    wanted_notes = _passed_on(_meta(webapp).get("annotations"))
    current_notes = _passed_on(_meta(replica_set).get("annotations"))
    if wanted_notes != current_notes:
        # A merge patch removes an annotation by setting it to null.
        notes: JSON = {key: None for key in current_notes if key not in wanted_notes}
        notes.update(wanted_notes)
        result["metadata"] = {"annotations": notes}
    return result or None


def desired_status(webapp: Mapping[str, Any], replica_set: Mapping[str, Any] | None) -> JSON:
    """The WebApp's status as its ReplicaSet reports it (zeros before it exists)."""
    rs_status = (replica_set or {}).get("status") or {}
    return {
        "replicas": int(rs_status.get("replicas") or 0),
        "readyReplicas": int(rs_status.get("readyReplicas") or 0),
        "selector": selector_string(webapp),
        "observedGeneration": int(_meta(webapp).get("generation") or 0),
    }


def not_owned_message(webapp: Mapping[str, Any]) -> str:
    """Why the WebApp cannot use the ReplicaSet of its name: someone else controls it."""
    name = _meta(webapp).get("name")
    return f'ReplicaSet "{name}" already exists and is not controlled by WebApp "{name}"'
