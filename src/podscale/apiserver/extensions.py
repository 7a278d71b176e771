"""Typed access to the sibling modules owned by other parts of the API server.

``printing`` (Tables), ``openapi`` (documents, ``unknown_fields``) and ``patch``
(``apply_patch``/``PatchError``) are owned separately; the handlers call only these wrappers,
which adapt them to the server's ``ApiError`` and ``KindInfo``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, bad_request
from podscale.apiserver.openapi import documents as openapi
from podscale.apiserver.patch import patcher as patch
from podscale.apiserver.patch.errors import PatchError
from podscale.apiserver.printing import tables as printing

__all__ = [
    "apply_patch",
    "openapi_document",
    "openapi_root",
    "table_for",
    "table_row_event",
    "unknown_fields",
    "wants_table",
]

JSON = dict[str, Any]


def apply_patch(
    content_type: str, original: JSON, patch_body: bytes, *, kind: str, api_version: str
) -> JSON:
    """``original`` patched; a ``PatchError`` becomes an ``ApiError`` with its Status."""
    try:
        return patch.apply_patch(
            content_type, original, patch_body, kind=kind, api_version=api_version
        )
    except PatchError as err:
        raise ApiError(err.to_status()) from None
    except RecursionError:
        raise bad_request("json: exceeded max depth of 10000") from None


def wants_table(accept: str | None) -> bool:
    return printing.wants_table(accept or "")


def table_for(
    info: KindInfo,
    objects: list[JSON],
    *,
    include_object: str,
    resource_version: str,
    now: datetime,
) -> JSON:
    return printing.table_for(
        info, objects, include_object=include_object, resource_version=resource_version, now=now
    )


def table_row_event(
    info: KindInfo,
    obj: JSON,
    *,
    include_object: str,
    resource_version: str,
    now: datetime,
    with_columns: bool,
) -> JSON:
    return printing.table_row_event(
        info,
        obj,
        include_object=include_object,
        resource_version=resource_version,
        now=now,
        with_columns=with_columns,
    )


def unknown_fields(api_version: str, kind: str, obj: JSON) -> list[str]:
    return openapi.unknown_fields(api_version, kind, obj)


def openapi_root() -> JSON:
    return openapi.openapi_v3_root()


def openapi_document(group: str, version: str) -> bytes | None:
    """The serialized GV document (cached by ``openapi``), or None for an unserved GV."""
    return openapi.openapi_v3_document_bytes(group, version)
