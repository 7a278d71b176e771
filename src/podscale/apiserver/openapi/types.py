"""Value types against the published schemas: what Go's JSON decoder would refuse.

Upstream decodes every body into Go structs before anything else, so ``"replicas": "3"`` or
``"metrics": "x"`` is a 400 (``... cannot be handled as a ReplicaSet: json: cannot unmarshal
string into Go struct field ReplicaSetSpec.spec.replicas of type int32``) and never stored.
podscale keeps objects as JSON, so ``admission`` checks the value types here, against the
same schemas ``openapi.fields`` uses for unknown fields. ``null`` is always accepted (Go
decodes it to the zero value); unknown fields are ``openapi.fields``' concern, not this one's.
Integers must also fit their ``format`` (int32, else int64), as Go refuses rather than wraps
``replicas: 2147483648``; ``admission`` runs this on every write, whatever the wire format.
The full walk (``_check``, ``TypeMismatch``) lives in ``type_walk``; this module adds an
update's walk of what it changed (``_check_changed``) and the memo of values found clean.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from podscale.apiserver.openapi.schemas import schema_for_kind
from podscale.apiserver.openapi.type_walk import TypeMismatch, _check, _node, _root, _walk

__all__ = ["TypeMismatch", "type_mismatches"]


def type_mismatches(
    api_version: str, kind: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None
) -> list[TypeMismatch]:
    """The first mismatches of ``obj`` against its kind's schema (empty for unknown kinds).

    ``old``: the stored object an update replaces, which passed this check when written. A
    value that is the same JSON as ``old``'s at the same place (same schema node) cannot
    mismatch, so it is not walked again, at any depth: a controller's status update re-sends
    a whole unchanged spec and metadata, and of its status only a few leaves move (a metric's
    value, one condition's reason). Byte equality, unlike ``==``, tells ``true`` from ``1``;
    scalars are compared with their type for the same reason. ``_check_changed`` is that
    walk; a changed part below the root that a full walk found clean before, as the same
    JSON, is not walked again (``_check_changed_memo``). Without ``old`` (or across
    apiVersions) every value is walked."""
    name = schema_for_kind(api_version, kind)
    if name is None:
        return []
    found: list[TypeMismatch] = []
    if old is not None and old.get("apiVersion") == api_version:
        _check_changed(obj, old, _root(name), kind, "", found)
    else:
        _walk(obj, name, kind, "", found)
    return found


def _same_json(value: Any, other: Any) -> bool:
    """Whether two containers of the same type serialize to the same bytes."""
    if value != other:
        return False  # values that differ never serialize alike: no need to serialize them
    try:
        return orjson.dumps(value) == orjson.dumps(other)
    except TypeError:  # beyond what JSON carries: let the walk decide
        return False


# Containers found clean (no mismatch) under a schema node, by the node's id and their
# bytes, with the node (held: its id stays its own) and the clean value as decoded from those
# bytes. Whether ``_check`` finds a mismatch depends on the value and the node alone (the
# struct and path only word the mismatch), and is the same for two values that are equal
# (``==``: a tuple is not a list, NaN is not null) and serialize alike (bytes: ``true`` is not
# ``1``, ``1.0`` is not ``1``). Only ``_check``'s verdict files a value (``_clean_below``,
# never the walk that skips what equals ``old``, whose verdict also rests on ``old``); a
# value ``_check`` finds clean has nothing ``_check_changed`` could find, whatever ``old``.
# A controller's status comes back to the same few values (a metric's reading, a
# condition's reason): it was walked again on every write. A value is filed the second
# time it comes (``_SEEN`` notes the first): a node's heartbeat never comes again, and is
# not walked whole for nothing.
_CLEAN: dict[tuple[int, bytes], tuple[Mapping[str, Any], Any]] = {}
_SEEN: dict[tuple[int, bytes], None] = {}  # only ever decides when a full walk is tried
_CLEAN_LIMIT: Final = 2048  # a decoded HPA status is ~3 KB
_SEEN_LIMIT: Final = 4096


def _check_changed_memo(
    value: Any,
    old: Any,
    schema: Mapping[str, Any],
    struct: str,
    path: str,
    found: list[TypeMismatch],
) -> None:
    """The rest of ``_check_changed`` for a container of ``old``'s type that is not the same
    JSON: nothing when the same JSON was found clean under ``schema`` before; else, the
    first time, ``_descend``; the second, whether ``_check`` finds nothing (``_clean_below``,
    which files it), and ``_descend``'s verdict when it does find something."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # beyond what JSON carries: walked, never filed
        _descend(value, old, schema, struct, path, found)
        return
    key = (id(schema), encoded)
    known = _CLEAN.get(key)
    if known is not None and known[0] is schema and known[1] == value:
        return
    if key not in _SEEN:
        if len(_SEEN) >= _SEEN_LIMIT:
            _SEEN.clear()
        _SEEN[key] = None
        _descend(value, old, schema, struct, path, found)
        return
    if not _clean_below(value, schema, key, encoded):
        # A mismatch somewhere: the one ``_check_changed`` reports, if any.
        _descend(value, old, schema, struct, path, found)


def _finds_nothing(value: Any, schema: Mapping[str, Any]) -> bool:
    found: list[TypeMismatch] = []
    _check(value, schema, "", "", found)
    return not found


def _is_clean(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether ``_check(value, schema, ...)`` finds nothing, a container as ``_clean_below``
    tells (filed ones not walked again)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return _finds_nothing(value, schema)
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # beyond what JSON carries: walked, never filed
        return _finds_nothing(value, schema)
    key = (id(schema), encoded)
    known = _CLEAN.get(key)
    if known is not None and known[0] is schema and known[1] == value:
        return True
    return _clean_below(value, schema, key, encoded)


def _clean_below(
    value: Any, schema: Mapping[str, Any], key: tuple[int, bytes], encoded: bytes
) -> bool:
    """Whether ``_check`` finds nothing in a container not filed under ``key`` (its schema
    node's id and its bytes ``encoded``); filed when so. A list (an object) that its node
    declares an array (an object) passes ``_check``'s test of the container itself, which
    then checks each item (each property, or additional property) as this does, with
    ``_is_clean``; anything else is ``_check``'s whole."""
    node = _node(schema)
    if node.opaque or node.wanted is None:
        clean = _finds_nothing(value, schema)
    elif type(value) is list and node.declared == "array":
        items = node.items
        clean = items is None or all(_is_clean(child, items) for child in value)
    elif type(value) is dict and node.declared == "object":
        properties, additional = node.properties, node.additional
        clean = True
        for name, child in value.items():
            if properties is not None and name in properties:
                child_schema = properties[name]
            elif additional is not None:
                child_schema = additional
            else:
                continue
            if not _is_clean(child, child_schema):
                clean = False
                break
    else:
        clean = _finds_nothing(value, schema)
    if clean:
        if len(_CLEAN) >= _CLEAN_LIMIT:
            _CLEAN.clear()
        _CLEAN[key] = (schema, orjson.loads(encoded))
    return clean


# Scalars whose value and type fix their JSON (a float's text does not: 1.0 and 1e0).
_EXACT_SCALARS: Final = frozenset({str, int, bool})


def _check_changed(
    value: Any,
    old: Any,
    schema: Mapping[str, Any],
    struct: str,
    path: str,
    found: list[TypeMismatch],
) -> None:
    """``_check(value, ...)`` where ``old`` is the stored value at the same place: the same
    first mismatch, found without walking what ``value`` shares with ``old``.

    Skipped: a str, int or bool equal to ``old``'s and of its very type (the same JSON), and
    containers of ``old``'s type serializing to its bytes. An object or an array that the
    schema takes as one is descended alongside ``old`` (keys by name, items by position), as
    ``_check`` descends it; everything else (a new key or item, a type change, floats, the
    either-or and quantity types) is left to ``_check``. The walk visits what it does walk
    in ``_check``'s order, so the first mismatch is the same."""
    if value is None or found:
        return
    kind = type(value)
    if kind is not type(old):
        _check(value, schema, struct, path, found)
        return
    if kind is dict or kind is list:
        if not path:
            # The root: an update's object is seldom the stored one as a whole (and never
            # comes again), while its parts mostly are; each is compared below.
            _descend(value, old, schema, struct, path, found)
        elif not _same_json(value, old):
            _check_changed_memo(value, old, schema, struct, path, found)
        return
    if not (kind in _EXACT_SCALARS and value == old):
        _check(value, schema, struct, path, found)


def _descend(
    value: Any,
    old: Any,
    schema: Mapping[str, Any],
    struct: str,
    path: str,
    found: list[TypeMismatch],
) -> None:
    """``_check_changed`` of a container of ``old``'s type that is not the same JSON."""
    kind = type(value)
    node = _node(schema)
    if node.opaque:
        _check(value, schema, struct, path, found)
        return
    if kind is list and node.declared == "array":
        items = node.items
        if items is not None:
            kept = len(old)
            for index, child in enumerate(value):
                if index < kept:
                    before = old[index]
                    same = type(child)
                    if same is dict or same is list:
                        _check_changed(child, before, items, struct, f"{path}[{index}]", found)
                    elif not (same in _EXACT_SCALARS and type(before) is same and child == before):
                        _check(child, items, struct, f"{path}[{index}]", found)
                else:
                    _check(child, items, struct, f"{path}[{index}]", found)
        return
    if kind is dict and node.declared == "object":
        holder = node.holder if node.holder is not None else struct
        properties = node.properties
        additional = node.additional
        for key, child in value.items():
            if properties is not None and key in properties:
                child_schema = properties[key]
            elif additional is not None:
                child_schema = additional
            else:
                continue
            child_path = f"{path}.{key}" if path else key
            if key in old:
                before = old[key]
                # Scalars settled here (an unchanged one, most of a status, is skipped): what
                # ``_check_changed`` would do with them, one call sooner.
                same = type(child)
                if same is dict or same is list:
                    _check_changed(child, before, child_schema, holder, child_path, found)
                elif not (same in _EXACT_SCALARS and type(before) is same and child == before):
                    _check(child, child_schema, holder, child_path, found)
            else:
                _check(child, child_schema, holder, child_path, found)
        return
    _check(value, schema, struct, path, found)
