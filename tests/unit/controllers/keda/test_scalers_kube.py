"""KEDA's kubernetes-workload count and cpu/memory activation, over a fake API that
answers pod and PodMetrics lists as the server would."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.keda.scalers.base import ScalerEnv, ScalerError, ScalerReading
from podscale.controllers.keda.scalers.factory import build_scaler
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.runtime_api import ControllerApi

NOW = datetime(2026, 1, 1, tzinfo=UTC)
JSON = dict[str, Any]


def _pod(name: str, phase: str, *requests: tuple[str, str, str]) -> JSON:
    containers = [
        {"name": c, "resources": {"requests": {"cpu": cpu, "memory": mem}}}
        for c, cpu, mem in requests
    ]
    return {
        "metadata": {"name": name},
        "spec": {"containers": containers},
        "status": {"phase": phase},
    }


def _usage(name: str, *containers: tuple[str, str, str]) -> JSON:
    return {
        "metadata": {"name": name},
        "containers": [
            {"name": c, "usage": {"cpu": cpu, "memory": mem}} for c, cpu, mem in containers
        ],
    }


class FakeApi:
    """Lists what it holds; records each list's namespace and selector."""

    def __init__(self, pods: Sequence[JSON], metrics: Sequence[JSON] = (), fail: bool = False):
        self.pods, self.metrics, self.fail = list(pods), list(metrics), fail
        self.calls: list[tuple[str, str | None, str | None]] = []

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> JSON:
        self.calls.append((kind.group or "core", namespace, label_selector))
        if self.fail:
            raise ApiError(403, {"message": 'pods is forbidden: User "keda" cannot list'})
        items = self.metrics if kind.group == "metrics.k8s.io" else self.pods
        return {"items": items}


def _read(trigger: JSON, api: FakeApi, *, selector: str | None = "app=web") -> ScalerReading:
    spec = parse_trigger(0, trigger, namespace="ns")
    env = ScalerEnv(api=cast(ControllerApi, api), namespace="ns", pod_selector=selector)

    async def run() -> ScalerReading:
        scaler = build_scaler(spec, env)
        try:
            return await scaler.read(NOW)
        finally:
            await scaler.close()

    return asyncio.run(run())


WORKLOAD: JSON = {
    "type": "kubernetes-workload",
    "metadata": {"podSelector": "app=worker", "value": "1"},
}
PHASES = [
    ("workload-counts-running-and-pending", ["Running", "Pending"], 2.0),
    ("workload-skips-succeeded-and-failed", ["Running", "Succeeded", "Failed"], 1.0),
    ("workload-counts-unknown-and-missing-phase", ["Unknown", ""], 2.0),
    ("workload-no-pods-is-zero-inactive", [], 0.0),
]


@pytest.mark.parametrize(("phases", "count"), [r[1:] for r in PHASES], ids=[r[0] for r in PHASES])
def test_workload_counts(phases: list[str], count: float) -> None:
    api = FakeApi([_pod(f"p{i}", phase) for i, phase in enumerate(phases)])
    assert _read(WORKLOAD, api) == ScalerReading(count, count > 0)
    assert api.calls == [("core", "ns", "app=worker")]


def test_workload_activation_value_is_exceeded_strictly() -> None:
    trigger = {**WORKLOAD, "metadata": {**WORKLOAD["metadata"], "activationValue": "2"}}
    pods = [_pod("a", "Running"), _pod("b", "Running")]
    assert _read(trigger, FakeApi(pods)) == ScalerReading(2.0, False)


def test_workload_all_namespaces_lists_without_namespace() -> None:
    trigger = {**WORKLOAD, "metadata": {**WORKLOAD["metadata"], "namespace": "*"}}
    api = FakeApi([])
    _read(trigger, api)
    assert api.calls == [("core", None, "app=worker")]


def test_workload_list_failure_is_keda_wrapped() -> None:
    with pytest.raises(ScalerError) as caught:
        _read(WORKLOAD, FakeApi([], fail=True))
    assert str(caught.value).startswith("error inspecting kubernetes workload: pods is forbidden")


def _cpu(value: str, activation: str, kind: str = "Utilization", **extra: str) -> JSON:
    metadata = {"value": value, "activationValue": activation, **extra}
    return {"type": "cpu", "metricType": kind, "metadata": metadata}


PODS = [
    _pod("a", "Running", ("app", "200m", "100Mi")),
    _pod("b", "Running", ("app", "200m", "100Mi"), ("side", "100m", "10Mi")),
    _pod("c", "Pending", ("app", "200m", "100Mi")),
    _pod("d", "Running"),  # no requests: skipped for utilization
]
USAGE = [
    _usage("a", ("app", "100m", "50Mi")),
    _usage("b", ("app", "150m", "50Mi"), ("side", "0", "1Mi")),
    _usage("c", ("app", "900m", "50Mi")),
    _usage("d", ("app", "500m", "50Mi")),
]
RESOURCE = [
    # a: 100*100/200 = 50; b: 150*100/300 = 50; c pending; d no requests: mean 50.
    ("cpu-utilization-mean-of-running-pods", _cpu("50", "49"), 50.0, True),
    ("cpu-utilization-equal-to-activation-is-inactive", _cpu("50", "50"), 50.0, False),
    ("cpu-utilization-one-container", _cpu("50", "0", containerName="side"), 0.0, False),
    # a 100m, b 150m, d 500m: (750m) / 3 = 250m.
    (
        "cpu-average-value-over-running-pods-with-metrics",
        _cpu("1", "249m", "AverageValue"),
        0.25,
        True,
    ),
    ("cpu-average-value-equal-is-inactive", _cpu("1", "250m", "AverageValue"), 0.25, False),
]


@pytest.mark.parametrize(
    ("trigger", "value", "active"), [r[1:] for r in RESOURCE], ids=[r[0] for r in RESOURCE]
)
def test_cpu_activation(trigger: JSON, value: float, active: bool) -> None:
    api = FakeApi(PODS, USAGE)
    assert _read(trigger, api) == ScalerReading(value, active)
    assert ("metrics.k8s.io", "ns", "app=web") in api.calls


def test_memory_utilization_divides_bytes_by_milli_bytes_as_keda() -> None:
    # 50Mi used of a 100Mi request: the HPA says 50%, KEDA's arithmetic 0.
    trigger = {"type": "memory", "metricType": "Utilization", "metadata": {"value": "50"}}
    pods = [_pod("a", "Running", ("app", "1", "100Mi"))]
    usage = [_usage("a", ("app", "1", "50Mi"))]
    assert _read(trigger, FakeApi(pods, usage)) == ScalerReading(0.0, False)


def test_no_running_pods_is_an_error() -> None:
    with pytest.raises(ScalerError, match=r"^no running pods found with non-zero capacity$"):
        _read(_cpu("50", "0"), FakeApi([_pod("c", "Pending", ("app", "1", "1"))], USAGE))
    with pytest.raises(ScalerError, match=r"^no running pods found$"):
        _read(_cpu("1", "0", "AverageValue"), FakeApi([_pod("x", "Running")], USAGE))


def test_target_without_selector_reads_zero_inactive() -> None:
    api = FakeApi(PODS, USAGE)
    assert _read(_cpu("50", "0"), api, selector=None) == ScalerReading(0.0, False)
    assert api.calls == []


def test_pod_list_failure_is_keda_wrapped() -> None:
    with pytest.raises(ScalerError, match=r"^failed to list pods: pods is forbidden"):
        _read(_cpu("50", "0"), FakeApi([], fail=True))
