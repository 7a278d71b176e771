"""StatefulSet revisions without ControllerRevision objects: the name a revision would get.

Upstream records each template in a ControllerRevision whose data is the strategic-merge
patch ``{"spec":{"template":{..., "$patch":"replace"}}}`` as Go's ``encoding/json`` writes it
(maps re-marshalled, so keys sorted; compact; ``<``, ``>``, ``&`` escaped), named
``<set>-<hash>`` where the hash is 32-bit FNV-1 (not 1a) over those bytes and then the
decimal collision count, run through ``rand.SafeEncodeString``
(pkg/controller/history/controller_history.go). That name is the pods'
``controller-revision-hash`` label and ``status.updateRevision``. We reproduce the bytes of
a defaulted template (adding ``resources: {}`` to containers, a field Go always writes),
so names match a real v1.34+ cluster for ordinary templates.

ControllerRevision is not in podscale's kinds registry: no revision objects are stored,
listed, adopted or truncated, so the current revision is taken from
``status.currentRevision`` alone and pods are always created from the live template.
Neighbours: ``identity`` stamps the revision on new pods; ``plan`` compares it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Final

from podscale.controllers.deployment.hashing import safe_encode
from podscale.controllers.statefulset.identity import REVISION_LABEL

__all__ = [
    "collision_count",
    "current_and_update_revisions",
    "fnv32",
    "pod_revision",
    "revision_data",
    "revision_hash",
    "revision_name",
]

_FNV_OFFSET: Final = 0x811C9DC5
_FNV_PRIME: Final = 0x01000193
_MAX_PREFIX: Final = 223  # so that <prefix>-<hash> fits a 253-character name
_CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")
# What Go's encoder escapes inside strings and Python's does not (with ensure_ascii off).
_GO_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def fnv32(data: bytes, start: int = _FNV_OFFSET) -> int:
    """32-bit FNV-1 (multiply, then xor); ``start`` continues a running hash."""
    value = start
    for byte in data:
        value = ((value * _FNV_PRIME) & 0xFFFFFFFF) ^ byte
    return value


def _go_json(value: Any) -> bytes:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # These characters can only occur inside JSON strings, so replacing them is safe.
    for char, escaped in _GO_ESCAPES.items():
        text = text.replace(char, escaped)
    return text.encode()


def _typed_template(template: Mapping[str, Any]) -> dict[str, Any]:
    """The template as a typed Go struct would re-encode it: ``metadata``/``spec`` always
    present and every container with ``resources`` (a struct, so never omitted)."""
    typed: dict[str, Any] = copy.deepcopy(dict(template))
    typed.setdefault("metadata", {})
    spec = typed.setdefault("spec", {})
    if isinstance(spec, dict):
        for field in _CONTAINER_LISTS:
            for container in spec.get(field) or ():
                if isinstance(container, dict):
                    container.setdefault("resources", {})
    return typed


def revision_data(sts: Mapping[str, Any]) -> bytes:
    """The bytes upstream stores as the revision's ``data`` for the set's template."""
    template = _typed_template((sts.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return _go_json({"spec": {"template": template}})


def collision_count(sts: Mapping[str, Any]) -> int:
    """``status.collisionCount``, 0 when unset."""
    return int((sts.get("status") or {}).get("collisionCount") or 0)


def revision_hash(sts: Mapping[str, Any], collisions: int | None = None) -> str:
    """The hash part of the revision name (``controller.kubernetes.io/hash``)."""
    probe = collision_count(sts) if collisions is None else collisions
    value = fnv32(str(probe).encode(), fnv32(revision_data(sts)))
    return safe_encode(str(value))


def revision_name(sts: Mapping[str, Any], collisions: int | None = None) -> str:
    """``<set>-<hash>``: the update revision of the set's current template."""
    prefix = str((sts.get("metadata") or {}).get("name", ""))[:_MAX_PREFIX]
    return f"{prefix}-{revision_hash(sts, collisions)}"


def current_and_update_revisions(sts: Mapping[str, Any]) -> tuple[str, str]:
    """(current, update): the update revision is the live template's; the current one is
    ``status.currentRevision``, or the update revision when the status names none yet."""
    update = revision_name(sts)
    current = str((sts.get("status") or {}).get("currentRevision") or "")
    return current or update, update


def pod_revision(pod: Mapping[str, Any]) -> str:
    """The pod's ``controller-revision-hash`` label, empty when unlabelled."""
    return str(((pod.get("metadata") or {}).get("labels") or {}).get(REVISION_LABEL) or "")
