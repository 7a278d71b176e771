"""Crane's EffectiveHorizontalPodAutoscaler under ``podscale up`` with the real kubectl: its
CRD comes with the controller; ``kubectl apply -f examples/ehpa/`` (the shop and its EHPA)
makes the controller generate the HPA ``ehpa-shop`` (``kubectl get hpa``); ``kubectl get
ehpa`` prints Crane's printer columns with the expected replicas once the HPA has decided;
``kubectl get --raw`` on external.metrics.k8s.io serves ``crane_autoscaling_cron`` with the
value the cron rule gives now (outside the example's weekday-morning window: 1, as
prediction works beside the cron; inside: its 10); ``kubectl describe ehpa`` prints the
object with its conditions and the controller's ``HPACreated`` event.

The example's forecast has no history here (a fresh plane), so the HPA carries no
prediction metric and ``PredictionReady`` is False: what the example's README says.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import yaml

from podscale.controllers.ehpa.decisions import cron_active
from podscale.controllers.ehpa.kind import CRD_NAME
from podscale.controllers.ehpa.types import read_spec

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

EXAMPLE = Path(__file__).parents[3] / "examples" / "ehpa"
WAIT_SECONDS = 40
CRON_PATH = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/crane_autoscaling_cron"
# Short HPA periods and metric resolution keep the test's wall time small: with the
# defaults, the HPA decides only once its pods' CPU samples count (about 30 s).
UP = (
    "--horizontal-pod-autoscaler-sync-period",
    "2s",
    "--horizontal-pod-autoscaler-initial-readiness-delay",
    "1s",
    "--horizontal-pod-autoscaler-cpu-initialization-period",
    "2s",
    "--metric-resolution",
    "2s",
)


def _until(kubectl: Kubectl, check: str, *args: str) -> str:
    """Run ``kubectl args`` until its output contains ``check`` (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(*args).output
        if check in out:
            return out
        assert time.monotonic() < deadline, f"kubectl {' '.join(args)}: no {check!r} in:\n{out}"
        time.sleep(0.5)


def _until_expected(kubectl: Kubectl) -> str:
    """Wait until the EHPA's ``status.expectReplicas`` is what the HPA decides at this wall
    time: 10 while the example's cron window is open, else the floor of 2 (idle pods). A
    window edge crossed while waiting accepts either side's value."""
    start = datetime.now(UTC)
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(
            "get", "ehpa", "shop", "-o", "jsonpath={.status.expectReplicas}"
        ).output.strip()
        expected = {
            "2" if v == "1" else v for v in _cron_values(start) | _cron_values(datetime.now(UTC))
        }
        if out in expected:
            return out
        assert time.monotonic() < deadline, f"expectReplicas {out!r}, expected one of {expected}"
        time.sleep(0.5)


def _cron_values(at: datetime) -> set[str]:
    """What ``crane_autoscaling_cron`` serves for the example at ``at``: 10 inside the
    morning window, 1 outside (prediction is on)."""
    spec = read_spec(yaml.safe_load((EXAMPLE / "ehpa.yaml").read_text(encoding="utf-8")))
    active = any(cron_active(c, at, ZoneInfo("UTC")) for c in spec.crons)
    return {"10" if active else "1"}


def test_kubectl_applies_the_ehpa_example_and_reads_what_the_controller_made(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", workloads=True, extra=UP)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    deployment, ehpa = str(EXAMPLE / "deployment.yaml"), str(EXAMPLE / "ehpa.yaml")
    applied = kubectl.ok("apply", "-f", deployment, "-f", ehpa)
    assert "deployment.apps/shop created" in applied
    assert "effectivehorizontalpodautoscaler.autoscaling.crane.io/shop created" in applied

    hpa = _until(kubectl, "ehpa-shop", "get", "hpa")
    assert hpa.split("\n")[0].split()[:2] == ["NAME", "REFERENCE"]
    # REPLICAS is the HPA's desired count, there once the HPA controller has decided: the
    # floor of 2 on idle pods, or the cron rule's 10 while its morning window is open.
    _until_expected(kubectl)
    header, row = kubectl.ok("get", "ehpa").strip().split("\n")
    assert header.split() == [
        "NAME",
        "STRATEGY",
        "MINPODS",
        "MAXPODS",
        "SPECIFICPODS",
        "REPLICAS",
        "AGE",
    ]
    # SPECIFICPODS is blank (Auto has none): kubectl prints nothing for it.
    assert row.split()[:4] == ["shop", "Auto", "2", "20"]
    assert row[header.index("SPECIFICPODS") :].split()[0] == row.split()[4]
    assert int(row[header.index("REPLICAS") :].split()[0]) >= 2

    before = _cron_values(datetime.now(UTC))
    served = json.loads(kubectl.ok("get", "--raw", f"{CRON_PATH}?labelSelector=targetName=shop"))
    after = _cron_values(datetime.now(UTC))
    assert served["kind"] == "ExternalMetricValueList"
    (item,) = served["items"]
    assert item["metricName"] == "crane_autoscaling_cron"
    assert item["metricLabels"]["resourceIdentifier"] == "cron"
    assert item["value"] in before | after

    metrics = json.loads(kubectl.ok("get", "hpa", "ehpa-shop", "-o", "json"))["spec"]["metrics"]
    assert [m["type"] for m in metrics] == ["Resource", "External"]
    assert metrics[1]["external"]["metric"]["name"] == "crane_autoscaling_cron"

    described = kubectl.ok("describe", "ehpa", "shop")
    for shown in (
        "Name:",
        "Scale Strategy:",
        "EffectiveHorizontalPodAutoscalerReady",
        "PredictionReady",
        "HPACreated",
        "effective-hpa-controller",
    ):
        assert shown in described, described
