"""OpenAPI documents of custom resources: ``/openapi/v3/apis/<group>/<version>``, ``/openapi/v2``.

kube-apiserver publishes every served version of every Established CRD: per group-version a v3
document with the kind's schema (``customresources.openapi_schema``), its ``<Kind>List``, the
paths of the resource and its ``status`` / ``scale`` subresources (``openapi.paths``, with
upstream's patch types for custom resources: no strategic merge) and the meta (and
autoscaling/v1 Scale) schemas they refer to; kinds sharing a group-version share a document.
Schemas are named by the reversed group (``com.example.v1.Widget``). The Swagger 2.0 document
is the built-in one plus the same paths with the 2.0 cut of the schemas (``openapi.v2``).

The app serves ``openapi_v3_root`` (the built-in root plus the custom group-versions, each with
its hash), ``openapi_v3_document_bytes`` for a custom group-version and ``openapi_v2_body`` for
``/openapi/v2`` (through ``openapi.v2_http.serve_openapi_v2``'s ``body_for``). Every function
takes the CRD objects as stored (plain dicts) and recomputes: caching, keyed on the CRDs'
resourceVersions, is the caller's. ``kubectl explain`` reads these documents.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from podscale.api.kinds import ALL_VERBS, KindInfo, Subresource
from podscale.apiserver.customresources.openapi_schema import kind_schema
from podscale.apiserver.openapi import documents
from podscale.apiserver.openapi.dsl import Schema, list_kind, meta
from podscale.apiserver.openapi.paths import group_version_paths, schema_name
from podscale.apiserver.openapi.schemas import reachable_schemas, referenced_names
from podscale.apiserver.openapi.v2 import openapi_v2_document, v2_parts
from podscale.apiserver.openapi.v2_http import PROTOBUF_V2
from podscale.apiserver.openapi.v2_proto import encode_document

__all__ = [
    "openapi_v2_body",
    "openapi_v2_definitions",
    "openapi_v2_document_with",
    "openapi_v3_document",
    "openapi_v3_document_bytes",
    "openapi_v3_group_versions",
    "openapi_v3_root",
]

JSON = dict[str, Any]

_INFO: Final = {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
_STRATEGIC_MERGE: Final = "application/strategic-merge-patch+json"


class _Served:
    """One served version of one CRD, with what the documents need from it."""

    def __init__(self, crd: Mapping[str, Any], version: Mapping[str, Any]) -> None:
        spec: JSON = crd["spec"]
        names: JSON = spec["names"]
        self.group: str = spec["group"]
        self.version: str = version["name"]
        self.kind: str = names["kind"]
        self.plural: str = names["plural"]
        self.list_kind: str = _str(names.get("listKind")) or f"{self.kind}List"
        schema = version.get("schema")
        self.schema = schema.get("openAPIV3Schema") if isinstance(schema, dict) else None
        self.preserve_unknown = spec.get("preserveUnknownFields") is True
        subresources = version.get("subresources")
        self.subresources = subresources if isinstance(subresources, dict) else {}
        self.namespaced = spec.get("scope") != "Cluster"

    @property
    def gvk(self) -> tuple[str, str, str]:
        return (self.group, self.version, self.kind)

    def kind_info(self) -> KindInfo:
        subresources: list[Subresource] = []
        if isinstance(self.subresources.get("status"), dict):
            subresources.append(Subresource("status", self.group, self.version, self.kind))
        if isinstance(self.subresources.get("scale"), dict):
            subresources.append(Subresource("scale", "autoscaling", "v1", "Scale"))
        return KindInfo(
            group=self.group,
            version=self.version,
            kind=self.kind,
            plural=self.plural,
            singular=self.kind.lower(),
            short_names=(),
            namespaced=self.namespaced,
            verbs=ALL_VERBS,
            subresources=tuple(subresources),
            categories=(),
            list_kind=self.list_kind,
        )

    def schemas(self, *, v2: bool) -> dict[str, Schema]:
        name = schema_name(self.group, self.version, self.kind)
        published = kind_schema(
            self.schema, self.gvk, v2=v2, preserve_unknown=self.preserve_unknown
        )
        listed = list_kind(
            f"{self.list_kind} is a list of {self.kind}",
            name,
            (self.group, self.version, self.list_kind),
            item_description=f"List of {self.plural}.",
        )
        return {name: published, schema_name(self.group, self.version, self.list_kind): listed}


def _served(crds: Iterable[Mapping[str, Any]]) -> Iterator[_Served]:
    """Every served version of every Established, well-formed CRD, in input order."""
    for crd in crds:
        if not _established(crd):
            continue
        spec = crd.get("spec")
        versions = spec.get("versions") if isinstance(spec, dict) else None
        if not isinstance(versions, list):
            continue
        for version in versions:
            if not isinstance(version, dict) or version.get("served") is not True:
                continue
            try:
                yield _Served(crd, version)
            except (KeyError, TypeError):
                continue  # validation keeps such CRDs out; never fail a document over one


def _established(crd: Mapping[str, Any]) -> bool:
    status = crd.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    return isinstance(conditions, list) and any(
        isinstance(c, dict) and c.get("type") == "Established" and c.get("status") == "True"
        for c in conditions
    )


def openapi_v3_group_versions(crds: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The (group, version) pairs the CRDs publish documents for, sorted."""
    return sorted({(served.group, served.version) for served in _served(crds)})


def _document(crds: Iterable[Mapping[str, Any]], group: str, version: str, *, v2: bool) -> JSON:
    served = [s for s in _served(crds) if (s.group, s.version) == (group, version)]
    if not served:
        return {}
    paths = group_version_paths([s.kind_info() for s in served])
    _upstream_operations(paths, group, version)
    custom: dict[str, Schema] = {}
    for s in served:
        custom.update(s.schemas(v2=v2))
    roots = {meta("DeleteOptions"), meta("Status"), *referenced_names(paths)}
    roots.update(referenced_names(custom))
    schemas = reachable_schemas(roots - custom.keys())
    schemas.update(custom)
    return {
        "openapi": "3.0.0",
        "info": dict(_INFO),
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _upstream_operations(paths: JSON, group: str, version: str) -> None:
    """Custom resources take no strategic merge patch; operation ids and tags spell the group
    as kube-openapi's ``GetOperationIDAndTags`` does (``listCeramicsExampleComV1...``)."""
    built_in = f"{group.capitalize()}{version.capitalize()}"
    trimmed = group.removesuffix(".k8s.io")
    spelled = _operation_id(trimmed, capitalize=True) + _operation_id(version, capitalize=True)
    tag = f"{_operation_id(trimmed, capitalize=False)}_{_operation_id(version, capitalize=False)}"
    for item in paths.values():
        for method, operation in item.items():
            if method == "parameters":
                continue
            operation["operationId"] = operation["operationId"].replace(built_in, spelled, 1)
            operation["tags"] = [tag]
            if method == "patch":
                operation["requestBody"]["content"].pop(_STRATEGIC_MERGE, None)


def _operation_id(text: str, *, capitalize: bool) -> str:
    """kube-openapi's ``ToValidOperationID``: drop non-identifier runes, capitalizing after."""
    out: list[str] = []
    upper = capitalize
    for index, char in enumerate(text):
        if char.isalpha() or char == "_" or (index and char.isdigit()):
            out.append(char.upper() if upper else char)
            upper = False
        else:
            upper = True
    return "".join(out)


def openapi_v3_document(crds: Iterable[Mapping[str, Any]], group: str, version: str) -> JSON | None:
    """The v3 document of a custom group-version, or None if no CRD serves it."""
    return _document(crds, group, version, v2=False) or None


def openapi_v3_document_bytes(
    crds: Iterable[Mapping[str, Any]], group: str, version: str
) -> bytes | None:
    """The document serialized as ``openapi.documents`` serializes (sorted keys, compact)."""
    document = openapi_v3_document(crds, group, version)
    return None if document is None else _serialize(document)


def openapi_v3_root(crds: Iterable[Mapping[str, Any]]) -> JSON:
    """``/openapi/v3``: the built-in entries plus one per custom group-version."""
    crds = list(crds)
    paths: JSON = dict(documents.openapi_v3_root()["paths"])
    for group, version in openapi_v3_group_versions(crds):
        key = f"apis/{group}/{version}"
        body = openapi_v3_document_bytes(crds, group, version)
        assert body is not None
        digest = hashlib.sha512(body).hexdigest().upper()
        paths.setdefault(key, {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"})
    return {"paths": dict(sorted(paths.items()))}


def _v2_parts(crds: list[Mapping[str, Any]]) -> tuple[JSON, JSON]:
    paths: JSON = {}
    definitions: JSON = {}
    for group, version in openapi_v3_group_versions(crds):
        gv_paths, gv_definitions = v2_parts(_document(crds, group, version, v2=True))
        paths.update(gv_paths)
        definitions.update(gv_definitions)
    return paths, definitions


def openapi_v2_definitions(crds: Iterable[Mapping[str, Any]]) -> JSON:
    """The Swagger 2.0 definitions the custom kinds add (their own and those they refer to)."""
    return _v2_parts(list(crds))[1]


def openapi_v2_document_with(crds: Iterable[Mapping[str, Any]]) -> JSON:
    """The whole ``/openapi/v2`` document: the built-in one plus the custom kinds'."""
    document = openapi_v2_document()
    paths, definitions = _v2_parts(list(crds))
    document["paths"] = dict(sorted({**document["paths"], **paths}.items()))
    document["definitions"] = dict(sorted({**document["definitions"], **definitions}.items()))
    return document


def openapi_v2_body(crds: Iterable[Mapping[str, Any]], media: str) -> bytes:
    """``openapi_v2_document_with`` as ``media`` (JSON, or the gnostic protobuf) asks."""
    document = openapi_v2_document_with(crds)
    return encode_document(document) if media == PROTOBUF_V2 else _serialize(document)


def _serialize(document: JSON) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
