"""OpenAPI v3 and v2 documents of custom resources, built from their CRDs."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from podscale.apiserver.customresources.openapi import (
    openapi_v2_body,
    openapi_v2_definitions,
    openapi_v2_document_with,
    openapi_v3_document,
    openapi_v3_document_bytes,
    openapi_v3_group_versions,
    openapi_v3_root,
)
from podscale.apiserver.customresources.openapi_schema import kind_schema, published_schema
from podscale.apiserver.openapi.documents import openapi_v3_root as builtin_root
from podscale.apiserver.openapi.paths import schema_name
from podscale.apiserver.openapi.v2 import openapi_v2_json
from podscale.apiserver.openapi.v2_http import PROTOBUF_V2, serve_openapi_v2

GROUP = "ceramics.podscale.test"
KILN = "test.podscale.ceramics.v1.Kiln"
KILN_LIST = "test.podscale.ceramics.v1.KilnList"
PREFIX = f"/apis/{GROUP}/v1"
GVK = (GROUP, "v1", "Kiln")
ESTABLISHED = {"conditions": [{"type": "Established", "status": "True"}]}


def _v3(crd: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    document = openapi_v3_document([crd], GROUP, version)
    assert document is not None
    return document


def _refs(fragment: Any) -> Iterator[str]:
    if isinstance(fragment, dict):
        for key, value in fragment.items():
            # A reference is a string; JSONSchemaProps also has a *property* named "$ref".
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(fragment, list):
        for value in fragment:
            yield from _refs(value)


def _spec_schema(document: dict[str, Any], name: str = KILN) -> dict[str, Any]:
    schemas = document["components"]["schemas"] if "components" in document else document
    return schemas[name]["properties"]["spec"]  # type: ignore[no-any-return]


def test_only_served_versions_of_established_crds_are_published(kiln_crd: dict[str, Any]) -> None:
    assert openapi_v3_group_versions([kiln_crd]) == [(GROUP, "v1"), (GROUP, "v1alpha1")]
    pending = copy.deepcopy(kiln_crd)
    pending["status"]["conditions"][1]["status"] = "False"
    assert openapi_v3_group_versions([pending]) == []
    assert openapi_v3_document([pending], GROUP, "v1") is None
    assert openapi_v3_document([kiln_crd], GROUP, "v0") is None
    assert openapi_v3_document([kiln_crd], "other.test", "v1") is None


@pytest.mark.parametrize(
    "crd",
    [
        {},
        {"spec": None, "status": ESTABLISHED},
        {"spec": {"versions": [{"name": "v1", "served": True}]}, "status": ESTABLISHED},
        {"spec": {"group": GROUP, "versions": "v1"}, "status": ESTABLISHED},
    ],
    ids=["empty", "null-spec", "no-names", "versions-not-a-list"],
)
def test_malformed_crds_are_skipped(crd: dict[str, Any], kiln_crd: dict[str, Any]) -> None:
    assert openapi_v3_group_versions([crd, kiln_crd]) == [(GROUP, "v1"), (GROUP, "v1alpha1")]


def test_paths_of_a_namespaced_kind_with_subresources(kiln_crd: dict[str, Any]) -> None:
    paths = _v3(kiln_crd)["paths"]
    assert sorted(paths) == [
        f"{PREFIX}/kilns",
        f"{PREFIX}/namespaces/{{namespace}}/kilns",
        f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}",
        f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}/scale",
        f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}/status",
    ]
    item = paths[f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}"]
    patch = item["patch"]
    assert patch["operationId"] == "patchCeramicsPodscaleTestV1NamespacedKiln"
    assert patch["tags"] == ["ceramicsPodscaleTest_v1"]
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": GROUP,
        "kind": "Kiln",
        "version": "v1",
    }
    # kubectl leaves validation to the server when the PATCH lists fieldValidation.
    assert "fieldValidation" in {p["name"] for p in patch["parameters"]}
    assert sorted(patch["requestBody"]["content"]) == [
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
    ]
    scale = paths[f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}/scale"]["get"]
    schema = scale["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"}


def test_a_cluster_scoped_kind_has_no_namespaced_paths(kiln_crd: dict[str, Any]) -> None:
    crd = kiln_crd
    crd["spec"]["scope"] = "Cluster"
    for version in crd["spec"]["versions"]:
        version.pop("subresources", None)
    assert sorted(_v3(crd)["paths"]) == [f"{PREFIX}/kilns", f"{PREFIX}/kilns/{{name}}"]


def test_documents_are_self_contained(kiln_crd: dict[str, Any]) -> None:
    for version in ("v1", "v1alpha1"):
        document = _v3(kiln_crd, version=version)
        schemas = document["components"]["schemas"]
        for ref in _refs(document):
            assert ref.removeprefix("#/components/schemas/") in schemas, ref


def test_kind_schema_v3(kiln_crd) -> None:
    schemas = _v3(kiln_crd)["components"]["schemas"]
    kiln = schemas[KILN]
    assert kiln["x-kubernetes-group-version-kind"] == [
        {"group": GROUP, "kind": "Kiln", "version": "v1"}
    ]
    metadata = kiln["properties"]["metadata"]
    assert metadata["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    ]
    assert kiln["properties"]["apiVersion"]["type"] == "string"
    assert kiln["required"] == ["spec"]
    spec = kiln["properties"]["spec"]
    assert "example" not in spec["properties"]["cone"]
    assert spec["x-kubernetes-validations"] == [
        {"rule": "self.cone <= 10", "message": "cone too hot"}
    ]
    assert spec["properties"]["glaze"]["nullable"] is True
    assert spec["properties"]["replicas"]["default"] == 1
    assert spec["properties"]["ramp"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert spec["properties"]["either"]["oneOf"] == [{"required": ["a"]}, {"required": ["b"]}]
    assert spec["properties"]["notes"]["properties"] == {"author": {"type": "string"}}
    controller = spec["properties"]["controller"]
    assert sorted(controller["properties"]) == ["apiVersion", "kind", "metadata"]
    assert controller["required"] == ["kind", "apiVersion"]
    listed = schemas[KILN_LIST]
    assert listed["required"] == ["items"]
    assert listed["properties"]["items"]["items"] == {
        "allOf": [{"$ref": f"#/components/schemas/{KILN}"}]
    }
    assert listed["x-kubernetes-group-version-kind"][0]["kind"] == "KilnList"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"x-kubernetes-int-or-string": True},
            {
                "x-kubernetes-int-or-string": True,
                "anyOf": [{"type": "integer"}, {"type": "string"}],
            },
        ),
        (
            {
                "x-kubernetes-int-or-string": True,
                "anyOf": [{"type": "integer"}, {"type": "string"}],
            },
            {
                "x-kubernetes-int-or-string": True,
                "anyOf": [{"type": "integer"}, {"type": "string"}],
            },
        ),
        (
            {"x-kubernetes-int-or-string": True, "anyOf": [{"pattern": "^a"}, {"minimum": 3}]},
            {
                "x-kubernetes-int-or-string": True,
                "anyOf": [{"pattern": "^a"}, {"minimum": 3}],
                "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}],
            },
        ),
        (
            {"type": "string", "x-kubernetes-preserve-unknown-fields": False, "externalDocs": {}},
            {"type": "string"},
        ),
        (
            {"type": "object", "additionalProperties": False},
            {"type": "object", "additionalProperties": False},
        ),
    ],
    ids=[
        "int-or-string",
        "int-or-string-spelled",
        "int-or-string-with-anyof",
        "dropped-keys",
        "additional-properties-bool",
    ],
)
def test_published_schema(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert published_schema(schema) == expected


def test_kind_schema_v2_cuts_what_kubectl_cannot_validate(kiln_crd: dict[str, Any]) -> None:
    schema = kiln_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = kind_schema(schema, GVK, v2=True)["properties"]["spec"]
    assert spec["required"] == ["cone"]  # glaze is nullable
    assert spec["properties"]["glaze"] == {"description": "Glaze name; null for a bisque firing."}
    assert spec["properties"]["ramp"] == {
        "description": "Degrees per hour, or a named ramp.",
        "x-kubernetes-int-or-string": True,
    }
    assert spec["properties"]["replicas"] == {"type": "integer"}
    assert spec["properties"]["notes"] == {"x-kubernetes-preserve-unknown-fields": True}
    # An embedded resource that preserves unknown fields gets no TypeMeta in 2.0.
    assert spec["properties"]["controller"] == {
        "x-kubernetes-embedded-resource": True,
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert "oneOf" not in spec["properties"]["either"]


@pytest.mark.parametrize(
    ("schema", "preserve", "expected"),
    [
        (None, False, {"type": "object"}),
        (
            {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            False,
            {"type": "object"},
        ),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, True, {"type": "object"}),
    ],
    ids=["no-schema", "root-preserves-unknown", "crd-preserves-unknown"],
)
def test_bare_v2_kinds(schema: Any, preserve: bool, expected: dict[str, Any]) -> None:
    published = kind_schema(schema, GVK, v2=True, preserve_unknown=preserve)
    gvk = published.pop("x-kubernetes-group-version-kind")
    assert published == expected
    assert gvk == [{"group": GROUP, "kind": "Kiln", "version": "v1"}]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {}},
            {"x-kubernetes-preserve-unknown-fields": True},
        ),
        ({"type": "array", "nullable": True, "items": {"type": "string"}}, {}),
        (
            {"type": "object", "required": ["x"], "additionalProperties": {"nullable": True}},
            {"type": "object", "additionalProperties": {}},
        ),
        (
            {"type": "integer", "allOf": [{"minimum": 1}], "not": {"maximum": 0}},
            {"type": "integer"},
        ),
        (
            {"type": "object", "properties": {"default": {"type": "string", "default": "x"}}},
            {"type": "object", "properties": {"default": {"type": "string"}}},
        ),
    ],
    ids=["preserved-array", "nullable-array", "nullable-values", "junctors", "defaults-pruned"],
)
def test_v2_cuts(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    root = {"type": "object", "properties": {"field": schema}}
    assert kind_schema(root, GVK, v2=True)["properties"]["field"] == expected


def test_v3_root_lists_builtin_and_custom_documents(kiln_crd: dict[str, Any]) -> None:
    root = openapi_v3_root([kiln_crd])
    assert builtin_root()["paths"].items() <= root["paths"].items()
    body = openapi_v3_document_bytes([kiln_crd], GROUP, "v1")
    assert body is not None
    digest = hashlib.sha512(body).hexdigest().upper()
    assert root["paths"][f"apis/{GROUP}/v1"] == {
        "serverRelativeURL": f"/openapi/v3/apis/{GROUP}/v1?hash={digest}"
    }
    assert f"apis/{GROUP}/v1alpha1" in root["paths"]
    assert list(root["paths"]) == sorted(root["paths"])
    assert json.loads(body) == _v3(kiln_crd)


def test_v2_document_adds_the_custom_kinds_to_the_builtin_ones(kiln_crd: dict[str, Any]) -> None:
    document = openapi_v2_document_with([kiln_crd])
    builtin = json.loads(openapi_v2_json())
    assert builtin["definitions"].items() <= document["definitions"].items()
    assert set(openapi_v2_definitions([kiln_crd])) <= set(document["definitions"])
    kiln = document["definitions"][KILN]
    assert kiln["properties"]["metadata"] == {
        "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "description": "Standard object metadata.",
    }
    assert document["definitions"]["test.podscale.ceramics.v1alpha1.Kiln"]["type"] == "object"
    patch = document["paths"][f"{PREFIX}/namespaces/{{namespace}}/kilns/{{name}}"]["patch"]
    assert patch["parameters"][0]["in"] == "body"
    for ref in _refs(document):
        assert ref.removeprefix("#/definitions/") in document["definitions"], ref
    assert json.loads(openapi_v2_body([kiln_crd], "application/json")) == document


def test_v2_http_serves_a_given_body(kiln_crd: dict[str, Any]) -> None:
    def body_for(media: str) -> bytes:
        return openapi_v2_body([kiln_crd], media)

    reply = serve_openapi_v2("application/json", None, body_for)
    assert json.loads(bytes(reply.body))["definitions"][KILN]
    etag = reply.headers["etag"]
    assert etag == '"' + hashlib.sha512(bytes(reply.body)).hexdigest().upper() + '"'
    assert serve_openapi_v2("application/json", etag, body_for).status_code == 304
    proto = serve_openapi_v2(PROTOBUF_V2, None, body_for)
    assert KILN.encode() in bytes(proto.body)
    assert etag != proto.headers["etag"]
    assert serve_openapi_v2("application/json").headers["etag"] != etag


@pytest.mark.parametrize(
    ("group", "name"),
    [
        ("apps", "io.k8s.api.apps.v1.Widget"),
        ("example.com", "com.example.v1.Widget"),
        ("ceramics.podscale.test", "test.podscale.ceramics.v1.Widget"),
    ],
    ids=["built-in-group", "custom-group", "custom-subdomain"],
)
def test_schema_names(group: str, name: str) -> None:
    assert schema_name(group, "v1", "Widget") == name
