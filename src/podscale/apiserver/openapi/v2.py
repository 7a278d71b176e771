"""``/openapi/v2``: one Swagger 2.0 document for everything served, derived from the v3 ones.

kubectl <= 1.28 reads only this document: ``kubectl explain`` walks its ``definitions`` and
``create``/``apply`` look for a PATCH operation of the kind listing ``fieldValidation`` (then
leave validation to the server, ``?fieldValidation=Strict``) or else validate against the
definitions themselves. The document is the union of ``openapi``'s per group-version v3
documents (so every registry kind appears here without further work), rewritten into 2.0's
shapes as upstream publishes them: ``#/definitions/`` references (a described reference is
``$ref`` with a sibling description, not v3's ``allOf`` wrapper), Quantity and IntOrString as
strings (the latter ``format: int-or-string``), typed query parameters instead of v3's
parameter schemas, a ``body`` parameter instead of ``requestBody``, and ``consumes`` /
``produces`` from the v3 media types. ``openapi.v2_proto`` encodes the same document as the
protobuf kubectl 1.27 asks for. Pure and cached.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Final

from podscale.api.kind_discovery import served_group_versions
from podscale.api.version import KUBERNETES_VERSION
from podscale.apiserver.openapi.documents import openapi_v3_document
from podscale.apiserver.openapi.dsl import REF_PREFIX

__all__ = ["V2_REF_PREFIX", "openapi_v2_document", "openapi_v2_json", "v2_parts"]

JSON = dict[str, Any]
V2_REF_PREFIX: Final = "#/definitions/"
_OPERATIONS: Final = ("get", "put", "post", "delete", "patch", "head", "options")
_SECURITY_DEFINITIONS: Final = {
    "BearerToken": {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}


def convert_schema(schema: Any) -> Any:
    """A v3 schema fragment as Swagger 2.0 writes it (a new value; the input is kept)."""
    if not isinstance(schema, dict):
        return schema
    out: JSON = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str):
            out[key] = V2_REF_PREFIX + value.removeprefix(REF_PREFIX)
        elif key == "allOf" and isinstance(value, list) and len(value) == 1:
            # v3's described reference: 2.0 keeps the description beside the $ref.
            out.update(convert_schema(value[0]))
        elif key == "oneOf":
            # Quantity (string or number) and IntOrString: 2.0 has no unions; upstream
            # publishes both as strings, IntOrString with its format.
            out.setdefault("type", "string")
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: convert_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = convert_schema(value)
        elif key != "nullable":
            out[key] = value
    return out


def _parameter(parameter: JSON) -> JSON:
    out = {key: value for key, value in parameter.items() if key != "schema"}
    out.update(parameter.get("schema") or {})
    return out


def _operation(operation: JSON) -> JSON:
    out: JSON = {}
    parameters = [_parameter(p) for p in operation.get("parameters", [])]
    body = operation.get("requestBody")
    if isinstance(body, dict):
        content: JSON = body.get("content") or {}
        out["consumes"] = list(content)
        first: JSON = next(iter(content.values()), {})
        schema = first.get("schema", {})
        parameters.insert(
            0,
            {
                "in": "body",
                "name": "body",
                "required": bool(body.get("required")),
                "schema": convert_schema(schema),
            },
        )
    responses: JSON = {}
    produces: list[str] = []
    for code, response in (operation.get("responses") or {}).items():
        converted = {"description": response.get("description", "")}
        content = response.get("content") or {}
        for media in content:
            if media not in produces:
                produces.append(media)
        if content:
            converted["schema"] = convert_schema(next(iter(content.values())).get("schema", {}))
        responses[code] = converted
    if produces:
        out["produces"] = produces
    out["schemes"] = ["https"]
    for key, value in operation.items():
        if key not in ("parameters", "requestBody", "responses"):
            out[key] = value
    if parameters:
        out["parameters"] = parameters
    out["responses"] = responses
    return out


def _path_item(item: JSON) -> JSON:
    out: JSON = {}
    for key, value in item.items():
        if key == "parameters":
            out[key] = [_parameter(p) for p in value]
        elif key in _OPERATIONS:
            out[key] = _operation(value)
        else:
            out[key] = value
    return out


def v2_parts(document: JSON) -> tuple[JSON, JSON]:
    """The paths and the definitions of one v3 group-version document, in 2.0's shapes.

    ``customresources.openapi`` adds the custom resources' documents to ours through it.
    """
    paths = {path: _path_item(item) for path, item in document["paths"].items()}
    schemas = document["components"]["schemas"].items()
    return paths, {name: convert_schema(schema) for name, schema in schemas}


@cache
def _document() -> JSON:
    paths: JSON = {}
    definitions: JSON = {}
    for group, version in served_group_versions():
        document = openapi_v3_document(group, version)
        if document is None:
            continue
        gv_paths, gv_definitions = v2_parts(document)
        paths.update(gv_paths)
        definitions.update(gv_definitions)
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION},
        "paths": dict(sorted(paths.items())),
        "definitions": dict(sorted(definitions.items())),
        "securityDefinitions": _SECURITY_DEFINITIONS,
        "security": [{"BearerToken": []}],
    }


def openapi_v2_document() -> JSON:
    """The Swagger 2.0 document (a private copy)."""
    return json.loads(openapi_v2_json())  # type: ignore[no-any-return]


@cache
def openapi_v2_json() -> bytes:
    """The document serialized with sorted keys (stable, so its ETag is too)."""
    return json.dumps(_document(), sort_keys=True, separators=(",", ":")).encode()
