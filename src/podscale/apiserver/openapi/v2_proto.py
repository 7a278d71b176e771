"""The ``/openapi/v2`` document as protobuf: gnostic's ``openapi.v2.Document`` message.

kubectl and client-go up to 1.28 fetch ``/openapi/v2`` with only
``application/com.github.proto-openapi.spec.v2@v1.0+protobuf`` acceptable, and parse it with
gnostic's generated code (``explain``, client-side validation and the ``fieldValidation``
query-parameter check all read this message). This module writes that message from the
Swagger JSON of ``openapi.v2``; field numbers are those of gnostic's ``OpenAPIv2.proto``.
Vendor extensions (``x-kubernetes-*``) are ``NamedAny`` values whose ``yaml`` holds the
value; JSON is YAML, so the value's JSON is written, which is what kube-openapi's readers
unmarshal. Keys the message has no field for are left out, as gnostic's compiler drops them.
No protobuf library: a tiny writer (varints, length-delimited fields) is enough.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, Final

from podscale.apiserver.openapi.v2 import openapi_v2_document

__all__ = ["encode_document", "encode_schema", "openapi_v2_protobuf"]

JSON = dict[str, Any]
_OPERATIONS: Final = {
    "get": 2,
    "put": 3,
    "post": 4,
    "delete": 5,
    "options": 6,
    "head": 7,
    "patch": 8,
}


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1  # negative int64s are ten-byte two's complement varints
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _string(number: int, value: Any) -> bytes:
    # proto3 leaves default values (empty strings) off the wire.
    return _bytes_field(number, str(value).encode()) if value not in (None, "") else b""


def _strings(number: int, values: Iterable[Any]) -> bytes:
    return b"".join(_bytes_field(number, str(value).encode()) for value in values)


def _bool(number: int, value: Any) -> bytes:
    return _varint(number << 3) + b"\x01" if value is True else b""


def _int64(number: int, value: Any) -> bytes:
    return _varint(number << 3) + _varint(int(value)) if isinstance(value, int) and value else b""


def _double(number: int, value: Any) -> bytes:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return b""
    return _varint(number << 3 | 1) + struct.pack("<d", float(value))


def _message(number: int, payload: bytes) -> bytes:
    return _bytes_field(number, payload)


def _any(value: Any) -> bytes:
    """gnostic ``Any``: the value as YAML (field 2); JSON is valid YAML."""
    return _string(2, json.dumps(value, separators=(",", ":"), sort_keys=True))


def _vendor_extensions(number: int, obj: Mapping[str, Any]) -> bytes:
    return b"".join(
        _message(number, _string(1, key) + _message(2, _any(value)))
        for key, value in obj.items()
        if key.startswith("x-")
    )


def encode_schema(schema: Mapping[str, Any]) -> bytes:
    """gnostic ``Schema``."""
    out = bytearray()
    out += _string(1, schema.get("$ref"))
    out += _string(2, schema.get("format"))
    out += _string(3, schema.get("title"))
    out += _string(4, schema.get("description"))
    if "default" in schema:
        out += _message(5, _any(schema["default"]))
    out += _double(6, schema.get("multipleOf"))
    out += _double(7, schema.get("maximum"))
    out += _bool(8, schema.get("exclusiveMaximum"))
    out += _double(9, schema.get("minimum"))
    out += _bool(10, schema.get("exclusiveMinimum"))
    out += _int64(11, schema.get("maxLength"))
    out += _int64(12, schema.get("minLength"))
    out += _string(13, schema.get("pattern"))
    out += _int64(14, schema.get("maxItems"))
    out += _int64(15, schema.get("minItems"))
    out += _bool(16, schema.get("uniqueItems"))
    out += _int64(17, schema.get("maxProperties"))
    out += _int64(18, schema.get("minProperties"))
    out += _strings(19, schema.get("required", ()))
    out += b"".join(_message(20, _any(value)) for value in schema.get("enum", ()))
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        out += _message(21, _message(1, encode_schema(additional)))
    elif isinstance(additional, bool):
        out += _message(21, _varint(2 << 3) + (b"\x01" if additional else b"\x00"))
    kind = schema.get("type")
    if kind:
        out += _message(22, _strings(1, [kind] if isinstance(kind, str) else kind))
    items = schema.get("items")
    if isinstance(items, dict):
        out += _message(23, _message(1, encode_schema(items)))
    out += b"".join(_message(24, encode_schema(part)) for part in schema.get("allOf", ()))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        named = b"".join(
            _message(1, _string(1, name) + _message(2, encode_schema(sub)))
            for name, sub in properties.items()
        )
        out += _message(25, named)
    out += _vendor_extensions(31, schema)
    return bytes(out)


def _parameter(parameter: Mapping[str, Any]) -> bytes:
    """``ParametersItem`` holding a ``Parameter``: a body or a query/path/header one."""
    where = parameter.get("in")
    if where == "body":
        body = (
            _string(1, parameter.get("description"))
            + _string(2, parameter.get("name"))
            + _string(3, where)
            + _bool(4, parameter.get("required"))
            + _message(5, encode_schema(parameter.get("schema") or {}))
        )
        return _message(1, _message(1, body))
    # Query, path and header sub-schemas share their first fields; type and the
    # uniqueItems flag sit at different numbers.
    numbers = {"query": (3, 6, 20), "path": (4, 5, 19), "header": (1, 5, 19)}
    choice, type_number, unique_number = numbers.get(str(where), numbers["query"])
    sub = (
        _bool(1, parameter.get("required"))
        + _string(2, where)
        + _string(3, parameter.get("description"))
        + _string(4, parameter.get("name"))
        + _string(type_number, parameter.get("type"))
        + _bool(unique_number, parameter.get("uniqueItems"))
    )
    return _message(1, _message(2, _message(choice, sub)))


def _responses(responses: Mapping[str, Any]) -> bytes:
    out = bytearray()
    for code, response in responses.items():
        body = _string(1, response.get("description"))
        if isinstance(response.get("schema"), dict):
            body += _message(2, _message(1, encode_schema(response["schema"])))
        out += _message(1, _string(1, code) + _message(2, _message(1, body)))
    return bytes(out)


def _operation(operation: Mapping[str, Any]) -> bytes:
    out = bytearray()
    out += _strings(1, operation.get("tags", ()))
    out += _string(2, operation.get("summary"))
    out += _string(3, operation.get("description"))
    out += _string(5, operation.get("operationId"))
    out += _strings(6, operation.get("produces", ()))
    out += _strings(7, operation.get("consumes", ()))
    out += b"".join(_message(8, _parameter(p)) for p in operation.get("parameters", ()))
    out += _message(9, _responses(operation.get("responses") or {}))
    out += _strings(10, operation.get("schemes", ()))
    out += _bool(11, operation.get("deprecated"))
    out += _vendor_extensions(13, operation)
    return bytes(out)


def _path_item(item: Mapping[str, Any]) -> bytes:
    out = bytearray()
    for verb, number in _OPERATIONS.items():
        if isinstance(item.get(verb), dict):
            out += _message(number, _operation(item[verb]))
    out += b"".join(_message(9, _parameter(p)) for p in item.get("parameters", ()))
    out += _vendor_extensions(10, item)
    return bytes(out)


def _security_definitions(definitions: Mapping[str, Any]) -> bytes:
    out = bytearray()
    for name, scheme in definitions.items():
        api_key = (
            _string(1, scheme.get("type"))
            + _string(2, scheme.get("name"))
            + _string(3, scheme.get("in"))
            + _string(4, scheme.get("description"))
        )
        out += _message(1, _string(1, name) + _message(2, _message(2, api_key)))
    return bytes(out)


def _security(requirements: Iterable[Mapping[str, Any]]) -> bytes:
    return b"".join(
        _message(
            12,
            b"".join(
                _message(1, _string(1, name) + _message(2, _strings(1, scopes)))
                for name, scopes in requirement.items()
            ),
        )
        for requirement in requirements
    )


def encode_document(document: Mapping[str, Any]) -> bytes:
    """gnostic ``Document`` of a Swagger 2.0 JSON document."""
    info = document.get("info") or {}
    paths = b"".join(
        _message(2, _string(1, path) + _message(2, _path_item(item)))
        for path, item in (document.get("paths") or {}).items()
    )
    definitions = b"".join(
        _message(1, _string(1, name) + _message(2, encode_schema(schema)))
        for name, schema in (document.get("definitions") or {}).items()
    )
    return (
        _string(1, document.get("swagger"))
        + _message(2, _string(1, info.get("title")) + _string(2, info.get("version")))
        + _message(8, paths)
        + _message(9, definitions)
        + _security(document.get("security", ()))
        + _message(13, _security_definitions(document.get("securityDefinitions") or {}))
    )


@cache
def openapi_v2_protobuf() -> bytes:
    """The served document as protobuf (built once)."""
    return encode_document(openapi_v2_document())
