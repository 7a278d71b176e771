"""Controller references in an informer's cache: the event handlers' shared lookups.

The workload controller shells (``deployment.controller``, ``replicaset.controller``,
``statefulset.controller``) turn an owned object's event into its owner's key the way
upstream's ``resolveControllerRef`` and ``getPodStatefulSets``/``getDeploymentsForReplicaSet``
do: the controller ownerReference names the owner, which counts only when the cache holds
it with the same uid; an orphan wakes every owner whose non-empty selector matches its
labels, so that it can be adopted. Neighbours: ``runtime_pods`` claims what these wake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister

__all__ = [
    "adoption_patch",
    "cached_owner",
    "controller_ref_of",
    "meta",
    "namespace_of",
    "release_patch",
    "selecting_owners",
]

JSON = dict[str, Any]


def meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def namespace_of(obj: Mapping[str, Any]) -> str:
    return str(meta(obj).get("namespace") or "")


def controller_ref_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ownerReference with ``controller: true``, if any."""
    for ref in meta(obj).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return ref  # type: ignore[no-any-return]
    return None


def cached_owner(owners: Lister, kind: str, namespace: str, ref: Mapping[str, Any]) -> JSON | None:
    """The ``kind`` object ``ref`` names in ``namespace``, if cached with that uid."""
    if ref.get("kind") != kind:
        return None
    owner = owners.get(namespace, str(ref.get("name")))
    return owner if owner is not None and meta(owner).get("uid") == ref.get("uid") else None


def selecting_owners(owners: Lister, obj: Mapping[str, Any]) -> list[JSON]:
    """The owners in ``obj``'s namespace whose (non-empty, valid) selector matches its labels;
    an object without labels is matched by none."""
    labels = meta(obj).get("labels") or {}
    if not labels:
        return []
    found = []
    for owner in owners.list(namespace_of(obj)):
        raw = (owner.get("spec") or {}).get("selector")
        try:
            selector = selector_from_label_selector(raw)
        except ValueError:
            continue
        if raw and selector.matches(labels):
            found.append(owner)
    return found


def adoption_patch(owner_ref: Mapping[str, Any], obj: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch making ``owner_ref`` the object's controller (merged into
    ownerReferences by uid). The object's uid is a precondition, so a recreated object is
    never adopted."""
    return {"metadata": {"ownerReferences": [dict(owner_ref)], "uid": meta(obj).get("uid", "")}}


def release_patch(owner: Mapping[str, Any], obj: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch removing the ownerReference to ``owner`` (uid precondition)."""
    ref = {"$patch": "delete", "uid": meta(owner).get("uid", "")}
    return {"metadata": {"ownerReferences": [ref], "uid": meta(obj).get("uid", "")}}
