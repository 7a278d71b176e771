"""Custom resources between their stored and served versions, and custom kind lookup.

CRDs here convert with ``conversion: None``: an object is the same in every version, only its
``apiVersion`` is rewritten (upstream's nopConverter), so ``to_storage`` stamps the storage
version and ``to_served`` the version the client asked for (plus that version's schema
defaults, ``podscale.api.schema.apply_read_defaults``). ``resources.to_storage`` and
``resources.to_served`` call these for a ``CustomKind``, so get, list, watch, delete and the
subresources all serve the requested version. ``served_kind`` resolves the kind a caller
names (``routes``, the in-process client) against the server's ``registry``;
``missing_subresource`` is the 404 for a subresource the kind does not serve.
"""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import KindInfo, resource_for
from podscale.api.schema.defaulting import apply_defaults
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.customresources.registry import CustomKinds
from podscale.apiserver.errors import ApiError, not_found, path_not_found

__all__ = ["missing_subresource", "served_kind", "to_served_custom", "to_storage_custom"]

JSON = dict[str, Any]


def to_storage_custom(obj: JSON, info: CustomKind) -> JSON:
    """``obj`` as stored: in the CRD's storage version (mutates and returns ``obj``)."""
    obj["apiVersion"] = info.storage_api_version
    return obj


def to_served_custom(obj: JSON, info: CustomKind) -> JSON:
    """A stored custom resource in ``info``'s version, with the version schema's defaults
    applied as upstream applies them on every read from storage."""
    obj["apiVersion"] = info.api_version
    if info.schema is not None:
        # ``obj`` is the caller's own (``to_served`` mutates): defaulted in place, no copy.
        apply_defaults(obj, info.schema)
    return obj


def served_kind(kinds: CustomKinds, group: str, version: str, plural: str) -> KindInfo | None:
    """The built-in kind of that resource, else the custom one, else None (built-in kinds
    win, as upstream's handler chain serves them before the CRD handler)."""
    try:
        return resource_for(group, version, plural)
    except KeyError:
        return kinds.lookup(group, version, plural)


def missing_subresource(info: KindInfo, name: str) -> ApiError:
    """A subresource ``info`` does not serve (``/scale`` of a CRD without one): for a custom
    kind the resource's NotFound (``widgets.example.com "w" not found``), as upstream's CRD
    handler answers; for a built-in kind the unknown path's generic 404."""
    if isinstance(info, CustomKind):
        return not_found(f"{info.plural}.{info.group}", name)
    return path_not_found()
