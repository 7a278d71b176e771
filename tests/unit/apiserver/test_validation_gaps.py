# ruff: noqa: E501  (field paths and upstream messages, verbatim)
"""Validation gaps closed against upstream: env var names, negative grace periods, and the
unknown HPA metric type whose cause upstream lists twice."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

JSON = dict[str, Any]
PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
ENV_MESSAGE = (
    "a valid environment variable name must consist only of printable ASCII characters "
    "other than '='"
)


def pod_with_env(make_pod: Callable[..., JSON], **container: Any) -> JSON:
    pod = make_pod()
    pod["spec"]["containers"][0].update(container)
    return pod


@pytest.mark.parametrize(
    ("container", "field", "value"),
    [
        ({"env": [{"name": "KEY=1", "value": "x"}]}, "spec.containers[0].env[0].name", "KEY=1"),
        ({"env": [{"name": "A", "value": "x"}, {"name": "é"}]}, "spec.containers[0].env[1].name", "é"),
        ({"env": [{"name": "TAB\there"}]}, "spec.containers[0].env[0].name", "TAB\there"),
        ({"envFrom": [{"prefix": "P=", "configMapRef": {"name": "c"}}]}, "spec.containers[0].envFrom[0].prefix", "P="),
    ],
    ids=["equals", "non-ascii", "control-char", "envFrom-prefix"],
)  # fmt: skip
def test_invalid_env_var_names_are_refused(
    client: TestClient, make_pod: Callable[..., JSON], container: JSON, field: str, value: str
) -> None:
    response = client.post(PODS, json=pod_with_env(make_pod, **container))
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["details"]["causes"] == [
        {"reason": "FieldValueInvalid", "message": f"Invalid value: {_quoted(value)}: {ENV_MESSAGE}", "field": field}
    ]  # fmt: skip
    assert client.get(f"{PODS}/p").status_code == 404


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize(
    "name", ["lower_and.dots-dash", "1STARTS_WITH_DIGIT", "with space", "A:B"], ids=str
)
def test_relaxed_env_var_names_are_accepted(
    client: TestClient, make_pod: Callable[..., JSON], name: str
) -> None:
    response = client.post(PODS, json=pod_with_env(make_pod, env=[{"name": name, "value": "1"}]))
    assert response.status_code == 201, response.text


def test_env_var_without_a_name_is_required(
    client: TestClient, make_pod: Callable[..., JSON]
) -> None:
    response = client.post(PODS, json=pod_with_env(make_pod, env=[{"value": "1"}]))
    assert response.status_code == 422
    [cause] = response.json()["details"]["causes"]
    assert (cause["reason"], cause["field"]) == (
        "FieldValueRequired",
        "spec.containers[0].env[0].name",
    )


def test_env_var_names_in_a_deployment_template_are_validated(client: TestClient) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "env": [{"name": "A=B"}]}]},
            },
        },
    }
    response = client.post(DEPLOYMENTS, json=deployment)
    assert response.status_code == 422
    assert response.json()["details"]["causes"][0]["field"] == (
        "spec.template.spec.containers[0].env[0].name"
    )


def test_negative_grace_period_of_a_pod_is_stored_as_one(
    client: TestClient, make_pod: Callable[..., JSON]
) -> None:
    pod = make_pod()
    pod["spec"]["terminationGracePeriodSeconds"] = -5
    response = client.post(PODS, json=pod)
    assert response.status_code == 201, response.text
    assert response.json()["spec"]["terminationGracePeriodSeconds"] == 1
    assert "warning" not in response.headers
    assert client.get(f"{PODS}/p").json()["spec"]["terminationGracePeriodSeconds"] == 1


def _deployment(grace: int, replicas: int = 1) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "terminationGracePeriodSeconds": grace,
                    "containers": [{"name": "c", "image": "nginx"}],
                },
            },
        },
    }


GRACE_WARNING = (
    '299 - "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values '
    'are invalid and will be treated as 1"'
)


@pytest.mark.parametrize("field_validation", ["Ignore", "Strict"])
def test_negative_grace_period_of_a_template_warns_and_is_kept(
    client: TestClient, field_validation: str
) -> None:
    response = client.post(
        f"{DEPLOYMENTS}?fieldValidation={field_validation}", json=_deployment(-5)
    )
    assert response.status_code == 201, response.text
    assert response.headers.get("warning") == GRACE_WARNING
    assert response.json()["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == -5


def test_template_grace_warning_repeats_only_when_the_spec_changes(client: TestClient) -> None:
    created = client.post(DEPLOYMENTS, json=_deployment(-5)).json()
    created["metadata"]["labels"] = {"touched": "yes"}
    relabelled = client.put(f"{DEPLOYMENTS}/web", json=created)
    assert relabelled.status_code == 200, relabelled.text
    assert "warning" not in relabelled.headers
    scaled = relabelled.json()
    scaled["spec"]["replicas"] = 3
    response = client.put(f"{DEPLOYMENTS}/web", json=scaled)
    assert response.headers.get("warning") == GRACE_WARNING


def test_unknown_metric_type_lists_its_cause_twice_as_upstream(
    client: TestClient, make_hpa: Callable[..., JSON]
) -> None:
    # Upstream's validateMetricSpec appends NotSupported from its ``Has`` check and again from
    # its switch's default branch; NewInvalid copies every error into causes while the
    # message's aggregate de-duplicates. Pinned so a "cleanup" does not drift from upstream.
    hpa = make_hpa()
    hpa["spec"]["metrics"] = [{"type": "Foo"}]
    response = client.post(HPAS, json=hpa)
    assert response.status_code == 422
    body = response.json()
    text = (
        'Unsupported value: "Foo": supported values: "ContainerResource", "External", '
        '"Object", "Pods", "Resource"'
    )
    cause = {"reason": "FieldValueNotSupported", "message": text, "field": "spec.metrics[0].type"}
    assert body["details"]["causes"] == [cause, cause]
    assert body["message"] == (
        f'HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.metrics[0].type: {text}'
    )
