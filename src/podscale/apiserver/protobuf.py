"""Kubernetes protobuf request bodies (``application/vnd.kubernetes.protobuf``) to JSON.

kubectl 1.32 and 1.33 POST the HPA of ``kubectl autoscale`` as protobuf only (kubectl-wire.md
§5); the API server decodes it here and carries on exactly as for a JSON body (check_type,
defaulting, validation), answering in JSON. Only autoscaling/v1 and autoscaling/v2
HorizontalPodAutoscaler and the self reviews of ``kubectl auth whoami|can-i`` (schemas in
``protobuf_reviews``) are understood; everything else is refused with a clear message.

The envelope, as upstream's ``runtime/serializer/protobuf`` writes it: the magic bytes
``k8s\\x00`` then a ``runtime.Unknown`` message ``{1: typeMeta{1: apiVersion, 2: kind},
2: raw, 3: contentEncoding, 4: contentType}`` whose ``raw`` is the object's own message.
Errors carry upstream's texts where upstream has one (``empty body``, the prefix message,
gogo's wire errors, the missing kind/apiVersion errors). Neighbours: ``protobuf_wire``
(bytes), ``protobuf_decode`` (schema-driven decoding), ``protobuf_hpa`` (the HPA schemas).
"""

from __future__ import annotations

import json
from typing import Any, Final

from podscale.apiserver.protobuf_decode import decode_message, decode_string
from podscale.apiserver.protobuf_hpa import HPA_V1, HPA_V2
from podscale.apiserver.protobuf_reviews import (
    SELF_SUBJECT_ACCESS_REVIEW,
    SELF_SUBJECT_REVIEW,
    SELF_SUBJECT_RULES_REVIEW,
)
from podscale.apiserver.protobuf_wire import BYTES, ProtobufError, WireReader

__all__ = ["PROTOBUF_MEDIA_TYPE", "ProtobufError", "decode_protobuf_object"]

PROTOBUF_MEDIA_TYPE: Final = "application/vnd.kubernetes.protobuf"

_PREFIX: Final = b"k8s\x00"
_SCHEMAS: Final = {
    ("autoscaling/v1", "HorizontalPodAutoscaler"): HPA_V1,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): HPA_V2,
    # kubectl auth whoami / can-i send these as protobuf only (``reviews`` answers them).
    ("authentication.k8s.io/v1", "SelfSubjectReview"): SELF_SUBJECT_REVIEW,
    ("authentication.k8s.io/v1beta1", "SelfSubjectReview"): SELF_SUBJECT_REVIEW,
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): SELF_SUBJECT_ACCESS_REVIEW,
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): SELF_SUBJECT_RULES_REVIEW,
}
_UNKNOWN_FIELDS: Final = {1: "TypeMeta", 2: "Raw", 3: "ContentEncoding", 4: "ContentType"}


def decode_protobuf_object(body: bytes) -> dict[str, Any]:
    """The object of a Kubernetes protobuf body as Kubernetes JSON (apiVersion, kind set).

    Raises ``ProtobufError`` for malformed bodies and (with ``unsupported`` set) for any kind
    other than an autoscaling/v1 or autoscaling/v2 HorizontalPodAutoscaler or a self review.
    """
    if not body:
        raise ProtobufError("empty data")
    if not body.startswith(_PREFIX):
        raise ProtobufError(
            "provided data does not appear to be a protobuf message, expected prefix "
            f"[{' '.join(str(byte) for byte in _PREFIX)}]"
        )
    if len(body) == len(_PREFIX):
        raise ProtobufError("empty body")
    api_version, kind, raw = _decode_unknown(body[len(_PREFIX) :])
    if not kind:
        raise ProtobufError(f"Object 'Kind' is missing in '{_type_meta(api_version, kind)}'")
    if not api_version:
        raise ProtobufError(f"Object 'apiVersion' is missing in '{_type_meta(api_version, kind)}'")
    schema = _SCHEMAS.get((api_version, kind))
    if schema is None:
        raise ProtobufError(
            f"the protobuf encoding is only supported for autoscaling/v1 and autoscaling/v2 "
            f"HorizontalPodAutoscaler and the self reviews, not for "
            f"{_group_version_kind(api_version, kind)}",
            unsupported=True,
        )
    obj: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
    return decode_message(raw, schema, obj)


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


def _type_meta(api_version: str, kind: str) -> str:
    """Go's ``%#v`` of a ``runtime.TypeMeta``, as upstream's missing-kind errors print it."""
    return f"runtime.TypeMeta{{APIVersion:{_go_quote(api_version)}, Kind:{_go_quote(kind)}}}"


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _group_version_kind(api_version: str, kind: str) -> str:
    """``schema.GroupVersionKind.String()``: ``apps/v1, Kind=Deployment``."""
    return f"{api_version}, Kind={kind}"
