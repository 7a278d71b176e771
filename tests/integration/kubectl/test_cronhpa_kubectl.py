"""The CronHorizontalPodAutoscaler under ``podscale up`` with the real kubectl: its CRD is
there from the start (installed by default while the controller runs, and again, unchanged,
after a restart on the same data directory); ``kubectl apply`` of a Deployment and a CronHPA
whose job fires a few seconds ahead (go-cron's six fields, in the controller's zone given by
``--cronhpa-timezone UTC``) scales the Deployment to the job's ``targetSize``; ``kubectl get
cronhpa`` prints the CRD's printer columns and ``kubectl describe`` the job's condition and
its event.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from podscale.controllers.cronhpa.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: app
          image: nginx:1.27
          resources:
            requests: {cpu: 100m}
"""
CRONHPA = """\
apiVersion: autoscaling.alibabacloud.com/v1beta1
kind: CronHorizontalPodAutoscaler
metadata:
  name: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: shop
  jobs:
    - name: scale-up
      schedule: "{schedule}"
      targetSize: 3
"""
# The job fires this far ahead of the apply: room for kubectl's round trips.
LEAD = timedelta(seconds=8)
WAIT_SECONDS = 60
UP = ("--cronhpa-timezone", "UTC")


def _until(kubectl: Kubectl, check: str, *args: str) -> str:
    """Run ``kubectl args`` until its output contains ``check`` (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(*args).output
        if check in out:
            return out
        assert time.monotonic() < deadline, f"kubectl {' '.join(args)}: no {check!r} in:\n{out}"
        time.sleep(0.5)


def _schedule_at(instant: datetime) -> str:
    """go-cron's ``sec min hour dom month dow`` firing at ``instant`` (UTC) every day."""
    return f"{instant.second} {instant.minute} {instant.hour} * * *"


def test_a_cronhpa_job_scales_its_deployment_with_kubectl(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", workloads=True, extra=UP)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    # Installed by podscale up itself: nothing applied it.
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    kubectl.ok("apply", "-f", kubectl.write("deployment.yaml", DEPLOYMENT))
    fires = datetime.now(UTC).replace(microsecond=0) + LEAD
    manifest = CRONHPA.replace("{schedule}", _schedule_at(fires))
    kubectl.ok("apply", "-f", kubectl.write("cronhpa.yaml", manifest))

    table = _until(kubectl, "shop", "get", "cronhpa")
    header, row = table.strip().split("\n")[:2]
    assert header.split() == ["NAME", "TARGET-KIND", "TARGET", "JOBS", "AGE"]
    assert row.split()[:4] == ["shop", "Deployment", "shop", "scale-up"]

    _until(kubectl, "3", "get", "deployment", "shop", "-o", "jsonpath={.spec.replicas}")
    _until(
        kubectl,
        "Succeed",
        "get",
        "cronhpa",
        "shop",
        "-o",
        "jsonpath={.status.conditions[0].state}",
    )
    described = _until(kubectl, "Succeed", "describe", "cronhpa", "shop")
    for shown in (
        "scale-up",
        "Job Id:",
        "Last Probe Time:",
        "cron hpa job scale-up executed successfully. current replicas:1, desired replicas:3.",
    ):
        assert shown in described, described
    events = described[described.index("Events:") :]
    assert any(line.split()[:2] == ["Normal", "Succeed"] for line in events.splitlines()[1:]), (
        described
    )
    assert datetime.now(UTC) >= fires  # it scaled at the job's time, not at the apply
    _until(kubectl, "3/3", "get", "deploy", "shop", "-o", "jsonpath={.status.readyReplicas}/3")


def test_a_restart_keeps_the_installed_crd(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    first = start_control_plane(tmp_path / "data", workloads=True, extra=UP)
    control_plane_factory.append(first)
    kubectl = Kubectl(kubectl_binary, first.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")
    kubectl.ok("label", "crd", CRD_NAME, "edited=by-hand")
    uid = kubectl.ok("get", "crd", CRD_NAME, "-o", "jsonpath={.metadata.uid}")
    first.stop()

    second = start_control_plane(tmp_path / "data", workloads=True, extra=UP)
    control_plane_factory.append(second)
    kubectl = Kubectl(kubectl_binary, second.kubeconfig, private_home, tmp_path)
    again = kubectl.ok("get", "crd", CRD_NAME, "-o", "jsonpath={.metadata.uid}/{.metadata.labels}")
    assert again == f'{uid}/{{"edited":"by-hand"}}'


def test_no_install_crd_starts_without_it(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    extra = (*UP, "--no-install-crd", CRD_NAME)
    plane = start_control_plane(tmp_path / "data", workloads=True, extra=extra)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    installed = kubectl.ok("get", "crds", "-o", "name").split()
    # The other shipped CRDs still come with their controllers; this one does not.
    assert f"customresourcedefinition.apiextensions.k8s.io/{CRD_NAME}" not in installed
    assert installed, "the other shipped CRDs were not installed"
