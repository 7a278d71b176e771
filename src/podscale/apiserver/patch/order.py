"""Element order of merged lists in a strategic merge patch.

Used by ``patch.strategic`` after it merged a list, and for ``$setElementOrder/<list>``. The
rule is upstream's (strategicpatch ``normalizeElementOrder``, from the "preserve order in
strategic merge patch" design): the items the patch names keep the patch's order, the items
only the server has keep the server's order, and the two runs are interleaved using the server
list as the reference. An item the server list does not know (a new one) is placed as soon as
it is reached, so without ``$setElementOrder`` a new list item lands before the server's items
that follow it; kubectl's apply always sends ``$setElementOrder`` and gets its manifest order.

Items are identified by their merge-key value for lists of objects, by value for scalars,
always type-strict (``patch.values.scalar_key``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from podscale.apiserver.patch.errors import bad_request
from podscale.apiserver.patch.values import go_format, go_type, scalar_key

__all__ = ["check_merge_key", "enforce_order"]

_Identity = Callable[[Any], Hashable]


def check_merge_key(item: Any, merge_key: str) -> dict[str, Any]:
    """``item`` as an object holding ``merge_key``, else upstream's error for the list."""
    if not isinstance(item, dict):
        raise bad_request(f"expected a map[string]interface {{}}, but received a {go_type(item)}")
    if merge_key not in item:
        raise bad_request(
            f"map: {go_format(item)} does not contain declared merge key: {merge_key}"
        )
    return item


def enforce_order(
    merged: list[Any],
    patch_order: Sequence[Any],
    server_order: Sequence[Any],
    merge_key: str,
    *,
    maps: bool,
) -> list[Any]:
    """``merged`` reordered: patch-named items by ``patch.order``, the rest by ``server_order``."""
    if maps:
        for item in (*merged, *patch_order, *server_order):
            check_merge_key(item, merge_key)

    def identity(item: Any) -> Hashable:
        return scalar_key(item[merge_key] if maps else item)

    named = {identity(item) for item in patch_order}
    patch_items = [item for item in merged if identity(item) in named]
    server_items = [item for item in merged if identity(item) not in named]
    patch_items = _normalize(patch_items, patch_order, identity, maps=maps)
    server_items = _normalize(server_items, server_order, identity, maps=maps)
    return _interleave(server_items, patch_items, _positions(server_order, identity), identity)


def _positions(order: Sequence[Any], identity: _Identity) -> dict[Hashable, int]:
    positions: dict[Hashable, int] = {}
    for index, item in enumerate(order):
        positions.setdefault(identity(item), index)
    return positions


def _normalize(
    items: list[Any], order: Sequence[Any], identity: _Identity, *, maps: bool
) -> list[Any]:
    """Sort by ``order``; deletion directives trail the rest unsorted, as upstream does."""
    if not maps:
        return _sorted_by(items, order, identity)
    deletions = [item for item in items if item.get("$patch") == "delete"]
    kept = [item for item in items if item.get("$patch") != "delete"]
    return _sorted_by(kept, order, identity) + deletions


def _sorted_by(items: list[Any], order: Sequence[Any], identity: _Identity) -> list[Any]:
    """Stable sort by position in ``order``; items it lacks keep their order, at the end."""
    positions = _positions(order, identity)
    ranked = [item for item in items if identity(item) in positions]
    ranked.sort(key=lambda item: positions[identity(item)])
    return ranked + [item for item in items if identity(item) not in positions]


def _interleave(
    server_items: list[Any],
    patch_items: list[Any],
    reference: dict[Hashable, int],
    identity: _Identity,
) -> list[Any]:
    """Merge the two sorted runs; a server item goes first only if it precedes in ``reference``."""
    result: list[Any] = []
    s = p = 0
    while s < len(server_items) and p < len(patch_items):
        server_at = reference.get(identity(server_items[s]))
        patch_at = reference.get(identity(patch_items[p]))
        if server_at is not None and patch_at is not None and server_at < patch_at:
            result.append(server_items[s])
            s += 1
        else:
            result.append(patch_items[p])
            p += 1
    return result + server_items[s:] + patch_items[p:]
