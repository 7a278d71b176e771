"""Reading metrics API answers as upstream's HPA metrics client does (metrics_values)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.client.http import ApiError
from podscale.controllers.hpa.metrics_rest import describe_api_error
from podscale.controllers.hpa.metrics_values import (
    custom_group_resource,
    external_values,
    object_value,
    pod_custom_values,
    pod_resource_values,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
T1 = T0 + timedelta(seconds=5)


def pod(name: str, *containers: tuple[str, dict[str, str]], at: datetime = T0) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ns"},
        "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "window": "30s",
        "containers": [{"name": c, "usage": usage} for c, usage in containers],
    }


def sample(value: int, at: datetime = T0, window: float = 30) -> PodMetric:
    return PodMetric(value, at, timedelta(seconds=window))


@pytest.mark.parametrize(
    ("items", "container", "expected"),
    [
        ([pod("a", ("c", {"cpu": "250m"}))], None, {"a": sample(250)}),
        (
            [pod("a", ("c", {"cpu": "250m"}), ("side", {"cpu": "1"}))],
            None,
            {"a": sample(1250)},
        ),
        # A container without the resource drops the whole pod (it becomes "missing").
        ([pod("a", ("c", {"cpu": "1"}), ("side", {"memory": "1Mi"}))], None, {}),
        ([pod("a")], None, {}),
        (
            [pod("a", ("c", {"cpu": "250m"}), ("side", {"cpu": "1"})), pod("b", ("side", {}))],
            "side",
            {"a": sample(1000)},
        ),
        ([pod("a", ("c", {"memory": "1Ki"}))], None, {}),
    ],
    ids=["one", "summed", "partial-pod-dropped", "no-containers", "one-container", "other-res"],
)
def test_pod_resource_values(
    items: list[dict[str, Any]], container: str | None, expected: dict[str, PodMetric]
) -> None:
    samples, timestamp = pod_resource_values(items, "cpu", container)
    assert samples == expected
    assert timestamp == T0


def test_resource_timestamp_is_the_first_items() -> None:
    items = [pod("a", ("c", {"cpu": "1"}), at=T1), pod("b", ("c", {"cpu": "1"}))]
    samples, timestamp = pod_resource_values(items, "cpu", None)
    assert timestamp == T1
    assert samples["b"].timestamp == T0


@pytest.mark.parametrize(
    ("items", "container", "message"),
    [
        ([], None, "no metrics returned from resource metrics API"),
        (
            [pod("a", ("c", {"cpu": "1"}))],
            "side",
            "failed to get container metrics: container side not present in metrics for pod ns/a",
        ),
    ],
    ids=["empty", "container-missing"],
)
def test_pod_resource_errors(
    items: list[dict[str, Any]], container: str | None, message: str
) -> None:
    with pytest.raises(MetricsUnavailable) as caught:
        pod_resource_values(items, "cpu", container)
    assert str(caught.value) == message


def value(name: str, quantity: str, window: int | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "describedObject": {"kind": "Pod", "namespace": "ns", "name": name, "apiVersion": "/v1"},
        "metricName": "rps",
        "timestamp": "2026-03-01T10:00:00Z",
        "value": quantity,
    }
    if window is not None:
        item["windowSeconds"] = window
    return item


def test_pod_custom_values_default_to_a_one_minute_window() -> None:
    samples, timestamp = pod_custom_values([value("a", "1500m"), value("b", "2", window=15)])
    assert samples == {"a": sample(1500, window=60), "b": sample(2000, window=15)}
    assert timestamp == T0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pod_custom_values([]), "no metrics returned from custom metrics API"),
        (lambda: external_values([]), "no metrics returned from external metrics API"),
        (lambda: object_value([]), "no metrics returned from custom metrics API"),
    ],
    ids=["pods", "external", "object"],
)
def test_empty_answers(call: Any, message: str) -> None:
    with pytest.raises(MetricsUnavailable, match=f"^{message}$"):
        call()


def test_external_and_object_values() -> None:
    items = [{"value": "3", "timestamp": "2026-03-01T10:00:05Z"}, {"value": "250m"}]
    assert external_values(items) == ([3000, 250], T1)
    assert object_value([value("x", "10k")]) == (10_000_000, T0)


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("v1", "Pod", "pods"),
        ("apps/v1", "Deployment", "deployments.apps"),
        ("apps/v2", "StatefulSet", "statefulsets.apps"),
        ("networking.k8s.io/v1", "Ingress", "ingresses.networking.k8s.io"),
        ("v1", "Service", "services"),
        ("example.com/v1", "Policy", "policies.example.com"),
    ],
    ids=["pod", "deployment", "any-version", "guess-es", "guess-s", "guess-ies"],
)
def test_custom_group_resource(api_version: str, kind: str, expected: str) -> None:
    assert custom_group_resource(api_version, kind) == expected


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            404,
            {"kind": "Status", "message": "the server could not find the metric rps for pods"},
            "the server could not find the metric rps for pods",
        ),
        (
            404,
            {"message": "404 page not found"},
            "the server could not find the requested resource (get pods.metrics.k8s.io)",
        ),
        (
            503,
            {},
            "the server is currently unable to handle the request (get pods.metrics.k8s.io)",
        ),
        (
            500,
            {"message": "boom"},
            'an error on the server ("boom") has prevented the request from succeeding '
            "(get pods.metrics.k8s.io)",
        ),
    ],
    ids=["status", "plain-404", "plain-503", "plain-500"],
)
def test_describe_api_error(status: int, body: dict[str, Any], expected: str) -> None:
    assert describe_api_error(ApiError(status, body), "pods.metrics.k8s.io") == expected
