"""The WebApp example operator under ``podscale up`` with the real kubectl: its CRD is
installed by ``--install-crd`` or by ``kubectl apply`` of the shipped file after the start;
``kubectl get webapps`` prints the CRD's printer columns; ``kubectl scale`` resizes the
WebApp through its scale subresource and the owned ReplicaSet follows.
"""

from __future__ import annotations

import json
import time
from importlib import resources
from pathlib import Path

import pytest

from podscale.controllers.webapp.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

WEBAPP = """\
apiVersion: examples.podscale.dev/v1alpha1
kind: WebApp
metadata:
  name: web
spec:
  replicas: 1
  image: registry.k8s.io/hpa-example
  resources:
    requests: {cpu: 100m}
"""
WAIT_SECONDS = 60


def _until(kubectl: Kubectl, check: str, *args: str) -> str:
    """Run ``kubectl args`` until its output contains ``check`` (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        out = kubectl(*args).output
        if check in out:
            return out
        assert time.monotonic() < deadline, f"kubectl {' '.join(args)}: no {check!r} in:\n{out}"
        time.sleep(0.5)


@pytest.mark.parametrize("install", ["flag", "kubectl-apply"], ids=["install-crd-flag", "apply"])
def test_webapp_operator_with_kubectl(
    install: str,
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    extra = ("--install-crd", CRD_NAME) if install == "flag" else ()
    plane = start_control_plane(tmp_path / "data", workloads=True, extra=extra)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    if install == "kubectl-apply":
        shipped = resources.files("podscale.controllers.webapp").joinpath(f"{CRD_NAME}.yaml")
        kubectl.ok("apply", "-f", kubectl.write("crd.yaml", shipped.read_text(encoding="utf-8")))
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    kubectl.ok("apply", "-f", kubectl.write("web.yaml", WEBAPP))
    _until(
        kubectl,
        "1/1",
        "get",
        "rs",
        "web",
        "-o",
        "jsonpath={.status.readyReplicas}/{.spec.replicas}",
    )
    table = _until(kubectl, "web", "get", "webapps")
    header, row = table.strip().split("\n")[:2]
    assert header.split() == ["NAME", "DESIRED", "READY", "AGE"]
    assert row.split()[:2] == ["web", "1"]
    wide = kubectl.ok("get", "wa", "-o", "wide").split("\n")[0].split()
    assert wide == ["NAME", "DESIRED", "READY", "IMAGE", "AGE"]

    assert "scaled" in kubectl.ok("scale", "webapp/web", "--replicas=3")
    _until(kubectl, "3", "get", "rs", "web", "-o", "jsonpath={.spec.replicas}")
    _until(
        kubectl,
        "3/3",
        "get",
        "webapp",
        "web",
        "-o",
        "jsonpath={.status.readyReplicas}/{.spec.replicas}",
    )
    rs = json.loads(kubectl.ok("get", "rs", "web", "-o", "json"))
    (owner,) = rs["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("WebApp", "web", True)
    row = kubectl.ok("get", "webapps", "--no-headers").split()
    assert row[:3] == ["web", "3", "3"]
