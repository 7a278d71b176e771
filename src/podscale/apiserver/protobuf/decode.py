"""Protobuf messages to Kubernetes JSON, driven by the message schemas of ``protobuf.schema``.

Sits between ``protobuf.wire`` (the byte reader) and ``protobuf`` (the envelope). The JSON is
what Go's encoder would print for the struct gogo decodes the message into, so a protobuf
body is handled exactly like the same object sent as JSON:

* A non-pointer scalar at its zero value (``""``, ``0``, ``false``, empty bytes) is left out:
  to Go it is the same as absent. A pointer scalar present on the wire is kept, zero or not.
* A message present on the wire appears, even empty (``{}``); a singular message seen
  twice is merged; a scalar seen twice keeps the last value; a repeated field appends
  (numeric ones packed or not); map entries missing a key or value use the zero value.
* Fields a schema does not list are skipped, as gogo skips unknown fields.
* A known field with the wrong wire type is an error (gogo's ``wrong wireType``).
* Quantities are parsed like upstream's ``Quantity.Unmarshal`` and printed canonically;
  Time keeps whole seconds (RFC 3339, UTC), MicroTime microseconds; IntOrString is an
  int or a string by its type; bytes are base64; FieldsV1 is its raw JSON.
* Strings are decoded as Go's JSON encoder would print them: invalid UTF-8 becomes U+FFFD.
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

import orjson

from podscale.api.quantity import Quantity
from podscale.api.quantity_format import QuantityError, scan_quantity
from podscale.api.timestamps import format_micro_time, format_time
from podscale.apiserver.protobuf.schema import VARINT_KINDS, FieldKind, FieldSpec, MessageSpec
from podscale.apiserver.protobuf.wire import (
    BYTES,
    VARINT,
    ProtobufError,
    WireReader,
    to_int32,
    to_int64,
)

__all__ = ["decode_message", "decode_string"]

JSON = dict[str, Any]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_ZERO_VALUES: tuple[object, ...] = ("", 0, False)


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
        if field_spec.kind in VARINT_KINDS:
            if field_spec.repeated and wire_type == BYTES:
                _decode_packed(reader.read_bytes(), field_spec, result)
                continue
            expected = VARINT
        else:
            expected = BYTES
        if wire_type != expected:
            raise ProtobufError(
                f"proto: wrong wireType = {wire_type} for field {field_spec.go_name}"
            )
        _decode_field(reader, field_spec, result)
    return result


def _decode_field(reader: WireReader, spec: FieldSpec, result: JSON) -> None:
    key = spec.json_name
    if spec.kind is FieldKind.MAP:
        entry_key, entry_value = _decode_map_entry(reader.read_bytes(), spec)
        result.setdefault(key, {})[entry_key] = entry_value
        return
    if spec.kind is FieldKind.MESSAGE:
        assert spec.message is not None, f"message field {key} has no schema"
        payload = reader.read_bytes()
        if spec.inline:
            decode_message(payload, spec.message, result)
        elif spec.repeated:
            result.setdefault(key, []).append(decode_message(payload, spec.message))
        else:
            decode_message(payload, spec.message, result.setdefault(key, {}))
        return
    value = _decode_value(reader, spec.kind)
    if spec.repeated:
        result.setdefault(key, []).append(value)
    elif spec.pointer or (value is not None and value not in _ZERO_VALUES):
        result[key] = value
    else:
        # A later zero value overrides an earlier one, as it would in the Go struct.
        result.pop(key, None)


def _decode_packed(payload: bytes, spec: FieldSpec, result: JSON) -> None:
    reader = WireReader(payload)
    values = result.setdefault(spec.json_name, [])
    while not reader.at_end():
        values.append(_decode_value(reader, spec.kind))


def _decode_value(reader: WireReader, kind: FieldKind) -> Any:
    """One value of a scalar or special kind (None: the zero Time, printed as nothing)."""
    if kind is FieldKind.STRING:
        return decode_string(reader.read_bytes())
    if kind is FieldKind.BOOL:
        return reader.read_varint() != 0
    if kind is FieldKind.INT32:
        return to_int32(reader.read_varint())
    if kind is FieldKind.INT64:
        return to_int64(reader.read_varint())
    payload = reader.read_bytes()
    if kind is FieldKind.BYTES:
        return base64.b64encode(payload).decode("ascii")
    if kind is FieldKind.QUANTITY:
        return _decode_quantity(payload)
    if kind in (FieldKind.TIME, FieldKind.MICRO_TIME):
        return _decode_time(payload, micro=kind is FieldKind.MICRO_TIME)
    if kind is FieldKind.INT_OR_STRING:
        return _decode_int_or_string(payload)
    if kind is FieldKind.STRING_LIST:
        return _decode_string_list(payload)
    assert kind is FieldKind.FIELDS_V1, kind
    return _decode_fields_v1(payload)


def decode_string(payload: bytes) -> str:
    return payload.decode("utf-8", errors="replace")


def _fields(payload: bytes, message: str, names: dict[int, str]) -> dict[int, Any]:
    """The known fields of a small fixed message (``names``: number -> Go name; a name
    ending in ``$`` is a string field, every other one a varint)."""
    values: dict[int, Any] = {}
    reader = WireReader(payload)
    while not reader.at_end():
        number, wire_type = reader.read_tag(message)
        name = names.get(number)
        if name is None:
            reader.skip(wire_type)
            continue
        expected = BYTES if name.endswith("$") else VARINT
        if wire_type != expected:
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field {name.rstrip('$')}")
        values[number] = reader.read_bytes() if expected == BYTES else reader.read_varint()
    return values


def _decode_quantity(payload: bytes) -> str:
    # resource.Quantity is the message {1: string}; an empty message is the zero quantity.
    text = _fields(payload, "Quantity", {1: "String_$"}).get(1)
    if text is None:
        return "0"
    try:
        return str(Quantity(*scan_quantity(decode_string(text))))
    except QuantityError as err:
        raise ProtobufError(str(err)) from None


def _decode_time(payload: bytes, *, micro: bool) -> str | None:
    # Timestamp {1: seconds, 2: nanos}. No bytes at all is the zero time (JSON null, left
    # out here); Time drops the nanoseconds as upstream's Time.Unmarshal does.
    if not payload:
        return None
    values = _fields(payload, "Timestamp", {1: "Seconds", 2: "Nanos"})
    seconds = to_int64(values.get(1, 0))
    nanos = to_int32(values.get(2, 0)) if micro else 0
    try:
        moment = _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
    except OverflowError:
        raise ProtobufError(f"proto: Timestamp: seconds out of range: {seconds}") from None
    return format_micro_time(moment) if micro else format_time(moment)


def _decode_int_or_string(payload: bytes) -> int | str:
    values = _fields(payload, "IntOrString", {1: "Type", 2: "IntVal", 3: "StrVal$"})
    kind = to_int64(values.get(1, 0))
    if kind == 0:
        return to_int32(values.get(2, 0))
    if kind == 1:
        return decode_string(values.get(3, b""))
    # Upstream's IntOrString.MarshalJSON refuses any other type.
    raise ProtobufError("impossible IntOrString.Type")


def _decode_string_list(payload: bytes) -> list[str]:
    reader = WireReader(payload)
    items: list[str] = []
    while not reader.at_end():
        number, wire_type = reader.read_tag("ExtraValue")
        if number != 1:
            reader.skip(wire_type)
            continue
        if wire_type != BYTES:
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field Items")
        items.append(decode_string(reader.read_bytes()))
    return items


def _decode_fields_v1(payload: bytes) -> Any:
    raw = _fields(payload, "FieldsV1", {1: "Raw$"}).get(1, b"")
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise ProtobufError(f"FieldsV1: invalid JSON: {err}") from None


def _decode_map_entry(payload: bytes, spec: FieldSpec) -> tuple[str, Any]:
    # gogo's map decoding: key 1, value 2, anything else skipped; absent parts are zero.
    assert spec.key is FieldKind.STRING
    assert spec.value is not None
    key = ""
    value: Any = None
    reader = WireReader(payload)
    while not reader.at_end():
        number, wire_type = reader.read_tag("MapEntry")
        if number not in (1, 2):
            reader.skip(wire_type)
            continue
        expected = VARINT if number == 2 and spec.value in VARINT_KINDS else BYTES
        if wire_type != expected:
            name = "key" if number == 1 else "value"
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field {name}")
        if number == 1:
            key = decode_string(reader.read_bytes())
        elif spec.value is FieldKind.MESSAGE:
            assert spec.message is not None
            value = decode_message(reader.read_bytes(), spec.message)
        else:
            value = _decode_value(reader, spec.value)
    if value is None:
        value = _zero(spec)
    return key, value


def _zero(spec: FieldSpec) -> Any:
    """A map value that was not sent: Go's zero value of the value type, as JSON."""
    zeros: dict[FieldKind, Any] = {
        FieldKind.STRING: "",
        FieldKind.BYTES: "",
        FieldKind.QUANTITY: "0",
        FieldKind.BOOL: False,
        FieldKind.INT32: 0,
        FieldKind.INT64: 0,
        FieldKind.MESSAGE: {},
        FieldKind.STRING_LIST: [],
    }
    return zeros.get(spec.value or FieldKind.MESSAGE)
