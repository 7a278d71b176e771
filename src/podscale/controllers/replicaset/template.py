"""New pods for a ReplicaSet: names, the controller ownerReference, and the pod body.

Mirrors upstream's ``GetPodFromTemplate``/``getPodsPrefix`` (pkg/controller/controller_utils.go)
and apiserver's ``SimpleNameGenerator`` (apiserver/pkg/storage/names): the controller sends a
``generateName`` of ``<rs>-`` and the API server appends 5 random characters from
``bcdfghjklmnpqrstvwxz2456789``. ``pod_name`` and ``random_suffix`` let an embedded
controller or a simulated API server produce the same names from an injected RNG.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.names import validate_dns1123_subdomain_name

__all__ = [
    "NAME_ALPHABET",
    "controller_ref",
    "pod_from_template",
    "pod_name",
    "pods_prefix",
    "random_suffix",
]

NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_RANDOM_LENGTH: Final = 5
_MAX_NAME_LENGTH: Final = 63
_MAX_BASE_LENGTH: Final = _MAX_NAME_LENGTH - _RANDOM_LENGTH


def random_suffix(rng: random.Random) -> str:
    """Five characters from upstream's alphabet (no vowels, no look-alike digits)."""
    return "".join(rng.choice(NAME_ALPHABET) for _ in range(_RANDOM_LENGTH))


def pods_prefix(rs_name: str) -> str:
    """The ``generateName`` for the ReplicaSet's pods: ``<rs>-``, or the bare name if invalid."""
    prefix = f"{rs_name}-"
    return rs_name if validate_dns1123_subdomain_name(prefix, True) else prefix


def pod_name(rs_name: str, suffix: str) -> str:
    """What the API server names a pod generated from ``pods_prefix(rs_name)``.

    Like ``SimpleNameGenerator``, the base is cut to 58 characters so the name fits 63.
    """
    return pods_prefix(rs_name)[:_MAX_BASE_LENGTH] + suffix


def controller_ref(rs: Mapping[str, Any]) -> dict[str, Any]:
    """The ownerReference a ReplicaSet puts on the pods it controls."""
    metadata = rs.get("metadata") or {}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": metadata.get("name", ""),
        "uid": metadata.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def pod_from_template(rs: Mapping[str, Any]) -> dict[str, Any]:
    """A pod to create for ``rs``: the template's labels, annotations, finalizers and spec.

    The result is a deep copy (mutating it never touches ``rs``) with ``generateName``,
    the namespace of the ReplicaSet and one controller ownerReference; unknown template
    fields under ``spec`` survive untouched.
    """
    metadata = rs.get("metadata") or {}
    template = (rs.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {"generateName": pods_prefix(str(metadata.get("name", "")))}
    if metadata.get("namespace"):
        pod_meta["namespace"] = metadata["namespace"]
    for field in ("labels", "annotations", "finalizers"):
        if template_meta.get(field):
            pod_meta[field] = copy_json(template_meta[field])
    pod_meta["ownerReferences"] = [controller_ref(rs)]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_meta,
        "spec": copy_json(template.get("spec") or {}),
    }
