"""Client-side apply's patch: a three-way strategic merge patch (last-applied, manifest, live).

``kubectl apply`` sends what must change on the live object to make it match the new manifest
(additions and changes: manifest vs live) plus what the user removed since the last apply
(deletions: last-applied vs manifest, as ``null``, ``{"$patch": "delete", key: ...}`` or
``$deleteFromPrimitiveList``). Fields set by others (defaults, controllers) and absent from
both manifests are left alone, which is the point of the three-way form. Lists merge per the
server's strategic-merge metadata (``podscale.apiserver.patch.schema``: containers and env
by ``name``, ports by ``containerPort``, ...), with ``$setElementOrder/<list>`` carrying the
manifest's order whenever a merged list changes or is reordered; other lists are replaced whole.

``podscale.cli.apply`` sends the result as ``application/strategic-merge-patch+json``; an
empty dict means "unchanged". Pure code.
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.patch.schema import SchemaNode, schema_for
from podscale.apiserver.patch.values import same_json

__all__ = ["create_three_way_patch"]

JSON = dict[str, Any]


def create_three_way_patch(original: JSON | None, modified: JSON, current: JSON) -> JSON:
    """The patch turning ``current`` into ``modified``, deleting what ``original`` had.

    ``original`` is the last-applied manifest (None when there is none: nothing is deleted).
    The schema comes from ``modified``'s apiVersion and kind.
    """
    schema = schema_for(str(modified.get("apiVersion", "")), str(modified.get("kind", "")))
    return _diff_maps(original or {}, modified, current, schema)


def _diff_maps(original: JSON, modified: JSON, current: JSON, schema: SchemaNode) -> JSON:
    patch: JSON = {}
    for key in original.keys() - modified.keys():
        patch[key] = None
    for key, wanted in modified.items():
        node = schema.child(key)
        live = current.get(key)
        before = original.get(key)
        if isinstance(wanted, dict) and isinstance(live, dict):
            sub = _diff_maps(before if isinstance(before, dict) else {}, wanted, live, node)
            if sub:
                patch[key] = sub
        elif isinstance(wanted, list) and isinstance(live, list) and node.merge:
            _diff_merged_list(
                patch, key, before if isinstance(before, list) else [], wanted, live, node
            )
        elif key not in current or not same_json(live, wanted):
            patch[key] = wanted
    return patch


def _identity(item: Any, merge_key: str) -> Any:
    return item.get(merge_key) if isinstance(item, dict) else None


def _diff_merged_list(
    patch: JSON,
    key: str,
    original: list[Any],
    modified: list[Any],
    current: list[Any],
    node: SchemaNode,
) -> None:
    """Write the list's patch (and its order directive) into ``patch`` when anything differs."""
    if not node.merge_key or not all(isinstance(i, dict) for i in modified + current):
        _diff_scalar_set(patch, key, original, modified, current)
        return
    merge_key = node.merge_key
    live = {_identity(i, merge_key): i for i in current}
    before = {_identity(i, merge_key): i for i in original if isinstance(i, dict)}
    wanted_ids = [_identity(i, merge_key) for i in modified]
    entries: list[Any] = []
    for item in modified:
        identity = _identity(item, merge_key)
        if identity not in live:
            entries.append(item)
            continue
        sub = _diff_maps(before.get(identity) or {}, item, live[identity], node)
        if sub:
            sub[merge_key] = identity
            entries.append(sub)
    for identity in before:
        if identity not in wanted_ids:
            entries.append({"$patch": "delete", merge_key: identity})
    live_order = [i for i in live if i in wanted_ids]
    reordered = live_order != [i for i in wanted_ids if i in live]
    if entries or reordered:
        patch[f"$setElementOrder/{key}"] = [{merge_key: i} for i in wanted_ids]
    if entries:
        patch[key] = entries


def _diff_scalar_set(
    patch: JSON, key: str, original: list[Any], modified: list[Any], current: list[Any]
) -> None:
    added = [v for v in modified if not any(same_json(v, c) for c in current)]
    removed = [v for v in original if not any(same_json(v, m) for m in modified)]
    if added:
        patch[key] = added
    if removed:
        patch[f"$deleteFromPrimitiveList/{key}"] = removed
    if added or removed:
        patch[f"$setElementOrder/{key}"] = list(modified)
