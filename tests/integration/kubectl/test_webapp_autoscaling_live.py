"""An autoscaling/v2 HPA scaling a custom resource on a live ``podscale up``, end to end with
the real kubectl: the WebApp example operator's CRD installed by ``--install-crd``, simulated
nodes on, a WebApp of one 100m pod, ``kubectl autoscale webapp/web``, then a simulated load
set with ``kubectl annotate`` on the WebApp. The HPA reads the WebApp's Scale through its
``/scale`` subresource, finds its pods by the Scale's selector, and writes the new size back
through ``/scale``; the operator resizes its ReplicaSet. Removing the annotation brings it
back to one replica (the HPA's scale-down window is patched to 5 s).

Bounded on wall time: the plane scrapes every second and the HPA syncs every second, so the
way up takes a few seconds and the way down about the window; the whole test well under 60 s.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from podscale.controllers.webapp.kind import CRD_NAME

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

JSON = dict[str, Any]
WAIT_SECONDS = 25.0

WEBAPP = """\
apiVersion: examples.podscale.dev/v1alpha1
kind: WebApp
metadata: {name: web}
spec:
  replicas: 1
  image: registry.k8s.io/hpa-example
  resources:
    requests: {cpu: 100m}
"""
# 20 requests/s at 10m each is 200m: four 100m pods' worth at the 50% target. The costed
# container is "app", the one container the operator puts in each pod.
LOAD = (
    '{"load":{"type":"constant","rate":20},'
    '"containers":[{"name":"app","perRequest":{"cpu":"10m"}}],"noise":{"stddev":0}}'
)
LOADED = 4
ANNOTATION = "load.podscale.dev/v1alpha1"


def _until(kubectl: Kubectl, what: str, *args: str, done: Any) -> JSON:
    """``kubectl get ... -o json`` until ``done`` holds for it (bounded, wall time)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        got: JSON = json.loads(kubectl.ok("get", *args, "-o", "json"))
        if done(got):
            return got
        assert time.monotonic() < deadline, f"{what} never happened; last seen:\n{got}"
        time.sleep(0.5)


def _conditions(hpa: JSON) -> dict[str, tuple[str, str]]:
    found = (hpa.get("status") or {}).get("conditions") or []
    return {c["type"]: (c["status"], c["reason"]) for c in found}


def test_hpa_scales_a_webapp_up_and_down_under_a_load_set_with_kubectl(
    kubectl_binary: str,
    private_home: Path,
    tmp_path: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    flags = (
        "--install-crd",
        CRD_NAME,
        "--metric-resolution=1s",
        "--horizontal-pod-autoscaler-sync-period=1s",
    )
    plane = start_control_plane(tmp_path / "data", workloads=True, extra=flags)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    kubectl.ok("wait", "--for=condition=Established", f"crd/{CRD_NAME}")

    kubectl.ok("apply", "-f", kubectl.write("web.yaml", WEBAPP))
    _until(
        kubectl,
        "the WebApp's one pod ready",
        "webapp",
        "web",
        done=lambda w: (w.get("status") or {}).get("readyReplicas") == 1,
    )
    autoscaled = kubectl.ok("autoscale", "webapp/web", "--cpu-percent=50", "--min=1", "--max=6")
    assert autoscaled == "horizontalpodautoscaler.autoscaling/web autoscaled\n"
    # kubectl autoscale sets no behavior: lower the scale-down window as a user would.
    behavior = '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":5}}}}'
    kubectl.ok("patch", "hpa", "web", "--type=merge", "-p", behavior)
    idle = _until(
        kubectl,
        "the idle HPA reading the WebApp's pods' CPU",
        "hpa",
        "web",
        done=lambda h: _conditions(h).get("ScalingActive", ("",))[0] == "True",
    )
    assert idle["status"]["desiredReplicas"] == 1

    # The load goes on the WebApp, as a user annotates the workload they own: the operator
    # passes load.podscale.dev/* annotations on to its ReplicaSet, where the live plane reads
    # them (it reads Deployments, ReplicaSets and StatefulSets only). ``podscale load
    # webapp/web`` is not an option: it only knows those three built-in kinds.
    kubectl.ok("annotate", "webapp/web", "--overwrite", f"{ANNOTATION}={LOAD}")
    _until(
        kubectl,
        "the annotation passed on to the ReplicaSet",
        "rs",
        "web",
        done=lambda rs: rs["metadata"].get("annotations", {}).get(ANNOTATION) == LOAD,
    )
    hpa = _until(
        kubectl,
        f"the HPA asking for {LOADED} replicas",
        "hpa",
        "web",
        done=lambda h: (h.get("status") or {}).get("desiredReplicas") == LOADED,
    )
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "examples.podscale.dev/v1alpha1",
        "kind": "WebApp",
        "name": "web",
    }
    assert _conditions(hpa)["AbleToScale"][0] == "True"
    assert _conditions(hpa)["ScalingActive"] == ("True", "ValidMetricFound")
    webapp = _until(
        kubectl,
        f"the WebApp at {LOADED} ready replicas",
        "webapp",
        "web",
        done=lambda w: (w.get("status") or {}).get("readyReplicas") == LOADED,
    )
    assert webapp["spec"]["replicas"] == LOADED  # written through /scale by the HPA
    scale = json.loads(kubectl.ok("get", "--raw", _scale_path()))
    assert (scale["kind"], scale["spec"]["replicas"]) == ("Scale", LOADED)
    assert scale["status"]["selector"] == "examples.podscale.dev/webapp=web"
    rs = json.loads(kubectl.ok("get", "rs", "web", "-o", "json"))
    assert rs["spec"]["replicas"] == LOADED

    kubectl.ok("annotate", "webapp/web", f"{ANNOTATION}-")
    _until(
        kubectl,
        "the WebApp back at one replica",
        "webapp",
        "web",
        done=lambda w: w["spec"]["replicas"] == 1,
    )
    hpa = json.loads(kubectl.ok("get", "hpa", "web", "-o", "json"))
    assert hpa["status"]["desiredReplicas"] == 1


def _scale_path() -> str:
    return "/apis/examples.podscale.dev/v1alpha1/namespaces/default/webapps/web/scale"
