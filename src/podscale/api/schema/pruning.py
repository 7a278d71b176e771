"""Drop the fields a structural schema does not specify, as kube-apiserver does on decode.

``prune(obj, schema, is_resource_root=True)`` works in place and returns the dropped
fields' paths as kube-apiserver names them in ``unknown field "…"`` errors and warnings
(``spec.foo``, ``spec.ports[0].bar``, ``spec.labels.x.y``): keys joined with dots, list
indexes in brackets, sorted, as upstream's ``pruning.PruneWithOptions``.

Rules (apiextensions-apiserver ``pkg/apiserver/schema/pruning``):

- a key in ``properties`` is kept and pruned by its schema; with ``additionalProperties``
  set (schema or bool) every key is kept and pruned by that schema (a bool prunes nested
  objects empty); any other key is dropped;
- ``x-kubernetes-preserve-unknown-fields: true`` keeps unknown keys at that node, while
  the keys it does specify are still pruned by their schemas;
- an ``x-kubernetes-embedded-resource`` object (and the root when ``is_resource_root``)
  keeps ``apiVersion``, ``kind`` and ``metadata``; that metadata is cut to ObjectMeta's
  fields (``objectmeta_fields``), the way decoding into ObjectMeta drops the rest, and
  those drops are reported after the schema's (``metadata.foo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.schema.nodes import (
    EMPTY,
    Schema,
    additional_schema,
    as_schema,
    has_additional,
    is_embedded,
    items_schema,
    preserves_unknown,
    properties,
)
from podscale.api.schema.objectmeta_fields import prune_object_meta

__all__ = ["prune"]

_META_FIELDS: Final = frozenset({"apiVersion", "kind", "metadata"})


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


class _Pruner:
    def __init__(self) -> None:
        self.dropped: list[str] = []
        # Embedded metadata is visited after the schema walk, as upstream's coercion runs
        # after pruning; each entry is (metadata dict, its path).
        self.metadata: list[tuple[dict[str, Any], str]] = []

    def note_metadata(self, value: dict[str, Any], path: str) -> None:
        meta = value.get("metadata")
        if isinstance(meta, dict):
            self.metadata.append((meta, _join(path, "metadata")))

    def prune(self, value: Any, schema: Schema | None, path: str) -> None:
        if preserves_unknown(schema):
            assert schema is not None
            self.keep_unknown(value, schema, path)
            return
        if isinstance(value, dict):
            if schema is None:
                for key in list(value):
                    self.dropped.append(_join(path, key))
                    del value[key]
                return
            embedded = is_embedded(schema)
            if embedded:
                self.note_metadata(value, path)
            props = properties(schema)
            for key in list(value):
                if embedded and key in _META_FIELDS:
                    continue
                sub = as_schema(props.get(key))
                if sub is not None:
                    self.prune(value[key], sub, _join(path, key))
                elif has_additional(schema):
                    self.prune(value[key], additional_schema(schema), _join(path, key))
                else:
                    if key not in _META_FIELDS or path:
                        self.dropped.append(_join(path, key))
                    del value[key]
        elif isinstance(value, list):
            items = None if schema is None else items_schema(schema)
            for i, item in enumerate(value):
                self.prune(item, items, f"{path}[{i}]")

    def keep_unknown(self, value: Any, schema: Schema, path: str) -> None:
        if isinstance(value, dict):
            embedded = is_embedded(schema)
            if embedded:
                self.note_metadata(value, path)
            props = properties(schema)
            for key in list(value):
                if embedded and key in _META_FIELDS:
                    continue
                sub = as_schema(props.get(key))
                if sub is not None:
                    self.prune(value[key], sub, _join(path, key))
                elif has_additional(schema):
                    self.prune(value[key], additional_schema(schema), _join(path, key))
        elif isinstance(value, list):
            items = items_schema(schema)
            if items is None:
                return
            for i, item in enumerate(value):
                self.keep_unknown(item, items, f"{path}[{i}]")


def prune(
    obj: Any, schema: Mapping[str, Any] | None, *, is_resource_root: bool = True
) -> list[str]:
    """Remove unspecified fields from ``obj`` in place; return their paths (see module doc)."""
    node: Schema = schema if schema is not None else EMPTY
    if is_resource_root and not is_embedded(node):
        # The root of a resource is treated as an embedded resource: its type and object
        # meta are never pruned by the schema.
        node = {**node, "x-kubernetes-embedded-resource": True}
    pruner = _Pruner()
    pruner.prune(obj, node, "")
    dropped = sorted(pruner.dropped)
    for meta, path in pruner.metadata:
        dropped.extend(prune_object_meta(meta, path))
    return dropped
