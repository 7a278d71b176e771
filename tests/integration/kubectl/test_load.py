"""``podscale load`` on a live ``podscale up``, with the real kubectl watching: a Deployment
and a CPU HPA applied with kubectl sit idle at one replica; ``podscale load deploy/web --rate``
(through the kubeconfig, like any client) makes ``kubectl top pods`` show the load and the HPA
scale up, and ``--off`` brings it back down. Bounded: the plane scrapes every second, the HPA
syncs every second and its downscale window is 5 s, so the test takes well under 90 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        resources: {requests: {cpu: 100m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 5}
"""
# 20 requests/s at 10m each: 200m, four 100m pods' worth at the 50% target.
LOADED = 4
WAIT_SECONDS = 40.0


@pytest.fixture
def plane(
    kubectl_binary: str, tmp_path: Path, control_plane_factory: list[ControlPlaneProcess]
) -> ControlPlaneProcess:
    started = start_control_plane(
        tmp_path / "data",
        workloads=True,
        extra=("--metric-resolution=1s", "--horizontal-pod-autoscaler-sync-period=1s"),
    )
    control_plane_factory.append(started)
    return started


@pytest.fixture
def kubectl(
    kubectl_binary: str, plane: ControlPlaneProcess, private_home: Path, tmp_path: Path
) -> Kubectl:
    return Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)


def podscale(plane: ControlPlaneProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "podscale", *args, "--kubeconfig", str(plane.kubeconfig)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def wait_for_replicas(kubectl: Kubectl, wanted: int) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:  # bounded polling of what the HPA wrote
        out = kubectl.ok("get", "hpa", "web", "-o", "jsonpath={.status.currentReplicas}")
        if out.strip() == str(wanted):
            return
        assert time.monotonic() < deadline, f"the HPA shows {out!r} replicas, not {wanted}"
        time.sleep(0.5)


def test_podscale_load_scales_the_hpa_up_and_off_scales_it_down(
    plane: ControlPlaneProcess, kubectl: Kubectl
) -> None:
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", MANIFESTS))
    kubectl.ok("rollout", "status", "deployment/web", "--timeout=30s")
    watch = subprocess.Popen(
        kubectl.argv("get", "hpa", "web", "-w", "-o", "jsonpath={.status.desiredReplicas}{'\\n'}"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=kubectl.env(),
    )
    try:
        bad = podscale(plane, "load", "deploy/web", "--rate", "-3")
        assert bad.returncode == 1
        assert "load.rate: Invalid value: -3: must be greater than or equal to 0" in bad.stderr
        done = podscale(
            plane, "load", "deploy/web", "--rate", "20", "--cpu-per-request", "10m", "--noise", "0"
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == (
            "deployment.apps/web load set: constant 20 requests/s; per request/s: web 10m cpu"
        )
        wait_for_replicas(kubectl, LOADED)
        top = kubectl.ok("top", "pods", "-l", "app=web", "--no-headers").splitlines()
        assert sum(int(row.split()[1].rstrip("m")) for row in top) >= 150  # about 200m in all
        described = podscale(plane, "describe", "deploy", "web").stdout
        assert "Load:" in described
        assert "constant 20 requests/s" in described
        assert "LoadSet" in kubectl.ok("describe", "deployment", "web")

        off = podscale(plane, "load", "deploy/web", "--off")
        assert off.returncode == 0, off.stderr
        assert off.stdout.strip() == "deployment.apps/web load removed"
        wait_for_replicas(kubectl, 1)
    finally:
        watch.terminate()
        watched, _ = watch.communicate(timeout=10)
    seen = [line.strip() for line in watched.splitlines() if line.strip()]
    # kubectl watched the HPA go up to the loaded size and back to one.
    assert str(LOADED) in seen, seen
    assert seen[-1] == "1", seen
