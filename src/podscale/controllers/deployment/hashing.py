"""The ``pod-template-hash``: naming and matching a Deployment's ReplicaSets.

Follows upstream's ``controller.ComputeHash`` (``pkg/controller/controller_utils.go``):
FNV-32a over a deterministic deep rendering of the pod template, then the collision
count as 8 little-endian bytes (only the low 4 carry the value), the decimal sum run
through ``rand.SafeEncodeString``. Difference, by design: upstream hashes Go's ``spew``
dump of the typed ``PodTemplateSpec`` struct; we hash canonical JSON (sorted keys, no
whitespace) of the template dict. Same structure and alphabet, different digits, so
names differ from a real cluster's, but are stable across runs and processes.
Neighbours: ``revisions`` finds the new/old ReplicaSets with ``templates_equal``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from podscale.api.json_copy import copy_json

__all__ = [
    "POD_TEMPLATE_HASH_LABEL",
    "compute_hash",
    "fnv32a",
    "new_replica_set_name",
    "safe_encode",
    "template_without_hash",
    "templates_equal",
]

POD_TEMPLATE_HASH_LABEL: Final = "pod-template-hash"

# Upstream's rand.SafeEncodeString alphabet: no vowels (no words), no 0/1/3 look-alikes.
_ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET: Final = 0x811C9DC5
_FNV_PRIME: Final = 0x01000193


def fnv32a(data: bytes, start: int = _FNV_OFFSET) -> int:
    """32-bit FNV-1a; ``start`` continues a running hash (like further ``Write`` calls)."""
    value = start
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """Map each byte onto the vowel-free alphabet (upstream ``rand.SafeEncodeString``)."""
    return "".join(_ALPHANUMS[byte % len(_ALPHANUMS)] for byte in text.encode())


def _canonical(template: Mapping[str, Any]) -> bytes:
    return json.dumps(template, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def compute_hash(template: Mapping[str, Any], collision_count: int | None = None) -> str:
    """The ``pod-template-hash`` of a Deployment's ``spec.template``.

    ``collision_count`` is ``status.collisionCount``: bumping it changes the hash when a
    ReplicaSet with the computed name exists but holds another template.
    """
    value = fnv32a(_canonical(template))
    if collision_count is not None:
        value = fnv32a((collision_count & 0xFFFFFFFF).to_bytes(8, "little"), value)
    return safe_encode(str(value))


def new_replica_set_name(deployment_name: str, template_hash: str) -> str:
    """``<deployment>-<hash>``, the name upstream gives a Deployment's ReplicaSet."""
    return f"{deployment_name}-{template_hash}"


def template_without_hash(template: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``template`` without the ``pod-template-hash`` label."""
    copied: dict[str, Any] = copy_json(dict(template))
    labels = (copied.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH_LABEL, None)
    return copied


def templates_equal(left: Mapping[str, Any], right: Mapping[str, Any]) -> bool:
    """Equal pod templates once the hash label is ignored (upstream ``EqualIgnoreHash``)."""
    return _without_hash_label(left) == _without_hash_label(right)


def _without_hash_label(template: Mapping[str, Any]) -> Mapping[str, Any]:
    """``template`` itself, or a shallow view of it without the hash label: comparing
    needs no deep copy (every Deployment sync compares its ReplicaSets' templates)."""
    metadata = template.get("metadata")
    if not isinstance(metadata, dict):
        return template
    labels = metadata.get("labels")
    if not isinstance(labels, dict) or POD_TEMPLATE_HASH_LABEL not in labels:
        return template
    kept = {key: value for key, value in labels.items() if key != POD_TEMPLATE_HASH_LABEL}
    return {**template, "metadata": {**metadata, "labels": kept}}
