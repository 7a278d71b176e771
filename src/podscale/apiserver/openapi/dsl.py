"""A tiny vocabulary for writing OpenAPI v3 schema fragments the way the Kubernetes apiserver does.

The ``openapi_schemas_*`` modules describe podscale's types with these builders; ``openapi``
assembles them into per group-version documents and ``openapi.fields`` walks objects against
them. Keeping the shapes in one place guarantees the details kubectl relies on are uniform:
named types are referenced as ``{"allOf": [{"$ref": ...}]}`` (the form ``kubectl explain`` follows),
top-level kinds carry a ``x-kubernetes-group-version-kind`` list, and lists carry the
``x-kubernetes-list-*`` / ``x-kubernetes-patch-*`` markers upstream publishes for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "REF_PREFIX",
    "Schema",
    "apps",
    "array",
    "atomic_array",
    "atomic_struct",
    "autoscaling_v1",
    "autoscaling_v2",
    "boolean",
    "core",
    "integer",
    "kind_header",
    "list_kind",
    "map_of",
    "merge_list",
    "meta",
    "number",
    "ref",
    "ref_target",
    "string",
    "string_map",
    "struct",
]

Schema = dict[str, Any]

REF_PREFIX: Final = "#/components/schemas/"


def core(name: str) -> str:
    """The schema name of core/v1 type ``name`` ("io.k8s.api.core.v1.Pod")."""
    return f"io.k8s.api.core.v1.{name}"


def apps(name: str) -> str:
    return f"io.k8s.api.apps.v1.{name}"


def autoscaling_v1(name: str) -> str:
    return f"io.k8s.api.autoscaling.v1.{name}"


def autoscaling_v2(name: str) -> str:
    return f"io.k8s.api.autoscaling.v2.{name}"


def meta(name: str) -> str:
    return f"io.k8s.apimachinery.pkg.apis.meta.v1.{name}"


def _described(schema: Schema, description: str) -> Schema:
    if description:
        schema["description"] = description
    return schema


def string(description: str = "", *, fmt: str | None = None, enum: Sequence[str] = ()) -> Schema:
    schema: Schema = {"type": "string"}
    if fmt:
        schema["format"] = fmt
    if enum:
        schema["enum"] = list(enum)
    return _described(schema, description)


def integer(description: str = "", *, fmt: str = "int32") -> Schema:
    return _described({"type": "integer", "format": fmt}, description)


def number(description: str = "") -> Schema:
    return _described({"type": "number", "format": "double"}, description)


def boolean(description: str = "") -> Schema:
    return _described({"type": "boolean"}, description)


def ref(name: str, description: str = "") -> Schema:
    """A property holding the named type; ``allOf`` so the description can sit beside it."""
    return _described({"allOf": [{"$ref": REF_PREFIX + name}]}, description)


def ref_target(schema: Mapping[str, Any]) -> str | None:
    """The schema name a fragment refers to (either ref form), or None for inline schemas."""
    direct = schema.get("$ref")
    if isinstance(direct, str):
        return direct.removeprefix(REF_PREFIX)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        return ref_target(all_of[0])
    return None


def array(
    items: Schema,
    description: str = "",
    *,
    list_type: str | None = None,
    map_keys: Sequence[str] = (),
    merge_key: str | None = None,
    strategy: str | None = None,
) -> Schema:
    """A list; the markers tell clients how to merge it (strategic merge, server-side apply)."""
    schema: Schema = {"type": "array", "items": items}
    if list_type:
        schema["x-kubernetes-list-type"] = list_type
    if map_keys:
        schema["x-kubernetes-list-map-keys"] = list(map_keys)
    if merge_key:
        schema["x-kubernetes-patch-merge-key"] = merge_key
    if strategy:
        schema["x-kubernetes-patch-strategy"] = strategy
    return _described(schema, description)


def atomic_array(items: Schema, description: str = "") -> Schema:
    """A list replaced as a whole on merge (``x-kubernetes-list-type: atomic``)."""
    return array(items, description, list_type="atomic")


def merge_list(
    item_type: str,
    description: str,
    *,
    key: str = "name",
    map_keys: Sequence[str] = (),
    strategy: str = "merge",
) -> Schema:
    """A list of named objects merged by ``key`` (containers by name, ports by containerPort)."""
    return array(
        ref(item_type),
        description,
        list_type="map",
        map_keys=map_keys or (key,),
        merge_key=key,
        strategy=strategy,
    )


def map_of(values: Schema, description: str = "") -> Schema:
    return _described({"type": "object", "additionalProperties": values}, description)


def string_map(description: str = "") -> Schema:
    return map_of({"type": "string"}, description)


def struct(
    description: str,
    properties: Mapping[str, Schema],
    *,
    required: Sequence[str] = (),
    gvk: tuple[str, str, str] | None = None,
) -> Schema:
    """A named object type; ``gvk`` (group, version, kind) marks a top-level kind."""
    schema: Schema = {
        "type": "object",
        "description": description,
        "properties": dict(properties),
    }
    if required:
        schema["required"] = list(required)
    if gvk is not None:
        group, version, kind = gvk
        schema["x-kubernetes-group-version-kind"] = [
            {"group": group, "kind": kind, "version": version}
        ]
    return schema


def kind_header(metadata_type: str = "ObjectMeta") -> dict[str, Schema]:
    """apiVersion, kind and metadata: the properties every kind (and list kind) starts with."""
    return {
        "apiVersion": string("The versioned schema of this object, e.g. apps/v1."),
        "kind": string("The REST resource this object represents, in CamelCase."),
        "metadata": ref(meta(metadata_type), "Standard object metadata."),
    }


def list_kind(
    description: str, item_type: str, gvk: tuple[str, str, str], *, item_description: str = ""
) -> Schema:
    """The ``<Kind>List`` wrapper: standard list metadata plus required ``items``."""
    return struct(
        description,
        {
            **kind_header("ListMeta"),
            "items": array(ref(item_type), item_description or "The listed objects."),
        },
        required=("items",),
        gvk=gvk,
    )


def atomic_struct(schema: Schema) -> Schema:
    """Marks a struct ``x-kubernetes-map-type: atomic`` (upstream's ``+structType=atomic``).

    Server-side apply then owns and replaces it as one value: a reference such as a key
    selector is meaningful only whole, so two managers never own halves of it.
    """
    schema["x-kubernetes-map-type"] = "atomic"
    return schema
