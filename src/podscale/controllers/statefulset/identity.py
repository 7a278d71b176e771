"""A StatefulSet pod's identity: its ordinal, name, identity labels and the pod body itself.

Mirrors upstream's identity helpers (pkg/controller/statefulset/stateful_set_utils.go):
pods are named ``<set>-<ordinal>``; the ordinal is read back from the name (``(.*)-([0-9]+)$``,
-1 when absent or beyond int32); ordinals run over ``[spec.ordinals.start, start + replicas)``.
A new pod is ``GetPodFromTemplate`` (template labels, annotations, finalizers, spec, a
``generateName`` of ``<set>-`` and one controller ownerReference) plus ``initIdentity``:
the ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index`` labels (the
PodIndexLabel gate is GA), ``spec.hostname`` and ``spec.subdomain`` (``spec.serviceName``),
and the ``controller-revision-hash`` label. ``volumeClaimTemplates`` are not supported:
no claims are made and no claim volumes are added. Neighbours: ``revision`` names the
revision, ``plan`` decides which pods to create.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from podscale.controllers.replicaset.template import pods_prefix

__all__ = [
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "controller_ref",
    "end_ordinal",
    "identity_matches",
    "in_ordinal_range",
    "is_member",
    "new_stateful_pod",
    "ordinal_of",
    "parent_and_ordinal",
    "start_ordinal",
    "stateful_pod_name",
    "with_identity",
]

POD_NAME_LABEL: Final = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL: Final = "apps.kubernetes.io/pod-index"
REVISION_LABEL: Final = "controller-revision-hash"

_STATEFUL_POD_NAME: Final = re.compile(r"(.*)-([0-9]+)$")
_INT32_MAX: Final = 2**31 - 1


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def parent_and_ordinal(pod: Mapping[str, Any]) -> tuple[str, int]:
    """The set name and ordinal encoded in the pod's name: ``("", -1)`` without a match,
    ``(parent, -1)`` when the digits overflow int32 (Go's ``ParseInt(..., 32)`` fails)."""
    match = _STATEFUL_POD_NAME.match(str(_meta(pod).get("name") or ""))
    if match is None:
        return "", -1
    ordinal = int(match.group(2))
    return match.group(1), ordinal if ordinal <= _INT32_MAX else -1


def ordinal_of(pod: Mapping[str, Any]) -> int:
    """The pod's ordinal, -1 when its name carries none."""
    return parent_and_ordinal(pod)[1]


def start_ordinal(sts: Mapping[str, Any]) -> int:
    """``spec.ordinals.start`` when ``spec.ordinals`` is set, else 0."""
    ordinals = (sts.get("spec") or {}).get("ordinals")
    return int(ordinals.get("start") or 0) if isinstance(ordinals, Mapping) else 0


def end_ordinal(sts: Mapping[str, Any]) -> int:
    """The last ordinal the set keeps (inclusive); below the start when scaled to zero."""
    return start_ordinal(sts) + int((sts.get("spec") or {}).get("replicas", 1)) - 1


def in_ordinal_range(pod: Mapping[str, Any], sts: Mapping[str, Any]) -> bool:
    """The pod's ordinal is one the set currently wants."""
    return start_ordinal(sts) <= ordinal_of(pod) <= end_ordinal(sts)


def stateful_pod_name(sts: Mapping[str, Any], ordinal: int) -> str:
    """``<set>-<ordinal>``."""
    return f"{_meta(sts).get('name', '')}-{ordinal}"


def is_member(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """The pod's name says it belongs to this set; only members are adopted or kept."""
    return parent_and_ordinal(pod)[0] == str(_meta(sts).get("name", ""))


def identity_matches(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """Name, namespace and the pod-name label are those of a member of ``sts``."""
    parent, ordinal = parent_and_ordinal(pod)
    name = _meta(pod).get("name")
    labels = _meta(pod).get("labels") or {}
    return (
        ordinal >= 0
        and parent == _meta(sts).get("name")
        and name == stateful_pod_name(sts, ordinal)
        and (_meta(pod).get("namespace") or "") == (_meta(sts).get("namespace") or "")
        and labels.get(POD_NAME_LABEL) == name
    )


def with_identity(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``pod`` with the set's name, namespace and identity labels (upstream's
    ``updateIdentity``); hostname and subdomain are immutable and left alone."""
    updated: dict[str, Any] = copy.deepcopy(dict(pod))
    ordinal = ordinal_of(pod)
    meta = updated.setdefault("metadata", {})
    meta["name"] = stateful_pod_name(sts, ordinal)
    if _meta(sts).get("namespace"):
        meta["namespace"] = _meta(sts)["namespace"]
    labels = meta.get("labels")
    if not isinstance(labels, dict):
        labels = meta["labels"] = {}
    labels[POD_NAME_LABEL] = meta["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)
    return updated


def controller_ref(sts: Mapping[str, Any]) -> dict[str, Any]:
    """The ownerReference a StatefulSet puts on the pods it controls."""
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "name": _meta(sts).get("name", ""),
        "uid": _meta(sts).get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def new_stateful_pod(sts: Mapping[str, Any], ordinal: int, revision: str) -> dict[str, Any]:
    """The pod to create for ``ordinal`` at ``revision`` (a deep copy; ``sts`` untouched)."""
    spec = sts.get("spec") or {}
    template = spec.get("template") or {}
    template_meta = template.get("metadata") or {}
    name = stateful_pod_name(sts, ordinal)
    meta: dict[str, Any] = {
        "generateName": pods_prefix(str(_meta(sts).get("name", ""))),
        "name": name,
    }
    if _meta(sts).get("namespace"):
        meta["namespace"] = _meta(sts)["namespace"]
    meta["labels"] = copy.deepcopy(dict(template_meta.get("labels") or {}))
    for field in ("annotations", "finalizers"):
        if template_meta.get(field):
            meta[field] = copy.deepcopy(template_meta[field])
    meta["ownerReferences"] = [controller_ref(sts)]
    pod_spec: dict[str, Any] = copy.deepcopy(dict(template.get("spec") or {}))
    pod_spec["hostname"] = name
    if spec.get("serviceName"):
        pod_spec["subdomain"] = spec["serviceName"]
    pod = with_identity(
        sts, {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    )
    pod["metadata"]["labels"][REVISION_LABEL] = revision
    return pod
