"""apiVersion, kind and metadata of ``x-kubernetes-embedded-resource`` objects.

An embedded resource (a pod template inside a custom resource, say) must carry its own
``apiVersion`` and ``kind``; its ``metadata``, when present, must be valid ``ObjectMeta``
(name rules of a URL path segment; a missing name is allowed). This is upstream's
``schema/objectmeta.Validate`` with ``isResourceRoot=false``: the root object's own
metadata is validated by the API server, not here. ``validation.validate`` calls
``validate_embedded``; ``pruning`` keeps these three fields of every embedded object.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.names import is_dns1035_label
from podscale.api.schema.facts import facts
from podscale.api.schema.gofmt import bad_value
from podscale.api.schema.nodes import (
    Schema,
    additional_schema,
    as_schema,
    is_embedded,
    items_schema,
    properties,
)
from podscale.api.validation.names import validate_path_segment_name
from podscale.api.validation.objectmeta import validate_object_meta

__all__ = ["validate_embedded"]

# The string-valued ObjectMeta fields and the string maps: anything else there makes
# upstream's JSON round trip into ObjectMeta fail before any rule runs.
_STRING_FIELDS: Final = ("name", "generateName", "namespace", "uid", "resourceVersion")
_STRING_MAPS: Final = ("labels", "annotations")


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def _decode_problem(meta: Any) -> str | None:
    """The ``encoding/json`` error of decoding ``meta`` into ObjectMeta, when it fails."""
    if not isinstance(meta, dict):
        return f"json: cannot unmarshal {_json_kind(meta)} into Go value of type v1.ObjectMeta"
    for name in _STRING_FIELDS:
        found = meta.get(name)
        if found is not None and not isinstance(found, str):
            return (
                f"json: cannot unmarshal {_json_kind(found)} into Go struct field "
                f"ObjectMeta.{name} of type string"
            )
    for name in _STRING_MAPS:
        found = meta.get(name)
        if found is None:
            continue
        if not isinstance(found, dict):
            return (
                f"json: cannot unmarshal {_json_kind(found)} into Go struct field "
                f"ObjectMeta.{name} of type map[string]string"
            )
        for item in found.values():
            if item is not None and not isinstance(item, str):
                return (
                    f"json: cannot unmarshal {_json_kind(item)} into Go struct field "
                    f"ObjectMeta.{name} of type string"
                )
    return None


def _check_api_version(value: Any, path: FieldPath) -> list[FieldError]:
    if not isinstance(value, str):
        return [invalid(path, bad_value(value), "must be a string")]
    if not value:
        return [invalid(path, value, "must not be empty")]
    if value != "/" and value.count("/") > 1:
        return [invalid(path, value, f"unexpected GroupVersion string: {value}")]
    return []


def _check_kind(value: Any, path: FieldPath) -> list[FieldError]:
    if not isinstance(value, str):
        return [invalid(path, bad_value(value), "must be a string")]
    if not value:
        return [invalid(path, value, "must not be empty")]
    problems = is_dns1035_label(value.lower())
    if problems:
        detail = "may have mixed case, but should otherwise match: " + ",".join(problems)
        return [invalid(path, value, detail)]
    return []


def _check_resource(value: dict[str, Any], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    if "apiVersion" not in value:
        errors.append(required(path.child("apiVersion")))
    if "kind" not in value:
        errors.append(required(path.child("kind")))
    if "apiVersion" in value:
        errors.extend(_check_api_version(value["apiVersion"], path.child("apiVersion")))
    if "kind" in value:
        errors.extend(_check_kind(value["kind"], path.child("kind")))
    if "metadata" in value:
        meta = value["metadata"]
        problem = _decode_problem(meta)
        if problem is not None:
            errors.append(invalid(path.child("metadata"), bad_value(meta), problem))
        elif meta is not None:
            # Upstream fills in a name so that a nameless template passes.
            checked = dict(meta, name=meta.get("name") or "fakename")
            errors.extend(
                validate_object_meta(
                    checked,
                    namespaced=bool(meta.get("namespace")),
                    path=path.child("metadata"),
                    name_validator=validate_path_segment_name,
                )
            )
    return errors


def _walk(value: Any, schema: Schema | None, path: FieldPath) -> list[FieldError]:
    if schema is None or not facts(schema).embedded:
        return []
    errors: list[FieldError] = []
    if isinstance(value, dict):
        if is_embedded(schema):
            errors.extend(_check_resource(value, path))
        props = properties(schema)
        extra = additional_schema(schema)
        for key, item in value.items():
            sub = as_schema(props.get(key))
            if sub is not None:
                errors.extend(_walk(item, sub, path.child(key)))
            elif extra is not None:
                errors.extend(_walk(item, extra, path.key(key)))
    elif isinstance(value, list):
        items = items_schema(schema)
        for i, item in enumerate(value):
            errors.extend(_walk(item, items, path.index(i)))
    return errors


def validate_embedded(value: Any, schema: Schema, path: FieldPath) -> list[FieldError]:
    """Errors of every embedded resource in ``value``.

    The root counts only if its own schema says so (CRD validation forbids that), because
    upstream calls this with ``isResourceRoot=false``.
    """
    return _walk(value, schema, path)
