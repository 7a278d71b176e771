"""Kapacity's IntelligentHorizontalPodAutoscaler under ``podscale up`` with the real kubectl,
in real time.

``podscale up`` installs the IHPA and ReplicaProfile CRDs and runs their controllers by
default. The test applies a Deployment of 4 pods declaring Kapacity's readiness gate and
an IHPA on it with a Static portrait of 4, then lowers the portrait to 2 with a Cutoff gray
strategy (half the change per step, 2 s apart, 3 s of observation). It shows: ``kubectl get
ihpa`` and ``kubectl get rp`` list the objects; ``kubectl describe ihpa`` shows the
previous and current portrait values with their provider, the gray percent and Kapacity's
conditions and events; ``kubectl describe rp`` the online/cutoff counts and the pods moved;
``kubectl get po -L kapacitystack.io/pod-state`` the cut-off pod, still running, its
readiness gate closed (``-o wide``) and so not Ready; at the end the workload is scaled
to 2. Waits are bounded polls on wall time.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from podscale.controllers.kapacity.kind import CRD_NAME, REPLICA_PROFILE_CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

WAIT_SECONDS = 45.0
POLL_SECONDS = 0.5

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: checkout}
spec:
  replicas: 4
  selector: {matchLabels: {app: checkout}}
  template:
    metadata: {labels: {app: checkout}}
    spec:
      readinessGates: [{conditionType: kapacitystack.io/online}]
      containers: [{name: app, image: checkout}]
"""


def ihpa(replicas: int) -> str:
    return f"""\
apiVersion: autoscaling.kapacitystack.io/v1alpha1
kind: IntelligentHorizontalPodAutoscaler
metadata: {{name: checkout}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: checkout}}
  minReplicas: 1
  maxReplicas: 10
  portraitProviders:
  - type: Static
    priority: 0
    static: {{replicas: {replicas}}}
  behavior:
    scaleDown:
      grayStrategy:
        grayState: Cutoff
        changeIntervalSeconds: 2
        changePercent: 50
        observationSeconds: 3
"""


def _until(kubectl: Kubectl, check: str, *args: str) -> str:
    """Run ``kubectl args`` until its output contains ``check`` (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(*args).output
        if check in out:
            return out
        assert time.monotonic() < deadline, f"kubectl {' '.join(args)}: no {check!r} in:\n{out}"
        time.sleep(POLL_SECONDS)


@pytest.mark.parametrize("minor", [27, 33], ids=lambda minor: f"kubectl-1.{minor}")
def test_kubectl_shows_an_ihpa_scaling_down_in_gray_steps(
    minor: int,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=minor, workloads=True)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    for crd in (CRD_NAME, REPLICA_PROFILE_CRD_NAME):
        kubectl.ok("wait", "--for=condition=Established", f"crd/{crd}")

    applied = kubectl.ok(
        "apply",
        "-f",
        kubectl.write("checkout.yaml", DEPLOYMENT),
        "-f",
        kubectl.write("ihpa.yaml", ihpa(4)),
    )
    assert "deployment.apps/checkout created" in applied
    assert "intelligenthorizontalpodautoscaler.autoscaling.kapacitystack.io/checkout created" in (
        applied
    )
    # The ReplicaProfile controller opens the gated pods' online condition: all 4 Ready.
    ready = "jsonpath={.spec.replicas}/{.status.readyReplicas}"
    _until(kubectl, "4/4", "get", "deploy", "checkout", "-o", ready)
    listed = kubectl.ok("get", "ihpa")
    assert listed.split("\n")[0].split() == ["NAME", "AGE"]
    assert listed.split("\n")[1].split()[0] == "checkout"
    assert kubectl.ok("get", "rp").split("\n")[1].split()[0] == "checkout"

    kubectl.ok("apply", "-f", kubectl.write("ihpa.yaml", ihpa(2)))
    # First step at once: 1 pod cut off (half of the 2-pod change), still running.
    labelled = _until(kubectl, "Cutoff", "get", "po", "-L", "kapacitystack.io/pod-state")
    [cut] = [line.split() for line in labelled.split("\n") if line.endswith("Cutoff")]
    assert cut[2] == "Running", labelled
    # Its readiness gate is closed (the wide READINESS GATES column), so it is not Ready.
    ready_condition = 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'
    _until(kubectl, "False", "get", "po", cut[0], "-o", ready_condition)
    header, row = kubectl.ok("get", "po", cut[0], "-o", "wide").rstrip("\n").split("\n")
    assert header.endswith("READINESS GATES"), header
    assert row.split()[-1] == "0/1", row
    described = kubectl.ok("describe", "ihpa", "checkout")
    for shown in (
        "Current Portrait Value:",
        "Previous Portrait Value:",
        "Provider:  Static",
        "Gray:",
        "Gray Percent:",
        "ScalingActive",
        "SucceededAutoscaling",
        "GrayProgressing",
        "CreateReplicaProfile",
        "UpdateReplicaProfile",
        "ihpa_controller",
    ):
        assert shown in described, described
    profile = kubectl.ok("describe", "rp", "checkout")
    for shown in ("Online Replicas:", "Cutoff Replicas:", "CutoffPods", "cutoff pods: ["):
        assert shown in profile, profile

    # After the last step and the observation the cut-off pods go: 2 replicas, 2 Ready.
    _until(kubectl, "2/2", "get", "deploy", "checkout", "-o", ready)
    final = kubectl.ok("describe", "ihpa", "checkout")
    assert "ReplicasMatchPortrait" in final
    assert "UpdateScale" in kubectl.ok("describe", "rp", "checkout")
