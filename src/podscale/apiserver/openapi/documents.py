"""The ``/openapi/v3`` documents: the root index and one document per served group-version.

Generated from the kind registry (``podscale.api.kinds``) for the paths (``openapi.paths``) and
from podscale's own schemas (``openapi.schemas``). kubectl >= 1.29 reads them to decide it may
leave field validation to the server (a PATCH operation per kind listing ``fieldValidation``) and
for ``kubectl explain``. Documents are serialized with sorted keys, so ``document_hash`` is stable
and changes exactly when a document does; it is the ``?hash=`` cache key kubectl uses. The app
serves the documents; ``unknown_fields`` (from ``openapi.fields``) backs ``fieldValidation``.
Pure: no I/O, everything is computed once and cached.
"""

from __future__ import annotations

import copy
import hashlib
import json
from functools import cache
from typing import Any, Final

from podscale.api.kind_discovery import served_group_versions
from podscale.api.kinds import all_kinds
from podscale.apiserver.openapi.dsl import meta
from podscale.apiserver.openapi.fields import unknown_fields
from podscale.apiserver.openapi.paths import api_prefix, group_version_paths, schema_name
from podscale.apiserver.openapi.schemas import reachable_schemas, referenced_names

__all__ = [
    "document_hash",
    "document_path",
    "openapi_v3_document",
    "openapi_v3_document_bytes",
    "openapi_v3_root",
    "unknown_fields",
]

# Upstream publishes its documents as "unversioned"; kubectl does not look at it.
_INFO: Final = {"title": "Kubernetes", "version": "unversioned"}
_SECURITY_SCHEMES: Final = {
    "BearerToken": {
        "description": "Bearer token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}


def document_path(group: str, version: str) -> str:
    """The root's key for a group-version: "api/v1", "apis/apps/v1"."""
    return api_prefix(group, version).removeprefix("/")


@cache
def _document(group: str, version: str) -> dict[str, Any] | None:
    infos = [info for info in all_kinds() if info.group_version == (group, version)]
    if not infos:
        return None
    paths = group_version_paths(infos)
    roots = {meta("DeleteOptions"), meta("Status"), *referenced_names(paths)}
    for info in infos:
        roots.add(schema_name(group, version, info.kind))
        if info.list_kind:
            roots.add(schema_name(group, version, info.list_kind))
    return {
        "openapi": "3.0.0",
        "info": dict(_INFO),
        "paths": paths,
        "components": {
            "schemas": reachable_schemas(roots),
            "securitySchemes": _SECURITY_SCHEMES,
        },
        "security": [{"BearerToken": []}],
    }


@cache
def openapi_v3_document_bytes(group: str, version: str) -> bytes | None:
    """The serialized document (sorted keys, compact), or None for a GV podscale doesn't serve."""
    document = _document(group, version)
    if document is None:
        return None
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def openapi_v3_document(group: str, version: str) -> dict[str, Any] | None:
    """The OpenAPI v3 document of ``group``/``version`` (a private copy), or None if unknown."""
    document = _document(group, version)
    return copy.deepcopy(document) if document is not None else None


@cache
def document_hash(group: str, version: str) -> str:
    """SHA-512 of a GV document, upper-case hex like upstream's; KeyError if not served."""
    serialized = openapi_v3_document_bytes(group, version)
    if serialized is None:
        gv = f"{group}/{version}" if group else version
        raise KeyError(f"no OpenAPI document for {gv}")
    return hashlib.sha512(serialized).hexdigest().upper()


def openapi_v3_root() -> dict[str, Any]:
    """The ``/openapi/v3`` index: every served GV with its hash-qualified document URL."""
    paths: dict[str, Any] = {}
    for group, version in served_group_versions():
        key = document_path(group, version)
        url = f"/openapi/v3/{key}?hash={document_hash(group, version)}"
        paths[key] = {"serverRelativeURL": url}
    return {"paths": dict(sorted(paths.items()))}
