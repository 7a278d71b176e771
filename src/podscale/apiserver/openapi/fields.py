"""Unknown-field detection against the published schemas, for ``fieldValidation``.

Upstream's strict JSON decoding rejects fields the Go types do not have and names them by their
path, e.g. ``unknown field "spec.template.spec.containers[0].imagee"``; the API server turns
the list into a 400 (``Strict``) or ``Warning`` headers (``Warn``). podscale keeps objects as
plain JSON, so the Go types' role is played by the OpenAPI schemas of ``openapi.schemas``:
whatever those do not describe is unknown. Pure functions; wrong value types are not this
module's concern (validation reports those).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.apiserver.openapi.dsl import REF_PREFIX, ref_target
from podscale.apiserver.openapi.schemas import all_schemas, schema_for_kind
from podscale.apiserver.openapi.schemas_jsonschema import ALTERNATIVES, PROPS

__all__ = ["unknown_fields"]


def unknown_fields(api_version: str, kind: str, obj: Mapping[str, Any]) -> list[str]:
    """Paths of the fields of ``obj`` its kind's schema does not know, in document order.

    Paths are dotted with list indices in brackets (``spec.metrics[1].resource.targte``), the
    form upstream's strict decoding errors use; the content of an unknown field is not searched
    further. A kind podscale has no schema for yields no findings: nothing can be judged.
    """
    name = schema_for_kind(api_version, kind)
    if name is None:
        return []
    found: list[str] = []
    _walk(obj, all_schemas()[name], "", found)
    return found


def _resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow ``allOf``/``$ref`` wrappers down to the named schema's definition."""
    target = ref_target(schema)
    while target is not None:
        schema = all_schemas()[target]
        target = ref_target(schema)
    return schema


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk(value: Any, schema: Mapping[str, Any], path: str, found: list[str]) -> None:
    alternative = ALTERNATIVES.get(ref_target(schema) or "")
    if alternative is not None:
        # A CRD schema's either-or field: a nested schema, or a list of them, is searched.
        if isinstance(value, Mapping):
            _walk(value, {"$ref": REF_PREFIX + PROPS}, path, found)
        elif isinstance(value, list) and alternative.array_of == PROPS:
            for index, child in enumerate(value):
                _walk(child, {"$ref": REF_PREFIX + PROPS}, f"{path}[{index}]", found)
        return
    schema = _resolve(schema)
    if isinstance(value, Mapping):
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        if isinstance(properties, Mapping):
            for key, child in value.items():
                if key in properties:
                    _walk(child, properties[key], _join(path, key), found)
                else:
                    found.append(_join(path, key))
        elif isinstance(additional, Mapping):
            # Map values (labels, resource lists) are named by their key, as Go's decoder does.
            for key, child in value.items():
                _walk(child, additional, _join(path, key), found)
        # An object schema with neither (FieldsV1, Patch) is free-form: anything goes.
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for index, child in enumerate(value):
                _walk(child, items, f"{path}[{index}]", found)
