"""The PredictiveHorizontalPodAutoscaler with the real kubectl: ``podscale up --install-crd``
serves the shipped CRD; ``kubectl apply -f examples/phpa/`` creates the Deployment and the
PHPA (``prediction: {}`` filled with its defaults by the schema); ``kubectl get phpa``
prints the CRD's printer columns, the ``all`` category lists it, and an object whose bounds
are out of order is refused at admission by the CRD's CEL rule.

No controller runs here (``podscale up`` without workloads), so the columns the controller
fills (REPLICAS, PREDICTED) are blank, as kubectl prints a column its JSONPath finds nothing for.
"""

from __future__ import annotations

from pathlib import Path

from podscale.controllers.phpa.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

EXAMPLE = Path(__file__).parents[3] / "examples" / "phpa"
INVALID = """\
apiVersion: autoscaling.podscale.dev/v1alpha1
kind: PredictiveHorizontalPodAutoscaler
metadata:
  name: upside-down
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 9
  maxReplicas: 3
"""


def test_kubectl_applies_the_example_and_gets_the_columns(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", extra=("--install-crd", CRD_NAME))
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    applied = kubectl.ok("apply", "-f", str(EXAMPLE))
    assert "deployment.apps/web created" in applied
    assert "predictivehorizontalpodautoscaler.autoscaling.podscale.dev/web created" in applied

    header, row = kubectl.ok("get", "phpa").strip().split("\n")
    assert header.split() == [
        "NAME",
        "REFERENCE",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "PREDICTED",
        "MODE",
        "AGE",
    ]
    # REPLICAS and PREDICTED are blank: the status holds neither yet.
    assert row.split()[:5] == ["web", "web", "2", "20", "Auto"]
    assert row[header.index("MODE") :].startswith("Auto")

    defaults = kubectl.ok("get", "phpa", "web", "-o", "jsonpath={.spec.prediction}")
    for shown in ('"history":"7d"', '"quantile":"0.95"', '"scaleDownLimit":"100%"'):
        assert shown in defaults, defaults
    assert "predictivehorizontalpodautoscaler.autoscaling.podscale.dev/web" in kubectl.ok(
        "get", "all", "-o", "name"
    )

    refused = kubectl("apply", "-f", kubectl.write("invalid.yaml", INVALID))
    assert refused.returncode != 0
    assert "maxReplicas must be greater than or equal to minReplicas" in refused.output
