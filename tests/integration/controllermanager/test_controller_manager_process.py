"""``podscale controller-manager`` as a real process against ``podscale up`` playing the
cluster: the plane runs only the workload controllers (no HPA controller), the external
process runs the HPA controller through the kubeconfig (https, bearer token), reads the
plane's metrics.k8s.io over HTTP, writes the HPA's status and scales a loaded Deployment.
Its /healthz, /readyz and /metrics answer, and SIGTERM ends it promptly with 0. Bounded:
the plane scrapes every second and the HPA syncs every second.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import connection_from_kubeconfig

# The real-kubectl suite's ``podscale up`` process harness (a sibling package of tests).
from ..kubectl.conftest import (  # noqa: TID252
    ControlPlaneProcess,
    LineReader,
    start_control_plane,
)

DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
# 20 requests/s at 10m CPU each: 200m, four 100m pods' worth at the 50% target.
LOAD = (
    '{"load":{"type":"constant","rate":20},'
    '"containers":[{"name":"web","perRequest":{"cpu":"10m"}}]}'
)
WAIT_SECONDS = 60.0


def web_deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "annotations": {"load.podscale.dev/v1alpha1": LOAD}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.25",
                            "resources": {"requests": {"cpu": "100m"}},
                        }
                    ]
                },
            },
        },
    }


def web_hpa() -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 6,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
        },
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlaneProcess]:
    started = start_control_plane(
        tmp_path / "data",
        auth=True,
        workloads=True,
        extra=("--controllers=replicaset,deployment", "--metric-resolution=1s"),
    )
    try:
        yield started
    finally:
        started.stop()


def start_manager(kubeconfig: Path, port: int) -> tuple[subprocess.Popen[str], LineReader]:
    command = [
        sys.executable,
        "-m",
        "podscale",
        "controller-manager",
        "--leader-elect=false",
        "--kubeconfig",
        str(kubeconfig),
        "--controllers=horizontal-pod-autoscaler-controller",
        "--horizontal-pod-autoscaler-sync-period=1s",
        "--bind-address=127.0.0.1",
        f"--secure-port={port}",
        "--insecure-serving",
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return process, LineReader(process)


async def apply_and_watch(kubeconfig: Path) -> tuple[dict[str, Any], int]:
    """Create the loaded Deployment and its HPA; wait (bounded) until the HPA has scaled it."""
    async with HttpApi(connection_from_kubeconfig(str(kubeconfig))) as api:
        await api.create(DEPLOYMENT, "default", web_deployment())
        await api.create(HPA, "default", web_hpa())
        deadline = time.monotonic() + WAIT_SECONDS
        hpa: dict[str, Any] = {}
        replicas = 1
        while time.monotonic() < deadline:
            try:
                hpa = await api.get(HPA, "default", "web")
                scale = await api.get(DEPLOYMENT, "default", "web", "scale")
            except ApiError:
                continue
            replicas = int(scale["spec"]["replicas"])
            if replicas >= 3 and (hpa.get("status") or {}).get("currentMetrics"):
                break
            await asyncio.sleep(0.5)
        return hpa, replicas


def test_an_external_controller_manager_scales_a_loaded_deployment(
    plane: ControlPlaneProcess,
) -> None:
    port = free_port()
    process, reader = start_manager(plane.kubeconfig, port)
    try:
        hpa, replicas = asyncio.run(apply_and_watch(plane.kubeconfig))
        status = hpa.get("status") or {}
        assert replicas >= 3, f"the HPA did not scale web up: {status}"
        assert status.get("desiredReplicas", 0) >= 3
        conditions = {c["type"]: c["status"] for c in status.get("conditions") or []}
        assert conditions.get("ScalingActive") == "True"
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/healthz", timeout=5).text == "ok"
        assert httpx.get(f"{base}/readyz", timeout=5).text == "ok"
        metrics = httpx.get(f"{base}/metrics", timeout=5).text
        adds = [
            line
            for line in metrics.splitlines()
            if line.startswith('workqueue_adds_total{name="horizontalpodautoscaler"}')
        ]
        assert adds, metrics
        assert float(adds[0].split()[-1]) >= 1
        assert "horizontal_pod_autoscaler_controller_reconciliations_total" in metrics
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        try:
            code = process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        output = reader.rest(timeout=5)
    assert code == 0, output
    assert time.monotonic() - started < 15, "SIGTERM did not end the controller manager promptly"
