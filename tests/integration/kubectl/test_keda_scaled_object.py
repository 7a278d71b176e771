"""KEDA's ScaledObject under ``podscale up`` with the real kubectl, in real time.

``podscale up`` installs ``scaledobjects.keda.sh`` and runs the ``keda-operator`` by default.
The test applies a Deployment at 0 replicas and a ScaledObject on it with podscale's
``podscale-push`` trigger (1 s ``pollingInterval``, 3 s ``cooldownPeriod``), and drives the
trigger's external metric by PUTting an ``ExternalMetricValueList`` at the URL the metric is
read from (podscale's push extension) with ``kubectl replace --raw``. It shows: ``kubectl get
crd`` lists the CRD; ``kubectl get so`` prints KEDA's printer columns with their values
(TRIGGERS reads ``status.triggersTypes``, AUTHENTICATIONS is blank without an
``authenticationRef``); ``kubectl get hpa`` lists the generated ``keda-hpa-worker``; the
target goes 0 -> 3 when the queue rises to 12 (KEDA activates 0 -> 1, the HPA does 1 ->
ceil(12 / 5)) and back to 0 once it drains and the cooldown has passed; ``kubectl describe
so`` shows the conditions and KEDA's events. Waits are bounded polls on wall time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from podscale.controllers.keda.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

WAIT_SECONDS = 45.0
POLL_SECONDS = 0.5
METRIC = "queue_messages_ready"
PUSH_PATH = f"/apis/external.metrics.k8s.io/v1beta1/namespaces/default/{METRIC}"
# The HPA syncs every second so its 1 -> N step does not wait the default 15 s.
UP = ("--horizontal-pod-autoscaler-sync-period", "1s")
COLUMNS = [
    "NAME",
    "SCALETARGETKIND",
    "SCALETARGETNAME",
    "MIN",
    "MAX",
    "READY",
    "ACTIVE",
    "FALLBACK",
    "PAUSED",
    "TRIGGERS",
    "AUTHENTICATIONS",
    "AGE",
]

MANIFESTS = f"""\
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
  minReplicaCount: 0
  maxReplicaCount: 5
  advanced:
    horizontalPodAutoscalerConfig:
      behavior: {{scaleDown: {{stabilizationWindowSeconds: 0}}}}
  triggers:
  - type: podscale-push
    metadata: {{metricName: {METRIC}, value: "5"}}
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


def _replicas_become(kubectl: Kubectl, wanted: int) -> None:
    jsonpath = "jsonpath={.spec.replicas}/{.status.readyReplicas}"
    # readyReplicas is absent at 0: the check is the spec alone then.
    _until(kubectl, f"{wanted}/{wanted or ''}", "get", "deploy", "worker", "-o", jsonpath)


def _push(kubectl: Kubectl, value: int) -> None:
    """PUT the queue length as the external metric's only series."""
    body = {
        "kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1",
        "metadata": {},
        "items": [{"metricName": METRIC, "metricLabels": {}, "value": str(value)}],
    }
    name = kubectl.write("push.json", json.dumps(body))
    served = json.loads(kubectl.ok("replace", "--raw", PUSH_PATH, "-f", name))
    assert [item["value"] for item in served["items"]] == [str(value)]


def _so_row(kubectl: Kubectl) -> dict[str, str]:
    """``kubectl get so worker`` as column -> cell (a blank cell reads ``""``)."""
    header, row = kubectl.ok("get", "so", "worker").rstrip("\n").split("\n")
    assert header.split() == COLUMNS
    starts = [header.index(column) for column in COLUMNS]
    ends = [*starts[1:], None]
    return {c: row[s:e].strip() for c, s, e in zip(COLUMNS, starts, ends, strict=True)}


@pytest.mark.parametrize("minor", [27, 33], ids=lambda minor: f"kubectl-1.{minor}")
def test_kubectl_runs_a_scaled_object_from_zero_and_back(
    minor: int,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=minor, workloads=True, extra=UP)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")
    assert CRD_NAME in kubectl.ok("get", "crd")

    _push(kubectl, 0)
    applied = kubectl.ok("apply", "-f", kubectl.write("worker.yaml", MANIFESTS))
    assert "deployment.apps/worker created" in applied
    assert "scaledobject.keda.sh/worker created" in applied

    # Ready once the operator has reconciled and the scale loop has read the trigger.
    ready = 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'
    _until(kubectl, "True", "get", "so", "worker", "-o", ready)
    row = _so_row(kubectl)
    assert {c: row[c] for c in COLUMNS[:-1]} == {
        "NAME": "worker",
        "SCALETARGETKIND": "apps/v1.Deployment",
        "SCALETARGETNAME": "worker",
        "MIN": "0",
        "MAX": "5",
        "READY": "True",
        "ACTIVE": "False",
        "FALLBACK": "False",
        "PAUSED": "Unknown",
        "TRIGGERS": "podscale-push",
        "AUTHENTICATIONS": "",
    }
    assert row["AGE"].endswith("s")
    hpa = kubectl.ok("get", "hpa")
    assert hpa.split("\n")[1].split()[:2] == ["keda-hpa-worker", "Deployment/worker"]
    _replicas_become(kubectl, 0)

    _push(kubectl, 12)
    _replicas_become(kubectl, 3)
    assert _so_row(kubectl)["ACTIVE"] == "True"
    described = kubectl.ok("describe", "so", "worker")
    for shown in (
        "Scale Target Kind:  apps/v1.Deployment",
        "Triggers Types:",
        "podscale-push",
        "Hpa Name:",
        "keda-hpa-worker",
        "ScaledObjectReady",
        "ScalerActive",
        "KEDAScaleTargetActivated",
        "Scaled apps/v1.Deployment default/worker from 0 to 1",
        "keda-operator",
    ):
        assert shown in described, described

    _push(kubectl, 0)
    _replicas_become(kubectl, 0)
    row = _so_row(kubectl)
    assert (row["READY"], row["ACTIVE"]) == ("True", "False")
    described = _until(kubectl, "KEDAScaleTargetDeactivated", "describe", "so", "worker")
    assert "Deactivated apps/v1.Deployment default/worker from 1 to 0" in described
