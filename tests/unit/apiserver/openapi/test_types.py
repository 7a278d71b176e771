# ruff: noqa: E501  (Go decoder messages, verbatim)
"""Values of the wrong JSON type are refused like Go's decoder refuses them, never stored."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.openapi.types import type_mismatches

RS: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "a",
                        "image": "nginx",
                        "ports": [{"containerPort": 80}],
                        "resources": {"requests": {"cpu": 1, "memory": "64Mi"}},
                    }
                ]
            },
        },
    },
}


def with_value(path: list[Any], value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(RS)
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ["spec", "replicas"],
            "3",
            "cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32",
        ),
        (
            ["spec", "replicas"],
            2.5,
            "cannot unmarshal number 2.5 into Go struct field ReplicaSetSpec.spec.replicas of type int32",
        ),
        (
            ["metadata", "labels"],
            ["app"],
            "cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            ["metadata", "labels", "app"],
            7,
            "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels.app of type string",
        ),
        (
            ["spec", "template", "spec", "containers"],
            {"name": "a"},
            "cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
        ),
        (
            ["spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"],
            "80",
            "cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers[0].ports[0].containerPort of type int32",
        ),
        (
            ["spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"],
            True,
            "cannot unmarshal bool into Go struct field ResourceRequirements.spec.template.spec.containers[0].resources.requests.cpu of type resource.Quantity",
        ),
    ],
    ids=[
        "int-as-string",
        "int-as-fraction",
        "map-as-array",
        "label-as-number",
        "list-as-object",
        "nested-int",
        "quantity-as-bool",
    ],
)
def test_mismatches_are_reported_like_go(path: list[Any], value: Any, message: str) -> None:
    found = type_mismatches("apps/v1", "ReplicaSet", with_value(path, value))
    assert [m.message() for m in found] == [f"json: {message}"]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["spec", "replicas"], None),
        (["spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"], "250m"),
        (["spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"], 0.5),
        (["spec", "minReadySeconds"], 0),
    ],
    ids=["null", "quantity-string", "quantity-number", "plain-int"],
)
def test_valid_values_pass(path: list[Any], value: Any) -> None:
    assert type_mismatches("apps/v1", "ReplicaSet", with_value(path, value)) == []


def test_the_api_refuses_and_stores_nothing(client: TestClient) -> None:
    bad = with_value(["spec", "replicas"], "3")
    response = client.post("/apis/apps/v1/namespaces/default/replicasets", json=bad)
    assert response.status_code == 400
    assert response.json()["message"] == (
        'ReplicaSet in version "v1" cannot be handled as a ReplicaSet: json: cannot unmarshal '
        "string into Go struct field ReplicaSetSpec.spec.replicas of type int32"
    )
    assert client.get("/apis/apps/v1/namespaces/default/replicasets/web").status_code == 404
    assert client.post("/apis/apps/v1/namespaces/default/replicasets", json=RS).status_code == 201
    patched = client.patch(
        "/apis/apps/v1/namespaces/default/replicasets/web",
        content='{"spec":{"replicas":"4"}}',
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status_code == 400
    assert (
        client.get("/apis/apps/v1/namespaces/default/replicasets/web").json()["spec"]["replicas"]
        == 2
    )


_OLD_HPA: dict[str, Any] = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
    },
}


@pytest.mark.parametrize(
    ("spec_change", "expected"),
    [
        ({}, []),
        # A changed spec is walked where it changed: its unchanged scaleTargetRef is not.
        ({"minReplicas": True}, ["spec.minReplicas"]),
        # Equal in Python (1.0 == 1), different in JSON: still walked.
        ({"minReplicas": 1.0}, ["spec.minReplicas"]),
        ({"maxReplicas": 11}, ["status.currentReplicas"]),
    ],
    ids=["unchanged-spec-skipped", "true-is-not-1", "1.0-is-not-1", "changed-spec-checked"],
)
def test_an_update_checks_what_changed_from_the_stored_object(
    spec_change: dict[str, Any], expected: list[str]
) -> None:
    # The stored spec carries a mistyped field that an unchanged spec does not walk into:
    # the proof that it is skipped (stored objects passed this check when written).
    old = {**_OLD_HPA, "spec": {**_OLD_HPA["spec"], "scaleTargetRef": {"name": 7}}}
    new = {**old, "spec": {**old["spec"], **spec_change}}
    new["status"] = {"currentReplicas": "two"}  # always checked: it changed
    found = type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", new, old)
    # Only the first mismatch is reported, as Go's decoder does: spec before status.
    assert [m.path for m in found] == (expected or ["status.currentReplicas"])


def test_an_unchanged_field_one_level_down_is_not_walked_either() -> None:
    old = {**_OLD_HPA, "metadata": {"name": "web", "labels": {"app": 7}}}  # stored mistyped
    new = {**old, "metadata": {**old["metadata"], "annotations": {"a": "b"}}}
    found = type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", new, old)
    assert found == []  # the labels were not walked again; the new annotation is fine
    new["metadata"]["annotations"] = {"a": 1}
    found = type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", new, old)
    assert [m.path for m in found] == ["metadata.annotations.a"]
