"""KEDA's admission webhook under ``podscale up`` with the real kubectl: with the
``keda-operator`` running (its CRD installed by podscale up), ``kubectl apply`` of a
ScaledObject KEDA refuses prints what kubectl prints on a KEDA cluster, ``Error from server
(Forbidden): error when creating "so.yaml": admission webhook "vscaledobject.kb.io" denied
the request: <KEDA's message>``, and nothing is stored; the fixed manifest applies."""

from __future__ import annotations

from pathlib import Path

from podscale.controllers.keda.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

SCALED_OBJECT = """\
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: worker
spec:
  scaleTargetRef:
    name: worker
  minReplicaCount: {min}
  maxReplicaCount: 2
  triggers:
    - type: prometheus
      metadata:
        serverAddress: http://prometheus:9090
        query: sum(queue_length)
        threshold: "10"
"""
# Only KEDA's operator, no simulated cluster: the webhook is the API server's.
UP = ("--controllers=keda-operator",)


def test_kubectl_apply_of_a_refused_scaled_object_prints_kedas_denial(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", extra=UP)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    refused = kubectl("apply", "-f", kubectl.write("so.yaml", SCALED_OBJECT.format(min=5)))
    assert refused.returncode != 0
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): error when creating "so.yaml": admission webhook '
        '"vscaledobject.kb.io" denied the request: '
        "MinReplicaCount=5 must be less than MaxReplicaCount=2"
    ), refused.output
    assert "NotFound" in kubectl("get", "so", "worker").stderr

    applied = kubectl.ok("apply", "-f", kubectl.write("so.yaml", SCALED_OBJECT.format(min=1)))
    assert applied.strip() == "scaledobject.keda.sh/worker created"
