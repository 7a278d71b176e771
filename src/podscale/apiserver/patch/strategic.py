"""Strategic merge patch, ``application/strategic-merge-patch+json``, for built-in kinds.

Called by ``patch.apply_patch`` with the decoded body and the kind's ``patch.schema`` tree;
list order is settled by ``patch.order``. Semantics are upstream's server side of
apimachinery's ``strategicpatch`` (``StrategicMergeMapPatch``):

* objects merge key by key; ``null`` deletes a key; ``{"$patch": "replace"}`` replaces the
  object, ``{"$patch": "delete"}`` empties it (any other ``$patch`` value is an error);
* lists the schema marks as merging are merged item by item on their merge key (scalars as a
  set); list items may say ``"$patch": "delete"`` (drop the item with that key) or
  ``"$patch": "replace"`` (the list becomes the patch's other items); every other list is
  replaced whole;
* ``$retainKeys: [...]`` drops the object's keys not listed (the patch may only set listed
  keys), ``$deleteFromPrimitiveList/<list>`` removes scalars, and ``$setElementOrder/<list>``
  fixes the final order of ``<list>``.

Values the patch adds where the object had nothing are stored without directive keys and
nulls, which is what upstream's decode into the typed object leaves of them.
Hand-written on purpose: Python's patch libraries do JSON Patch and merge patch only;
strategic merge needs Kubernetes' per-field patch strategies (``patch_schema``).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.apiserver.patch.errors import bad_request, unprocessable
from podscale.apiserver.patch.order import check_merge_key, enforce_order
from podscale.apiserver.patch.schema import SchemaNode
from podscale.apiserver.patch.values import go_format, go_type, scalar_key

__all__ = ["apply_strategic_patch", "sanitize"]

_DIRECTIVE: Final = "$patch"
_RETAIN_KEYS: Final = "$retainKeys"
_DELETE_FROM: Final = "$deleteFromPrimitiveList"
_SET_ORDER: Final = "$setElementOrder"

# apimachinery's mergepatch error texts.
_BAD_PRIMITIVE_LIST: Final = "invalid patch format of primitive list"
_BAD_RETAIN_KEYS: Final = "invalid patch format of retainKeys"
_BAD_SET_ORDER: Final = "invalid patch format of setElementOrder list"


def apply_strategic_patch(target: dict[str, Any], patch: Any, schema: SchemaNode) -> dict[str, Any]:
    """``target`` (owned by the caller, updated in place) merged with the decoded ``patch``."""
    if patch is None:  # Go decodes "null" into a nil map: nothing to merge.
        return target
    if not isinstance(patch, dict):
        raise bad_request(
            f"json: cannot unmarshal {_json_kind(patch)} into Go value of type "
            "map[string]interface {}"
        )
    return _merge_map(target, patch, schema)


def sanitize(value: Any) -> Any:
    """``value`` without directive keys or null members, recursively."""
    if isinstance(value, dict):
        return {k: sanitize(v) for k, v in value.items() if v is not None and not _directive(k)}
    if isinstance(value, list):
        return [sanitize(item) for item in value]
    return value


def _directive(key: str) -> bool:
    return key in (_DIRECTIVE, _RETAIN_KEYS) or key.startswith((_DELETE_FROM, _SET_ORDER))


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "bool" if isinstance(value, bool) else "number"


def _merge_map(
    original: dict[str, Any], patch: dict[str, Any], schema: SchemaNode
) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        return _map_directive(patch)
    _retain_keys(original, patch)
    _merge_ordered_lists(original, patch, schema)
    for key, value in patch.items():
        field, from_list = key, False
        if key.startswith(_DELETE_FROM):
            field, from_list = _strip_prefix(key, _DELETE_FROM, _BAD_PRIMITIVE_LIST), True
        if value is None:
            original.pop(field, None)
            continue
        current = original.get(field)
        spec = schema.child(field)
        if isinstance(current, dict) and isinstance(value, dict):
            original[field] = _merge_map(current, value, spec)
        elif isinstance(current, list) and isinstance(value, list) and spec.merge:
            original[field] = _merge_list(current, value, spec, delete_only=from_list)
        else:
            # New keys, scalars, atomic lists and changed types take the patch value.
            original[field] = sanitize(value)
    return original


def _map_directive(patch: dict[str, Any]) -> dict[str, Any]:
    directive = patch[_DIRECTIVE]
    if directive == "replace":
        replaced: dict[str, Any] = sanitize(patch)
        return replaced
    if directive == "delete":
        return {}
    raise bad_request(f"unknown patch type: {go_format(directive)} in map: {go_format(patch)}")


def _strip_prefix(key: str, prefix: str, error: str) -> str:
    head, slash, field = key.partition("/")
    if head != prefix or not slash:
        raise bad_request(error)
    return field


def _retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """Apply and consume ``$retainKeys``: keys it does not list leave the object."""
    if _RETAIN_KEYS not in patch:
        return
    listed = patch.pop(_RETAIN_KEYS)
    if not isinstance(listed, list):
        raise bad_request(_BAD_RETAIN_KEYS)
    retained = {scalar_key(name) for name in listed}
    for key, value in patch.items():
        exempt = value is None or key.startswith((_DELETE_FROM, _SET_ORDER))
        if not exempt and scalar_key(key) not in retained:
            raise bad_request(_BAD_RETAIN_KEYS)
    for key in [k for k in original if scalar_key(k) not in retained]:
        del original[key]


def _merge_ordered_lists(
    original: dict[str, Any], patch: dict[str, Any], schema: SchemaNode
) -> None:
    """Consume every ``$setElementOrder/<list>`` with its ``<list>``, merged and ordered."""
    for key in [k for k in patch if k.startswith(_SET_ORDER)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise bad_request(f"expected a []interface {{}}, but received a {go_type(order)}")
        field = _strip_prefix(key, _SET_ORDER, _BAD_SET_ORDER)
        spec = schema.child(field)
        current, patched = original.get(field, []), patch.get(field, [])
        for value in (current, patched):
            if not isinstance(value, list):
                raise bad_request(f"expected a []interface {{}}, but received a {go_type(value)}")
        _check_order(patched, order, spec.merge_key)
        if field in original and field in patch:
            merged = _merge_list(current, patched, spec) if spec.merge else patched
        elif field in original or field in patch:
            merged = current if field in original else patched
        else:
            continue
        maps = _element_kind([*current, *patched]) == "map"
        # Upstream cannot order an atomic list of objects (it has no identity for them).
        if (current or patched) and (spec.merge_key or not maps):
            merged = enforce_order(merged, order, current, spec.merge_key, maps=maps)
        original[field] = sanitize(merged)
        patch.pop(field, None)


def _check_order(patched: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch's items must appear in ``order`` in the same relative order."""
    if not patched or not order:
        return
    items = patched
    if merge_key:
        items = [check_merge_key(i, merge_key) for i in patched]
        items = [i for i in items if i.get(_DIRECTIVE) != "delete"]
    at = wanted = 0
    while at < len(items) and wanted < len(order):
        if isinstance(items[at], dict) and _DIRECTIVE in items[at]:
            at += 1
            continue
        if _identity(items[at], merge_key) == _identity(order[wanted], merge_key):
            at += 1
        wanted += 1
    if at < len(items):
        raise bad_request(
            f"The order in patch list:\n{go_format(patched)}\n doesn't match "
            f"{_SET_ORDER} list:\n{go_format(order)}\n"
        )


def _identity(item: Any, merge_key: str) -> Any:
    return scalar_key(check_merge_key(item, merge_key)[merge_key] if merge_key else item)


def _element_kind(items: list[Any]) -> str:
    """``map`` or ``scalar`` for a list whose elements all share one JSON type."""
    types = {type(item) for item in items}
    if list in types:
        raise unprocessable("lists of lists are not supported")
    if len(types) > 1 or type(None) in types:
        raise bad_request(f"list element types are not identical: {go_format(items)}")
    return "map" if dict in types else "scalar"


def _merge_list(
    original: list[Any], patch: list[Any], spec: SchemaNode, *, delete_only: bool = False
) -> list[Any]:
    """A merging list: items matched on the merge key (maps) or by value (scalars)."""
    if not original and not patch:
        return original
    if _element_kind([*original, *patch]) == "scalar":
        if delete_only:
            dropped = {scalar_key(item) for item in patch}
            return [item for item in original if scalar_key(item) not in dropped]
        merged = list({scalar_key(item): item for item in [*original, *patch]}.values())
        return enforce_order(merged, patch, original, "", maps=False)
    if not spec.merge_key:
        raise bad_request("cannot merge lists without merge key for type struct")
    server, items = _list_directives(original, patch, spec.merge_key)
    merged = list(server)
    for item in items:
        wanted = scalar_key(item[spec.merge_key])
        index = next(
            (i for i, o in enumerate(merged) if _identity(o, spec.merge_key) == wanted), None
        )
        if index is None:
            merged.append(sanitize(item))
        else:
            merged[index] = _merge_map(merged[index], item, spec)
    return enforce_order(merged, items, server, spec.merge_key, maps=True)


def _list_directives(
    original: list[Any], patch: list[Any], merge_key: str
) -> tuple[list[Any], list[Any]]:
    """Apply the ``$patch`` items: (server items left, patch items left to merge)."""
    server, items, replace = original, [], False
    for item in patch:
        directive = item.get(_DIRECTIVE)
        if _DIRECTIVE not in item:
            items.append(check_merge_key(item, merge_key))
        elif directive == "delete":
            gone = scalar_key(check_merge_key(item, merge_key)[merge_key])
            server = [
                o for o in server if not (merge_key in o and scalar_key(o[merge_key]) == gone)
            ]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise bad_request("merging lists cannot yet be specified in the patch")
        else:
            raise bad_request(
                f"unknown patch type: {go_format(directive)} in map: {go_format(item)}"
            )
    if replace:
        return [sanitize(item) for item in items], []
    return server, items
