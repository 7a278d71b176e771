"""Inputs and results of the API operations (``operations``, ``operations.delete``,
``operations.subresources``), shared by the HTTP handlers and the in-process client.

A ``Payload`` is a decoded dict (in-process callers), an ``OwnedObject`` (the in-process
client's own copy of one) or an ``EncodedBody`` as it arrived over HTTP; ``decode_payload``
turns the latter into a dict with the HTTP server's limits and errors
(``limits.decode_object``), so both transports fail the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from podscale.apiserver.errors import bad_request, unsupported_media_type
from podscale.apiserver.http.limits import JSON_MEDIA_TYPES, decode_object, media_type
from podscale.apiserver.protobuf.bodies import (
    PROTOBUF_MEDIA_TYPE,
    ProtobufError,
    decode_protobuf_object,
    supports_protobuf,
)
from podscale.store.interface import Preconditions

__all__ = [
    "DeleteOptions",
    "Deleted",
    "EncodedBody",
    "ListPage",
    "OwnedObject",
    "Payload",
    "Written",
    "decode_object_payload",
    "decode_payload",
]

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class EncodedBody:
    """A request body not decoded yet (an object, or a patch in the format ``content_type``
    names); ``content_type`` None is JSON, as the official Python client sends it."""

    data: bytes
    content_type: str | None = None

    @property
    def media_type(self) -> str:
        return media_type(self.content_type)


@dataclass(frozen=True, slots=True)
class OwnedObject:
    """A request object the operation may change in place: a ``copy_json`` result (so
    already what a copy of it would be: lists, not tuples; null, not NaN) that no one else
    holds. ``update_status`` defaults it without copying it again."""

    object: JSON


Payload = JSON | EncodedBody | OwnedObject


def decode_payload(body: Payload) -> JSON:
    """The object of ``body``: an encoded one decodes with the server's checks (400/415)."""
    if isinstance(body, EncodedBody):
        return decode_object(body.data, body.content_type)
    if isinstance(body, OwnedObject):
        return body.object
    return body


def decode_object_payload(body: Payload, api_version: str, kind: str) -> JSON:
    """Like ``decode_payload`` for an object written to an ``api_version``/``kind`` endpoint
    (create, update, status, scale, binding), which may also come as Kubernetes protobuf.

    kubectl 1.32 and 1.33 send the objects of their generators (``create deployment``,
    ``run``, ``autoscale``...) as protobuf only; the answer is JSON as usual. Patches never
    are protobuf (``extensions.apply_patch`` refuses it).
    """
    if isinstance(body, EncodedBody) and body.media_type == PROTOBUF_MEDIA_TYPE:
        if not supports_protobuf(api_version, kind):
            raise unsupported_media_type(body.media_type, JSON_MEDIA_TYPES)
        try:
            return decode_protobuf_object(body.data, api_version, kind)
        except ProtobufError as err:
            raise bad_request(str(err)) from None
    return decode_payload(body)


@dataclass(frozen=True, slots=True)
class Written:
    """A created or updated object (served version) and the warnings for its headers."""

    object: JSON
    warnings: list[str] = field(default_factory=list)
    # A PATCH that created the object (server-side apply of an absent one) answers 201.
    created: bool = False


@dataclass(frozen=True, slots=True)
class ListPage:
    """Served items and the list metadata (``resourceVersion``, ``continue``...)."""

    items: list[JSON]
    metadata: JSON


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    """``DeleteOptions`` as parsed: ``propagation_policy`` "" when unset (validated by the
    delete operations), ``orphan_dependents`` and ``grace_period_seconds`` None when unset."""

    propagation_policy: str = ""
    orphan_dependents: bool | None = None
    preconditions: Preconditions = field(default_factory=Preconditions)
    dry_run: bool = False
    grace_period_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class Deleted:
    """The reply body of a delete and its HTTP code (200, or 202 while finalizers keep it)."""

    body: JSON
    code: int = 200
