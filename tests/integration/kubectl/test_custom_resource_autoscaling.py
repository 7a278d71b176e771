"""Autoscaling a custom resource with the real kubectl against ``podscale up`` running the
HPA controller: ``kubectl scale`` and ``kubectl autoscale`` on a resource whose CRD has a
scale subresource, then the HPA's status shows the resource's Scale as read through
``/scale`` (AbleToScale True). A CRD without one: kubectl refuses to autoscale (its discovery
shows no scale subresource), ``kubectl scale`` gets the server's NotFound, and an HPA applied
anyway reports FailedGetScale with that text, as upstream's.

No simulated nodes run, so there are no pods or pod metrics: ScalingActive stays False; the
HPA scaling a custom resource's pods is tested on virtual time in
tests/integration/controllers/test_hpa_custom_resources.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

JSON = dict[str, Any]
WAIT_SECONDS = 20.0

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {{plural: {plural}, singular: {singular}, kind: {kind}}}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {{}}
{scale}    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {{type: object, properties: {{replicas: {{type: integer}}}}}}
          status:
            type: object
            properties: {{replicas: {{type: integer}}, selector: {{type: string}}}}
"""
SCALE = """\
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
"""
RESOURCE = """\
apiVersion: stable.example.com/v1
kind: {kind}
metadata: {{name: {name}}}
spec: {{replicas: 2}}
"""
GADGET_HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: g1}
spec:
  scaleTargetRef: {apiVersion: stable.example.com/v1, kind: Gadget, name: g1}
  maxReplicas: 3
"""


def install(kubectl: Kubectl, plural: str, kind: str, name: str, *, scale: bool) -> None:
    crd = CRD.format(plural=plural, singular=kind.lower(), kind=kind, scale=SCALE if scale else "")
    kubectl.ok("apply", "-f", kubectl.write(f"{plural}-crd.yaml", crd))
    kubectl.ok("wait", "--for=condition=Established", f"crd/{plural}.stable.example.com")
    body = RESOURCE.format(kind=kind, name=name)
    kubectl.ok("apply", "-f", kubectl.write(f"{name}.yaml", body))


def wait_for_hpa(kubectl: Kubectl, name: str, ready: Callable[[JSON], bool]) -> JSON:
    """The HPA once ``ready`` holds for it (the controller syncs every second)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        hpa: JSON = json.loads(kubectl.ok("get", "hpa", name, "-o", "json"))
        if ready(hpa) or time.monotonic() > deadline:
            return hpa
        time.sleep(0.5)


def conditions(hpa: JSON) -> dict[str, tuple[str, str, str]]:
    found = (hpa.get("status") or {}).get("conditions") or []
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in found}


@pytest.mark.parametrize("minor", [29, 33])
def test_kubectl_scale_and_autoscale_a_custom_resource(
    minor: int,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    flags = (
        "--controllers=horizontal-pod-autoscaler-controller",
        "--no-simulate",
        "--horizontal-pod-autoscaler-sync-period=1s",
    )
    plane = start_control_plane(tmp_path / "data", minor=minor, workloads=True, extra=flags)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)

    install(kubectl, "crontabs", "CronTab", "nightly", scale=True)
    status = '{"status":{"replicas":2,"selector":"app=nightly"}}'
    kubectl.ok("patch", "crontab", "nightly", "--subresource=status", "--type=merge", "-p", status)
    scaled = kubectl.ok("scale", "crontab", "nightly", "--replicas=3")
    assert scaled == "crontab.stable.example.com/nightly scaled\n"
    autoscaled = kubectl.ok("autoscale", "crontab", "nightly", "--max=5", "--cpu-percent=50")
    assert autoscaled == "horizontalpodautoscaler.autoscaling/nightly autoscaled\n"

    hpa = wait_for_hpa(kubectl, "nightly", lambda h: "AbleToScale" in conditions(h))
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "name": "nightly",
    }
    assert conditions(hpa)["AbleToScale"] == (
        "True",
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
    )
    assert hpa["status"]["currentReplicas"] == 3  # the Scale's spec.replicas, as upstream
    row = kubectl.ok("get", "hpa", "nightly").splitlines()[1].split()
    assert (row[1], row[-2]) == ("CronTab/nightly", "3")

    install(kubectl, "gadgets", "Gadget", "g1", scale=False)
    refused = kubectl("autoscale", "gadget", "g1", "--max=3")
    assert refused.returncode != 0
    assert "cannot autoscale a Gadget" in refused.stderr
    not_scaled = kubectl("scale", "gadget", "g1", "--replicas=3")
    assert not_scaled.returncode != 0
    assert 'gadgets.stable.example.com "g1" not found' in not_scaled.stderr
    kubectl.ok("apply", "-f", kubectl.write("gadget-hpa.yaml", GADGET_HPA))
    hpa = wait_for_hpa(kubectl, "g1", lambda h: "AbleToScale" in conditions(h))
    assert conditions(hpa)["AbleToScale"] == (
        "False",
        "FailedGetScale",
        "the HPA controller was unable to get the target's current scale: "
        'gadgets.stable.example.com "g1" not found',
    )
