# ruff: noqa: E501  (Go decoder messages, verbatim)
"""Integers that do not fit their int32/int64 field are a 400 on every write path, never stored.

Go's decoder refuses such literals (it does not wrap them), so ``replicas: 2147483648`` never
reaches the ReplicaSet controller. podscale checks the decoded JSON against the schemas'
``format`` in the shared admission step, so HTTP, the in-process client and protobuf all meet it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.api.kinds import kind_for
from podscale.apiserver.openapi.types import type_mismatches
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
INT32_MAX = 2**31 - 1
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
HPAS_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
PODS = "/api/v1/namespaces/default/pods"


def deployment(replicas: Any = 2) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def assert_bad_request(response: Any, message: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["kind"], body["status"], body["reason"], body["code"]) == (
        "Status",
        "Failure",
        "BadRequest",
        400,
    )
    assert body["message"] == message


@pytest.mark.parametrize(
    ("value", "accepted"),
    [(INT32_MAX, True), (2**31, False), (2**32, False), (-(2**31), True), (-(2**31) - 1, False)],
    ids=["max", "max+1", "2^32", "min", "min-1"],
)
def test_deployment_replicas_beyond_int32_are_refused_on_create(
    client: TestClient, value: int, accepted: bool
) -> None:
    response = client.post(DEPLOYMENTS, json=deployment(value))
    if accepted:
        # In range for the decoder; validation then judges it (negative is a 422).
        assert response.status_code in (201, 422), response.text
        return
    assert_bad_request(
        response,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal '
        f"number {value} into Go struct field DeploymentSpec.spec.replicas of type int32",
    )
    assert client.get(f"{DEPLOYMENTS}/web").status_code == 404


@pytest.mark.parametrize("field_validation", ["Strict", "Warn", "Ignore"])
def test_the_refusal_does_not_depend_on_field_validation(
    client: TestClient, field_validation: str
) -> None:
    response = client.post(
        f"{DEPLOYMENTS}?fieldValidation={field_validation}", json=deployment(2**31)
    )
    assert response.status_code == 400
    assert "cannot unmarshal number 2147483648" in response.json()["message"]


@pytest.mark.parametrize("path", [HPAS, HPAS_V1], ids=["autoscaling-v2", "autoscaling-v1"])
def test_hpa_max_replicas_beyond_int32_is_refused(
    client: TestClient, make_hpa: Callable[..., JSON], path: str
) -> None:
    hpa = make_hpa(max_replicas=2**31)
    if path == HPAS_V1:
        hpa["apiVersion"] = "autoscaling/v1"
        hpa["spec"].pop("metrics")
    response = client.post(path, json=hpa)
    version = path.split("/")[3]
    assert_bad_request(
        response,
        f'HorizontalPodAutoscaler in version "{version}" cannot be handled as a '
        "HorizontalPodAutoscaler: json: cannot unmarshal number 2147483648 into Go struct "
        "field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
    )


@pytest.mark.parametrize(
    ("content_type", "patch"),
    [
        ("application/merge-patch+json", {"spec": {"replicas": 2**31}}),
        ("application/strategic-merge-patch+json", {"spec": {"replicas": 2**32}}),
        (
            "application/json-patch+json",
            [{"op": "replace", "path": "/spec/replicas", "value": 2**31}],
        ),
    ],
    ids=["merge", "strategic", "json-patch"],
)
@pytest.mark.parametrize("subresource", ["", "/scale"], ids=["main", "scale"])
def test_patches_beyond_int32_are_refused_and_nothing_changes(
    client: TestClient, content_type: str, patch: Any, subresource: str
) -> None:
    assert client.post(DEPLOYMENTS, json=deployment()).status_code == 201
    response = client.patch(
        f"{DEPLOYMENTS}/web{subresource}",
        content=json.dumps(patch),
        headers={"Content-Type": content_type},
    )
    assert response.status_code == 400, response.text
    struct = "ScaleSpec" if subresource else "DeploymentSpec"
    assert (
        f"into Go struct field {struct}.spec.replicas of type int32" in response.json()["message"]
    )
    assert client.get(f"{DEPLOYMENTS}/web").json()["spec"]["replicas"] == 2


def test_scale_update_beyond_int32_is_refused(client: TestClient) -> None:
    assert client.post(DEPLOYMENTS, json=deployment()).status_code == 201
    scale = client.get(f"{DEPLOYMENTS}/web/scale").json()
    scale["spec"]["replicas"] = 2**32
    assert_bad_request(
        client.put(f"{DEPLOYMENTS}/web/scale", json=scale),
        'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number '
        "4294967296 into Go struct field ScaleSpec.spec.replicas of type int32",
    )


def test_status_update_beyond_int32_is_refused(client: TestClient) -> None:
    created = client.post(DEPLOYMENTS, json=deployment()).json()
    created["status"] = {"replicas": 2**31}
    response = client.put(f"{DEPLOYMENTS}/web/status", json=created)
    assert_bad_request(
        response,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal '
        "number 2147483648 into Go struct field DeploymentStatus.status.replicas of type int32",
    )


def test_update_beyond_int32_is_refused(client: TestClient) -> None:
    created = client.post(DEPLOYMENTS, json=deployment()).json()
    created["spec"]["replicas"] = 2**31
    assert client.put(f"{DEPLOYMENTS}/web", json=created).status_code == 400


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ["spec", "terminationGracePeriodSeconds"],
            2**63,
            "number 9223372036854775808 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64",
        ),
        (
            ["spec", "containers", 0, "ports"],
            [{"containerPort": 2**31}],
            "number 2147483648 into Go struct field ContainerPort.spec.containers[0].ports[0].containerPort of type int32",
        ),
    ],
    ids=["int64", "nested-int32"],
)
def test_pod_fields_beyond_their_range_are_refused(
    client: TestClient, make_pod: Callable[..., JSON], path: list[Any], value: Any, message: str
) -> None:
    pod = make_pod()
    target = pod
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    response = client.post(PODS, json=pod)
    assert_bad_request(
        response,
        f'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal {message}',
    )


def test_int64_maximum_is_accepted_by_the_decoder() -> None:
    pod = {"spec": {"terminationGracePeriodSeconds": 2**63 - 1}}
    assert type_mismatches("v1", "Pod", pod) == []


def test_int_or_string_number_beyond_int32_is_refused() -> None:
    obj = deployment()
    obj["spec"]["strategy"] = {"rollingUpdate": {"maxSurge": 2**31}}
    [mismatch] = type_mismatches("apps/v1", "Deployment", obj)
    assert mismatch.message() == (
        "json: cannot unmarshal number 2147483648 into Go struct field "
        "RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"
    )


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_int32_fields_accept_exactly_the_int32_range(value: int) -> None:
    found = type_mismatches("apps/v1", "Deployment", {"spec": {"replicas": value}})
    assert (found == []) == (-(2**31) <= value < 2**31)


def test_in_process_client_refuses_out_of_range_integers() -> None:
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    kind = kind_for("apps/v1", "Deployment")

    async def scenario() -> tuple[ApiError, ApiError]:
        with pytest.raises(ApiError) as on_create:
            await api.create(kind, "default", deployment(2**31))
        await api.create(kind, "default", deployment())
        with pytest.raises(ApiError) as on_scale:
            await api.patch(
                kind, "default", "web", {"spec": {"replicas": 2**32}}, subresource="scale"
            )
        return on_create.value, on_scale.value

    on_create, on_scale = asyncio.run(scenario())
    assert (on_create.status, on_scale.status) == (400, 400)
    assert "cannot unmarshal number 2147483648" in str(on_create)
    assert "cannot unmarshal number 4294967296" in str(on_scale)


def test_a_copy_in_range_still_round_trips(client: TestClient) -> None:
    response = client.post(DEPLOYMENTS, json=deployment(INT32_MAX))
    assert response.status_code == 201, response.text
    assert response.json()["spec"]["replicas"] == INT32_MAX
