"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``) to JSON.

kubectl 1.32 and 1.33 send the objects their generators build (``create deployment``,
``create namespace``, ``run``, ``autoscale``, ...) as protobuf only (kubectl-wire.md §5); the
API server decodes them here and carries on exactly as for a JSON body (check_type,
defaulting, validation), answering in JSON, which kubectl accepts. Every kind the server
serves has a schema (``protobuf.schema.ROOTS``).

Hand-written rather than on the ``protobuf`` library: upstream's errors are gogo's texts and
its JSON needs Kubernetes' own mapping (Quantity, Time, IntOrString, pointers), which a walk
over our own tables gives directly where the library would need both rebuilt around it.

The envelope, as upstream's ``runtime/serializer/protobuf`` writes it: the magic bytes
``k8s\\x00`` then a ``runtime.Unknown`` message ``{1: typeMeta{1: apiVersion, 2: kind},
2: raw, 3: contentEncoding, 4: contentType}`` whose ``raw`` is the object's own message.
Errors are worded as upstream's create and update handlers word them (``transformDecodeError``
around the serializer's and gogo's texts). Neighbours: ``protobuf.wire`` (bytes),
``protobuf.decode`` (schema-driven decoding), ``protobuf.schema`` (the tables).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.apiserver.protobuf.decode import decode_message, decode_string
from podscale.apiserver.protobuf.schema import ROOTS
from podscale.apiserver.protobuf.wire import BYTES, ProtobufError, WireReader

__all__ = ["PROTOBUF_MEDIA_TYPE", "ProtobufError", "decode_protobuf_object", "supports_protobuf"]

PROTOBUF_MEDIA_TYPE: Final = "application/vnd.kubernetes.protobuf"

_PREFIX: Final = b"k8s\x00"
_UNKNOWN_FIELDS: Final = {1: "TypeMeta", 2: "Raw", 3: "ContentEncoding", 4: "ContentType"}
# Where kube-apiserver's scheme (every built-in kind) was created, as its errors print it.
_SCHEME: Final = "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"


def supports_protobuf(api_version: str, kind: str) -> bool:
    """Whether bodies for this kind's endpoints may come as protobuf."""
    return (api_version, kind) in ROOTS


def decode_protobuf_object(body: bytes, api_version: str, kind: str) -> dict[str, Any]:
    """The object of a protobuf body sent to an ``api_version``/``kind`` endpoint, as JSON.

    A missing apiVersion or kind in the envelope is taken from the endpoint, as upstream's
    decoder takes it. Raises ``ProtobufError`` (a 400) with upstream's message.
    """
    try:
        sent_version, sent_kind, raw = _decode_envelope(body)
    except ProtobufError as err:
        raise ProtobufError(
            f"the object provided is unrecognized (must be of type {kind}): {err} "
            f"({_summary(body)})"
        ) from None
    if not sent_kind:
        sent_kind = kind
    if not sent_version:
        sent_version = api_version
    prefix = (
        f'{sent_kind} in version "{sent_version.rpartition("/")[2]}" cannot be handled as '
        f"a {kind}: "
    )
    schema = ROOTS.get((sent_version, sent_kind))
    if schema is None:
        raise ProtobufError(
            f'{prefix}no kind "{sent_kind}" is registered for version "{sent_version}" '
            f'in scheme "{_SCHEME}"'
        )
    obj: dict[str, Any] = {"kind": sent_kind, "apiVersion": sent_version}
    try:
        return decode_message(raw, schema, obj)
    except ProtobufError as err:
        raise ProtobufError(prefix + str(err)) from None


def _decode_envelope(body: bytes) -> tuple[str, str, bytes]:
    if not body:
        raise ProtobufError("empty data")
    if not body.startswith(_PREFIX):
        raise ProtobufError(
            "provided data does not appear to be a protobuf message, expected prefix "
            f"[{' '.join(str(byte) for byte in _PREFIX)}]"
        )
    if len(body) == len(_PREFIX):
        raise ProtobufError("empty body")
    return _decode_unknown(body[len(_PREFIX) :])


def _decode_unknown(data: bytes) -> tuple[str, str, bytes]:
    """``runtime.Unknown``: (apiVersion, kind, raw); the content fields are ignored, as
    upstream's decoder ignores them."""
    type_meta: dict[str, Any] = {}
    raw = b""
    reader = WireReader(data)
    while not reader.at_end():
        number, wire_type = reader.read_tag("Unknown")
        if number not in _UNKNOWN_FIELDS:
            reader.skip(wire_type)
            continue
        if wire_type != BYTES:
            raise ProtobufError(
                f"proto: wrong wireType = {wire_type} for field {_UNKNOWN_FIELDS[number]}"
            )
        payload = reader.read_bytes()
        if number == 1:
            _decode_type_meta(payload, type_meta)
        elif number == 2:
            raw = payload
    return type_meta.get("apiVersion", ""), type_meta.get("kind", ""), raw


def _decode_type_meta(payload: bytes, into: dict[str, Any]) -> None:
    reader = WireReader(payload)
    while not reader.at_end():
        number, wire_type = reader.read_tag("TypeMeta")
        if number not in (1, 2):
            reader.skip(wire_type)
            continue
        name = "apiVersion" if number == 1 else "kind"
        if wire_type != BYTES:
            go_name = "APIVersion" if number == 1 else "Kind"
            raise ProtobufError(f"proto: wrong wireType = {wire_type} for field {go_name}")
        into[name] = decode_string(reader.read_bytes())


def _summary(body: bytes) -> str:
    """Upstream's ``summarizeData(body, 30)``: the first 30 bytes, hex unless JSON-like."""
    if not body:
        return "<empty>"
    head = body[:30]
    text = head.decode("utf-8", errors="replace") if body[:1] == b"{" else head.hex()
    return text + " ..." if len(body) > 30 else text
