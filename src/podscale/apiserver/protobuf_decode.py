"""Protobuf messages to Kubernetes JSON, driven by small declarative message schemas.

Sits between ``protobuf_wire`` (the byte reader) and ``protobuf_hpa`` (the schemas of the
HPA types, transcribed from upstream's ``generated.proto`` field numbers). A ``MessageSpec``
maps field numbers to ``FieldSpec``s naming the JSON key and the value kind; fields it does
not list are skipped, as gogo skips unknown fields.

Contract, as upstream's proto2 decoding would see it:

* A field present on the wire appears in the JSON, even when empty (``""``, ``{}``); an
  absent field is absent (no zero-fill: defaulting and validation decide, as for JSON).
* A singular message seen twice is merged; a scalar seen twice keeps the last value; a
  repeated field appends; a map entry with a missing key or value uses ``""``.
* A known field with the wrong wire type is an error (gogo's ``wrong wireType``).
* Quantities are parsed like upstream's ``Quantity.Unmarshal`` (no trimming) and emitted
  as upstream's ``String()``.
* Strings are decoded as Go's JSON encoder would print them: invalid UTF-8 becomes U+FFFD.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from podscale.api.quantity import Quantity
from podscale.api.quantity_format import QuantityError, scan_quantity
from podscale.apiserver.protobuf_wire import (
    BYTES,
    VARINT,
    ProtobufError,
    WireReader,
    to_int32,
    to_int64,
)

__all__ = ["FieldKind", "FieldSpec", "MessageSpec", "decode_message"]

JSON = dict[str, Any]


class FieldKind(Enum):
    STRING = "string"
    INT32 = "int32"
    INT64 = "int64"
    QUANTITY = "quantity"
    MESSAGE = "message"
    STRING_MAP = "map<string,string>"


_WIRE_TYPES = {
    FieldKind.STRING: BYTES,
    FieldKind.INT32: VARINT,
    FieldKind.INT64: VARINT,
    FieldKind.QUANTITY: BYTES,
    FieldKind.MESSAGE: BYTES,
    FieldKind.STRING_MAP: BYTES,
}


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field: its JSON key, value kind, and for messages the nested schema.

    ``go_name`` is the Go struct field named in gogo's errors; by default the JSON key with
    its first letter upper-cased.
    """

    json_name: str
    kind: FieldKind
    repeated: bool = False
    message: MessageSpec | None = None
    go_name: str = ""

    @property
    def error_name(self) -> str:
        return self.go_name or self.json_name[:1].upper() + self.json_name[1:]


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """A message type: its proto name (for errors) and the fields podscale decodes."""

    name: str
    fields: Mapping[int, FieldSpec] = field(default_factory=dict)


_MAP_ENTRY = "MapEntry"


def decode_message(data: bytes, spec: MessageSpec, into: JSON | None = None) -> JSON:
    """Decode ``data`` as a ``spec`` message, merging into ``into`` (a new dict when None)."""
    result: JSON = {} if into is None else into
    reader = WireReader(data)
    while not reader.at_end():
        number, wire_type = reader.read_tag(spec.name)
        field_spec = spec.fields.get(number)
        if field_spec is None:
            reader.skip(wire_type)
            continue
        if wire_type != _WIRE_TYPES[field_spec.kind]:
            raise ProtobufError(
                f"proto: wrong wireType = {wire_type} for field {field_spec.error_name}"
            )
        _decode_field(reader, field_spec, result)
    return result


def _decode_field(reader: WireReader, spec: FieldSpec, result: JSON) -> None:
    key = spec.json_name
    if spec.kind is FieldKind.STRING_MAP:
        entry_key, entry_value = _decode_map_entry(reader.read_bytes())
        entries = result.setdefault(key, {})
        entries[entry_key] = entry_value
        return
    if spec.kind is FieldKind.MESSAGE:
        payload = reader.read_bytes()
        assert spec.message is not None, f"message field {key} has no schema"
        if spec.repeated:
            result.setdefault(key, []).append(decode_message(payload, spec.message))
        else:
            decode_message(payload, spec.message, result.setdefault(key, {}))
        return
    value = _decode_scalar(reader, spec.kind)
    if spec.repeated:
        result.setdefault(key, []).append(value)
    else:
        result[key] = value


def _decode_scalar(reader: WireReader, kind: FieldKind) -> str | int:
    if kind is FieldKind.STRING:
        return decode_string(reader.read_bytes())
    if kind is FieldKind.INT32:
        return to_int32(reader.read_varint())
    if kind is FieldKind.INT64:
        return to_int64(reader.read_varint())
    return _decode_quantity(reader.read_bytes())


def decode_string(payload: bytes) -> str:
    return payload.decode("utf-8", errors="replace")


def _decode_quantity(payload: bytes) -> str:
    # resource.Quantity is the message {1: string}; an empty message is the zero quantity.
    text: str | None = None
    reader = WireReader(payload)
    while not reader.at_end():
        number, wire_type = reader.read_tag("Quantity")
        if number != 1:
            reader.skip(wire_type)
            continue
        if wire_type != BYTES:
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field String_")
        text = decode_string(reader.read_bytes())
    if text is None:
        return "0"
    try:
        return str(Quantity(*scan_quantity(text)))
    except QuantityError as err:
        raise ProtobufError(str(err)) from None


def _decode_map_entry(payload: bytes) -> tuple[str, str]:
    key = value = ""
    reader = WireReader(payload)
    while not reader.at_end():
        number, wire_type = reader.read_tag(_MAP_ENTRY)
        if number not in (1, 2):
            reader.skip(wire_type)
            continue
        if wire_type != BYTES:
            name = "key" if number == 1 else "value"
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field {name}")
        if number == 1:
            key = decode_string(reader.read_bytes())
        else:
            value = decode_string(reader.read_bytes())
    return key, value
