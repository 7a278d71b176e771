"""A KEDA ``prometheus`` trigger on a real Prometheus, through the operator of ``podscale up``.

The controlled exporter of the Prometheus tests (``prometheus/exporter.py --controlled``)
serves the gauge ``queue_depth{queue="jobs"}`` at whatever value the test sets; a real
Prometheus scrapes it every second. A ScaledObject (``threshold`` 10, ``activationThreshold``
5, 1 s ``pollingInterval``, 3 s ``cooldownPeriod``, ``maxReplicaCount`` 4) has its
``serverAddress`` at that Prometheus. Shown with the real kubectl: at 3 (below the
activation threshold) the target stays at 0 while KEDA's metrics server already serves 3;
at 25 it goes 0 -> ceil(25 / 10) = 3; at 55 to 4, the max, not 6; at 0 back to 0 once the
cooldown has passed. Skipped, with the reason, without the prometheus binary. Waits are
bounded polls on wall time (real processes).
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from podscale.controllers.keda.kind import CRD_NAME

from ..prometheus.harness import start_prometheus  # noqa: TID252 - shared with that suite
from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

WAIT_SECONDS = 45.0
POLL_SECONDS = 0.5
# Below the activation threshold, the target must stay at 0 over a few polling intervals.
HOLD_SECONDS = 3.0
QUERY = 'sum(queue_depth{queue="jobs"})'
SELECTOR = urllib.parse.quote("scaledobject.keda.sh/name=worker")
UP = ("--horizontal-pod-autoscaler-sync-period", "1s")


@dataclass(frozen=True)
class Prometheus:
    url: str
    exporter: str  # the controlled exporter's base URL

    def set_queue(self, value: float) -> None:
        """Serve ``queue_depth{queue="jobs"}`` = ``value`` from now on, and wait (bounded)
        until Prometheus answers the trigger's query with it."""
        body = json.dumps(
            {"gauges": [{"name": "queue_depth", "labels": {"queue": "jobs"}, "value": value}]}
        ).encode()
        request = urllib.request.Request(f"{self.exporter}/set", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=5):
            pass
        deadline = time.monotonic() + WAIT_SECONDS
        while (seen := self.query(QUERY)) != value:
            assert time.monotonic() < deadline, f"prometheus reads {seen}, not {value}"
            time.sleep(POLL_SECONDS)

    def query(self, expr: str) -> float | None:
        query = urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(f"{self.url}/api/v1/query?{query}", timeout=2) as reply:
                result = json.load(reply)["data"]["result"]
        except OSError:
            return None  # not listening yet
        return float(result[0]["value"][1]) if result else None


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[Prometheus]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus binary not found (Debian: apt-get install prometheus)")
    work = tmp_path / "prometheus"
    work.mkdir()
    with ExitStack() as stack:
        url, port, server = start_prometheus(stack, binary, work, ("--controlled",))
        found = Prometheus(url, f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + WAIT_SECONDS
        while found.query('up{job="exporter"} == 1') is None:
            assert server.poll() is None, f"prometheus exited with code {server.returncode}"
            assert time.monotonic() < deadline, f"prometheus at {url} did not scrape"
            time.sleep(POLL_SECONDS)
        yield found


def manifests(server: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: worker}}
spec:
  replicas: 0
  selector: {{matchLabels: {{app: worker}}}}
  template:
    metadata: {{labels: {{app: worker}}}}
    spec:
      containers: [{{name: main, image: worker}}]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {{name: worker}}
spec:
  scaleTargetRef: {{name: worker}}
  pollingInterval: 1
  cooldownPeriod: 3
  maxReplicaCount: 4
  advanced:
    horizontalPodAutoscalerConfig:
      behavior: {{scaleDown: {{stabilizationWindowSeconds: 0}}}}
  triggers:
  - type: prometheus
    metadata:
      serverAddress: {server}
      query: '{QUERY}'
      threshold: "10"
      activationThreshold: "5"
"""


def _until(kubectl: Kubectl, check: str, *args: str) -> str:
    """Run ``kubectl args`` until its output is ``check`` (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(*args).output
        if out == check:
            return out
        assert time.monotonic() < deadline, f"kubectl {' '.join(args)}: {out!r}, not {check!r}"
        time.sleep(POLL_SECONDS)


def _replicas(kubectl: Kubectl) -> str:
    return kubectl.ok("get", "deploy", "worker", "-o", "jsonpath={.spec.replicas}")


def _replicas_become(kubectl: Kubectl, wanted: int) -> None:
    _until(kubectl, str(wanted), "get", "deploy", "worker", "-o", "jsonpath={.spec.replicas}")


def _condition(kubectl: Kubectl, kind: str) -> str:
    path = f'jsonpath={{.status.conditions[?(@.type=="{kind}")].status}}'
    return kubectl.ok("get", "so", "worker", "-o", path)


def test_a_prometheus_trigger_scales_from_zero_to_n_and_back(
    prometheus: Prometheus,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=33, workloads=True, extra=UP)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")
    prometheus.set_queue(3)
    kubectl.ok("apply", "-f", kubectl.write("worker.yaml", manifests(prometheus.url)))

    ready = 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'
    _until(kubectl, "True", "get", "so", "worker", "-o", ready)
    name = kubectl.ok("get", "so", "worker", "-o", "jsonpath={.status.externalMetricNames[0]}")
    assert name == "s0-prometheus"
    # KEDA's metrics server answers the generated HPA's read with the query's value (once
    # Prometheus has scraped it: an empty result reads 0 under ignoreNullValues)...
    path = f"/apis/external.metrics.k8s.io/v1beta1/namespaces/default/{name}"
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        served = json.loads(kubectl.ok("get", "--raw", f"{path}?labelSelector={SELECTOR}"))
        values = [item["value"] for item in served["items"]]
        if values == ["3"] or time.monotonic() > deadline:
            break
        time.sleep(POLL_SECONDS)
    assert values == ["3"]
    # ... but 3 does not pass the activation threshold: the target stays at 0.
    held_until = time.monotonic() + HOLD_SECONDS
    while time.monotonic() < held_until:
        assert (_replicas(kubectl), _condition(kubectl, "Active")) == ("0", "False")
        time.sleep(POLL_SECONDS)

    prometheus.set_queue(25)
    _replicas_become(kubectl, 3)
    assert _condition(kubectl, "Active") == "True"
    prometheus.set_queue(55)
    _replicas_become(kubectl, 4)
    hpa = kubectl.ok("get", "hpa", "keda-hpa-worker", "-o", "jsonpath={.spec.maxReplicas}")
    assert hpa == "4"

    prometheus.set_queue(0)
    _replicas_become(kubectl, 0)
    assert _condition(kubectl, "Active") == "False"
    described = kubectl.ok("describe", "so", "worker")
    assert "KEDAScaleTargetActivated" in described
    assert "KEDAScaleTargetDeactivated" in described
