"""The /openapi/v3 documents: what kubectl's validation probe and `kubectl explain` rely on."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import pytest

from podscale.api.kind_discovery import served_group_versions
from podscale.api.kinds import all_kinds
from podscale.apiserver.openapi.documents import (
    document_hash,
    openapi_v3_document,
    openapi_v3_document_bytes,
    openapi_v3_root,
)

GVS = served_group_versions()
GV_IDS = [f"{group or 'core'}/{version}" for group, version in GVS]
TOP_LEVEL = [info for info in all_kinds() if info.top_level]
TOP_IDS = [f"{info.api_version}/{info.kind}" for info in TOP_LEVEL]
REF = "#/components/schemas/"


def _doc(group: str, version: str) -> dict[str, Any]:
    document = openapi_v3_document(group, version)
    assert document is not None
    return document


def _schema_name(group: str, version: str, kind: str) -> str:
    package = {
        "": "core",
        "apps": "apps",
        "autoscaling": "autoscaling",
        "policy": "policy",
        "coordination.k8s.io": "coordination",
        "events.k8s.io": "events",
        "apiextensions.k8s.io": "apiextensions",
    }[group]
    if group == "apiextensions.k8s.io":
        return f"io.k8s.apiextensions-apiserver.pkg.apis.{package}.{version}.{kind}"
    return f"io.k8s.api.{package}.{version}.{kind}"


def _refs(fragment: Any) -> Iterator[str]:
    if isinstance(fragment, dict):
        for key, value in fragment.items():
            if key == "$ref" and isinstance(value, str):  # not JSONSchemaProps' "$ref" field
                yield value
            else:
                yield from _refs(value)
    elif isinstance(fragment, list):
        for value in fragment:
            yield from _refs(value)


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield path, method, operation


def _follow(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve a property the way kubectl explain does: through allOf/$ref, into array items."""
    if schema.get("type") == "array":
        schema = schema["items"]
    if "allOf" in schema:
        (only,) = schema["allOf"]
        return document["components"]["schemas"][only["$ref"].removeprefix(REF)]
    return schema


def test_root_lists_every_served_group_version_with_its_hash() -> None:
    root = openapi_v3_root()
    expected = {
        ("api/v1" if not group else f"apis/{group}/{version}"): (group, version)
        for group, version in GVS
    }
    assert set(root["paths"]) == set(expected)
    assert set(root["paths"]) >= {"api/v1", "apis/apps/v1", "apis/autoscaling/v2"}
    for key, (group, version) in expected.items():
        url = root["paths"][key]["serverRelativeURL"]
        assert url == f"/openapi/v3/{key}?hash={document_hash(group, version)}"


@pytest.mark.parametrize(
    ("group", "version"),
    [("", "v2"), ("apps", "v1beta1"), ("batch", "v1"), ("metrics.k8s.io", "v1beta1")],
    ids=["core-v2", "apps-v1beta1", "batch", "metrics"],
)
def test_unknown_group_version_has_no_document(group: str, version: str) -> None:
    assert openapi_v3_document(group, version) is None
    assert openapi_v3_document_bytes(group, version) is None
    with pytest.raises(KeyError):
        document_hash(group, version)


def test_hash_is_the_content_hash_and_differs_between_documents() -> None:
    hashes = set()
    for group, version in GVS:
        serialized = openapi_v3_document_bytes(group, version)
        assert serialized is not None
        assert document_hash(group, version) == hashlib.sha512(serialized).hexdigest().upper()
        hashes.add(document_hash(group, version))
    assert len(hashes) == len(GVS)


@pytest.mark.parametrize(("group", "version"), GVS, ids=GV_IDS)
def test_documents_are_deterministic_and_callers_get_private_copies(
    group: str, version: str
) -> None:
    first = _doc(group, version)
    first["paths"].clear()
    first["components"]["schemas"].clear()
    second = _doc(group, version)
    assert second["paths"]
    assert second["components"]["schemas"]
    assert openapi_v3_document_bytes(group, version) == openapi_v3_document_bytes(group, version)


@pytest.mark.parametrize(("group", "version"), GVS, ids=GV_IDS)
def test_every_ref_resolves_inside_its_document(group: str, version: str) -> None:
    document = _doc(group, version)
    schemas = document["components"]["schemas"]
    refs = set(_refs(document))
    assert refs
    for ref in refs:
        assert ref.startswith(REF)
        assert ref.removeprefix(REF) in schemas, ref


@pytest.mark.parametrize(("group", "version"), GVS, ids=GV_IDS)
def test_every_kind_and_list_kind_has_a_schema_with_its_gvk(group: str, version: str) -> None:
    schemas = _doc(group, version)["components"]["schemas"]
    for info in all_kinds():
        if info.group_version != (group, version):
            continue
        for kind in filter(None, (info.kind, info.list_kind)):
            schema = schemas[_schema_name(group, version, kind)]
            gvk = {"group": group, "kind": kind, "version": version}
            assert gvk in schema["x-kubernetes-group-version-kind"]
            assert schema["type"] == "object"
            assert schema["description"]
            assert {"apiVersion", "kind", "metadata"} <= set(schema["properties"])


@pytest.mark.parametrize("info", TOP_LEVEL, ids=TOP_IDS)
def test_kubectl_validation_probe_finds_a_patch_with_field_validation(info: Any) -> None:
    """kubectl >= 1.29: a PATCH whose single-object GVK is the kind and lists fieldValidation."""
    gvk = {"group": info.group, "kind": info.kind, "version": info.version}
    found = [
        path
        for path, method, operation in _operations(_doc(info.group, info.version))
        if method == "patch"
        and operation.get("x-kubernetes-group-version-kind") == gvk
        and any(
            param["name"] == "fieldValidation" and param["in"] == "query"
            for param in operation.get("parameters", [])
        )
    ]
    assert found


@pytest.mark.parametrize("info", TOP_LEVEL, ids=TOP_IDS)
def test_paths_cover_every_verb_and_subresource(info: Any) -> None:
    document = _doc(info.group, info.version)
    prefix = "/api/v1" if not info.group else f"/apis/{info.group}/{info.version}"
    scope = f"{prefix}/namespaces/{{namespace}}" if info.namespaced else prefix
    collection = f"{scope}/{info.plural}"
    actions = {(path, op["x-kubernetes-action"]) for path, _, op in _operations(document)}
    expected = {
        (collection, "list"),
        (collection, "post"),
        (f"{collection}/{{name}}", "get"),
        (f"{collection}/{{name}}", "put"),
        (f"{collection}/{{name}}", "patch"),
        (f"{collection}/{{name}}", "delete"),
    }
    if "deletecollection" in info.verbs:
        expected.add((collection, "deletecollection"))
    if info.namespaced:
        expected.add((f"{prefix}/{info.plural}", "list"))
    for sub in info.subresources:
        # pods/binding is create-only (POST), namespaces/finalize replace-only (PUT);
        # status and scale are get/replace/patch.
        only = {("create",): ("post",), ("update",): ("put",)}
        sub_actions = only.get(sub.verbs, ("get", "put", "patch"))
        expected |= {(f"{collection}/{{name}}/{sub.name}", a) for a in sub_actions}
    assert expected <= actions
    assert (collection, "deletecollection") in actions or "deletecollection" not in info.verbs


@pytest.mark.parametrize(("group", "version"), GVS, ids=GV_IDS)
def test_operations_carry_action_and_single_gvk(group: str, version: str) -> None:
    actions = {"get", "list", "post", "put", "patch", "delete", "deletecollection"}
    operation_ids = []
    for path, _, operation in _operations(_doc(group, version)):
        assert operation["x-kubernetes-action"] in actions
        gvk = operation["x-kubernetes-group-version-kind"]
        assert isinstance(gvk, dict)
        if path.endswith("/scale"):
            assert gvk == {"group": "autoscaling", "kind": "Scale", "version": "v1"}
        else:
            assert (gvk["group"], gvk["version"]) == (group, version)
        operation_ids.append(operation["operationId"])
    assert len(operation_ids) == len(set(operation_ids))


def test_patch_operation_accepts_every_patch_type_and_write_parameters() -> None:
    item = _doc("apps", "v1")["paths"]["/apis/apps/v1/namespaces/{namespace}/replicasets/{name}"]
    patch = item["patch"]
    assert set(patch["requestBody"]["content"]) == {
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    }
    names = {param["name"] for param in patch["parameters"]}
    assert names == {"dryRun", "fieldManager", "fieldValidation", "force"}
    assert {param["name"] for param in item["parameters"]} == {"name", "namespace", "pretty"}
    assert patch["operationId"] == "patchAppsV1NamespacedReplicaSet"


@pytest.mark.parametrize(
    ("group", "version", "kind", "path", "leaf_fields"),
    [
        (
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "spec.behavior.scaleUp.policies",
            {"type", "value", "periodSeconds"},
        ),
        (
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "spec.behavior.scaleDown",
            {"stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance"},
        ),
        (
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "spec.metrics",
            {"type", "object", "pods", "resource", "containerResource", "external"},
        ),
        (
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "status.currentMetrics",
            {"type", "object", "pods", "resource", "containerResource", "external"},
        ),
        (
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "spec.metrics.resource.target",
            {"type", "value", "averageValue", "averageUtilization"},
        ),
        (
            "autoscaling",
            "v1",
            "HorizontalPodAutoscaler",
            "spec",
            {"scaleTargetRef", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"},
        ),
        ("autoscaling", "v1", "Scale", "status", {"replicas", "selector"}),
        (
            "apps",
            "v1",
            "Deployment",
            "spec.template.spec.containers.livenessProbe.httpGet",
            {"path", "port", "scheme", "host", "httpHeaders"},
        ),
        ("", "v1", "Event", "involvedObject", {"kind", "name", "namespace", "uid"}),
    ],
    ids=[
        "hpa-policies",
        "hpa-scaledown",
        "hpa-metrics",
        "hpa-current-metrics",
        "hpa-metric-target",
        "hpa-v1-spec",
        "scale-status",
        "deploy-probe",
        "event-involved",
    ],
)
def test_explain_paths_resolve_to_described_fields(
    group: str, version: str, kind: str, path: str, leaf_fields: set[str]
) -> None:
    document = _doc(group, version)
    schema = document["components"]["schemas"][_schema_name(group, version, kind)]
    for field in path.split("."):
        prop = schema["properties"][field]
        assert prop["description"], field
        schema = _follow(document, prop)
    assert leaf_fields <= set(schema["properties"])
    assert all(schema["properties"][name].get("description") for name in leaf_fields)


def test_hpa_v2_required_fields_and_list_markers() -> None:
    schemas = _doc("autoscaling", "v2")["components"]["schemas"]
    prefix = "io.k8s.api.autoscaling.v2."
    assert schemas[prefix + "HorizontalPodAutoscalerSpec"]["required"] == [
        "scaleTargetRef",
        "maxReplicas",
    ]
    assert schemas[prefix + "HPAScalingPolicy"]["required"] == ["type", "value", "periodSeconds"]
    spec = schemas[prefix + "HorizontalPodAutoscalerSpec"]["properties"]
    assert spec["metrics"]["x-kubernetes-list-type"] == "atomic"
    conditions = schemas[prefix + "HorizontalPodAutoscalerStatus"]["properties"]["conditions"]
    assert conditions["x-kubernetes-list-map-keys"] == ["type"]
    assert conditions["x-kubernetes-patch-merge-key"] == "type"


@pytest.mark.parametrize(
    ("field", "merge_key", "map_keys"),
    [
        ("containers", "name", ["name"]),
        ("initContainers", "name", ["name"]),
        ("volumes", "name", ["name"]),
        ("topologySpreadConstraints", "topologyKey", ["topologyKey", "whenUnsatisfiable"]),
    ],
    ids=["containers", "init-containers", "volumes", "topology-spread"],
)
def test_pod_spec_lists_carry_merge_keys(field: str, merge_key: str, map_keys: list[str]) -> None:
    schemas = _doc("", "v1")["components"]["schemas"]
    prop = schemas["io.k8s.api.core.v1.PodSpec"]["properties"][field]
    assert prop["x-kubernetes-list-type"] == "map"
    assert prop["x-kubernetes-patch-merge-key"] == merge_key
    assert prop["x-kubernetes-list-map-keys"] == map_keys
    assert prop["x-kubernetes-patch-strategy"].startswith("merge")


@pytest.mark.parametrize(
    ("field", "merge_key"),
    [("ports", "containerPort"), ("env", "name"), ("volumeMounts", "mountPath")],
    ids=["ports", "env", "volume-mounts"],
)
def test_container_lists_merge_by_their_own_keys(field: str, merge_key: str) -> None:
    schemas = _doc("apps", "v1")["components"]["schemas"]
    prop = schemas["io.k8s.api.core.v1.Container"]["properties"][field]
    assert prop["x-kubernetes-patch-merge-key"] == merge_key


@pytest.mark.parametrize(("group", "version"), GVS, ids=GV_IDS)
def test_named_types_are_referenced_through_all_of(group: str, version: str) -> None:
    """kubectl explain wants {"allOf": [{"$ref": ...}]} on properties, never a bare $ref."""
    for name, schema in _doc(group, version)["components"]["schemas"].items():
        for field, prop in schema.get("properties", {}).items():
            assert "$ref" not in prop, f"{name}.{field}"
            if "allOf" in prop:
                assert len(prop["allOf"]) == 1


def test_scalar_helper_types_match_upstream_shapes() -> None:
    schemas = _doc("apps", "v1")["components"]["schemas"]
    assert schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    quantity = schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert quantity["oneOf"] == [{"type": "string"}, {"type": "number"}]
    assert schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["format"] == "date-time"
    meta = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
    assert meta["generation"] == {
        "type": "integer",
        "format": "int64",
        "description": meta["generation"]["description"],
    }


def test_apps_document_embeds_core_and_scale_types() -> None:
    schemas = _doc("apps", "v1")["components"]["schemas"]
    for name in (
        "io.k8s.api.core.v1.PodTemplateSpec",
        "io.k8s.api.core.v1.PersistentVolumeClaim",
        "io.k8s.api.autoscaling.v1.Scale",
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
    ):
        assert name in schemas
    assert "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler" not in schemas
