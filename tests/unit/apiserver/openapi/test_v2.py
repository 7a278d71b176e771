"""``/openapi/v2``: the Swagger 2.0 document derived from the v3 ones, as JSON and as the
gnostic protobuf kubectl <= 1.28 reads (decoded here with the wire reader)."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import all_kinds
from podscale.apiserver.openapi.paths import schema_name
from podscale.apiserver.openapi.v2 import openapi_v2_document
from podscale.apiserver.openapi.v2_http import PROTOBUF_V2, PROTOBUF_V2_REPLY
from podscale.apiserver.openapi.v2_proto import openapi_v2_protobuf
from podscale.apiserver.protobuf.wire import BYTES, VARINT, WireReader

JSON = dict[str, Any]
DEPLOYMENT = "io.k8s.api.apps.v1.Deployment"
DEPLOYMENT_PATH = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [ref for sub in value.values() for ref in _refs(sub)]
    if isinstance(value, list):
        return [ref for sub in value for ref in _refs(sub)]
    return []


def test_every_served_kind_has_an_upstream_named_definition_with_its_gvk() -> None:
    definitions = openapi_v2_document()["definitions"]
    for info in all_kinds():
        if not info.top_level:
            continue
        name = schema_name(info.group, info.version, info.kind)
        assert definitions[name]["x-kubernetes-group-version-kind"] == [
            {"group": info.group, "kind": info.kind, "version": info.version}
        ], name


def test_references_are_swagger_2_and_all_resolve() -> None:
    document = openapi_v2_document()
    assert document["swagger"] == "2.0"
    refs = _refs(document)
    assert refs
    assert all(ref.startswith("#/definitions/") for ref in refs)
    missing = {
        ref for ref in refs if ref.removeprefix("#/definitions/") not in document["definitions"]
    }
    assert not missing
    # As keywords: JSONSchemaProps (CustomResourceDefinition) has properties of these names.
    keywords = _keywords(document["definitions"])
    assert "allOf" not in keywords
    assert "oneOf" not in keywords


def _keywords(value: Any) -> set[str]:
    """Every key used as a schema keyword, not counting the names inside ``properties``."""
    if isinstance(value, list):
        return {key for sub in value for key in _keywords(sub)}
    if not isinstance(value, dict):
        return set()
    found = set(value)
    for key, sub in value.items():
        subs = sub.values() if key in ("properties",) and isinstance(sub, dict) else [sub]
        found |= {k for schema in subs for k in _keywords(schema)}
    return found


def test_described_references_keep_their_description_beside_the_ref() -> None:
    spec = openapi_v2_document()["definitions"]["io.k8s.api.apps.v1.DeploymentSpec"]
    selector = spec["properties"]["selector"]
    assert selector["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
    assert selector["description"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("io.k8s.apimachinery.pkg.api.resource.Quantity", {"type": "string"}),
        (
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
            {"type": "string", "format": "int-or-string"},
        ),
    ],
    ids=["quantity", "int-or-string"],
)
def test_unions_are_strings_as_upstream_publishes_them(name: str, expected: JSON) -> None:
    schema = openapi_v2_document()["definitions"][name]
    assert {key: schema[key] for key in expected} == expected


def test_patch_operations_list_field_validation_and_carry_the_gvk() -> None:
    patch = openapi_v2_document()["paths"][DEPLOYMENT_PATH]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "kind": "Deployment",
        "version": "v1",
    }
    query = {p["name"]: p for p in patch["parameters"] if p["in"] == "query"}
    assert query["fieldValidation"]["type"] == "string"
    body = next(p for p in patch["parameters"] if p["in"] == "body")
    assert body["required"] is True
    assert "application/strategic-merge-patch+json" in patch["consumes"]
    assert patch["responses"]["200"]["schema"] == {"$ref": f"#/definitions/{DEPLOYMENT}"}


# -- protobuf -------------------------------------------------------------------------------


def _fields(payload: bytes) -> dict[int, list[Any]]:
    """Field number -> values (varints as ints, length-delimited as bytes)."""
    reader = WireReader(payload)
    fields: dict[int, list[Any]] = defaultdict(list)
    while not reader.at_end():
        number, wire_type = reader.read_tag("test")
        if wire_type == VARINT:
            fields[number].append(reader.read_varint())
        elif wire_type == BYTES:
            fields[number].append(reader.read_bytes())
        else:
            reader.skip(wire_type)
    return fields


def _named(payload: bytes, field: int) -> dict[str, bytes]:
    """A gnostic ``Named*`` list (name = 1, value = 2) inside ``payload``'s ``field``."""
    return {
        _fields(entry)[1][0].decode(): _fields(entry)[2][0]
        for entry in _fields(payload).get(field, [])
    }


def test_protobuf_document_carries_the_same_definitions_and_paths() -> None:
    document = openapi_v2_document()
    top = _fields(openapi_v2_protobuf())
    assert top[1] == [b"2.0"]
    definitions = _named(top[9][0], 1)
    assert list(definitions) == list(document["definitions"])
    paths = _named(top[8][0], 2)
    assert list(paths) == list(document["paths"])


def test_protobuf_schema_fields_and_vendor_extensions() -> None:
    top = _fields(openapi_v2_protobuf())
    deployment = _fields(_named(top[9][0], 1)[DEPLOYMENT])
    extensions = {_fields(e)[1][0].decode(): _fields(e)[2][0] for e in deployment[31]}
    yaml_text = _fields(extensions["x-kubernetes-group-version-kind"])[2][0]
    assert json.loads(yaml_text) == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    properties = _named(deployment[25][0], 1)
    assert set(properties) == {"apiVersion", "kind", "metadata", "spec", "status"}
    spec = _fields(properties["spec"])
    assert spec[1] == [b"#/definitions/io.k8s.api.apps.v1.DeploymentSpec"]
    kind = _fields(properties["kind"])
    assert _fields(kind[22][0])[1] == [b"string"]


def test_protobuf_patch_operation_lists_field_validation_as_a_query_parameter() -> None:
    top = _fields(openapi_v2_protobuf())
    item = _fields(_named(top[8][0], 2)[DEPLOYMENT_PATH])
    patch = _fields(item[8][0])
    names = []
    for parameters_item in patch[8]:
        parameter = _fields(_fields(parameters_item)[1][0])
        if 2 in parameter:  # a non-body parameter
            query = _fields(parameter[2][0]).get(3)
            if query:
                names.append(_fields(query[0])[4][0].decode())
    assert "fieldValidation" in names


# -- HTTP -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        (None, "application/json"),
        ("application/json", "application/json"),
        (PROTOBUF_V2, PROTOBUF_V2_REPLY),
        (f"{PROTOBUF_V2}, application/json", PROTOBUF_V2_REPLY),
        ("application/json, " + PROTOBUF_V2, "application/json"),
    ],
    ids=["none", "json", "protobuf-kubectl-1.27", "protobuf-first", "json-first"],
)
def test_negotiation(client: TestClient, accept: str | None, content_type: str) -> None:
    headers = {"accept": accept} if accept is not None else {}
    response = client.get("/openapi/v2", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(content_type)
    if content_type == "application/json":
        assert response.json()["swagger"] == "2.0"
    else:
        assert response.content == openapi_v2_protobuf()


def test_unacceptable_media_type_is_406(client: TestClient) -> None:
    response = client.get("/openapi/v2", headers={"accept": "text/html"})
    assert response.status_code == 406
    assert response.json()["reason"] == "NotAcceptable"


def test_etag_revalidation(client: TestClient) -> None:
    first = client.get("/openapi/v2")
    etag = first.headers["etag"]
    again = client.get("/openapi/v2", headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
