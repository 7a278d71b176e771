"""Custom resources in the object lifecycle, with the real kubectl against ``podscale up``
running its controllers: a CRD applied after the start, then

- ``kubectl delete --cascade=background|foreground|orphan`` of a custom resource that owns
  ConfigMaps: the garbage collector deletes them (foreground: kubectl returns once they are
  gone, the owner held by ``foregroundDeletion`` until then) or orphans them;
- a custom resource owned by a Deployment goes with the Deployment;
- ``kubectl delete namespace`` returns once the custom resources in it are gone too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.toys.podscale.test}
spec:
  group: toys.podscale.test
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.25}]}
"""
# Generous bounds for the collector's and the namespace controller's passes.
WAIT_SECONDS = 90


@pytest.fixture
def kubectl(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> Kubectl:
    plane = start_control_plane(tmp_path / "data", workloads=True)
    control_plane_factory.append(plane)
    tool = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    tool.ok("apply", "-f", tool.write("crd.yaml", CRD))
    tool.ok("wait", "--for=condition=Established", "crd/gizmos.toys.podscale.test")
    return tool


def _slow(kubectl: Kubectl, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        kubectl.argv(*args),
        capture_output=True,
        text=True,
        cwd=kubectl.workdir,
        env=kubectl.env(),
        timeout=WAIT_SECONDS + 30,
        check=False,
    )


def _uid(kubectl: Kubectl, *resource: str) -> str:
    return kubectl.ok("get", *resource, "-o", "jsonpath={.metadata.uid}")


def _apply(kubectl: Kubectl, name: str, manifest: dict[str, object], namespace: str) -> None:
    path = kubectl.write(f"{name}.json", json.dumps(manifest))
    kubectl.ok("apply", "-n", namespace, "-f", path)


def _gizmo(name: str, owner: dict[str, object] | None = None) -> dict[str, object]:
    metadata: dict[str, object] = {"name": name}
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    return {"apiVersion": "toys.podscale.test/v1", "kind": "Gizmo", "metadata": metadata}


def _owned_configmap(kubectl: Kubectl, gizmo: str, namespace: str = "default") -> str:
    """A gizmo and a ConfigMap it owns (blockOwnerDeletion); the ConfigMap's name."""
    _apply(kubectl, gizmo, _gizmo(gizmo), namespace)
    owner = {
        "apiVersion": "toys.podscale.test/v1",
        "kind": "Gizmo",
        "name": gizmo,
        "uid": _uid(kubectl, "-n", namespace, "gizmo", gizmo),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    name = f"{gizmo}-config"
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "ownerReferences": [owner]},
        "data": {"k": "v"},
    }
    _apply(kubectl, name, configmap, namespace)
    return name


@pytest.mark.parametrize("cascade", ["background", "foreground"])
def test_deleting_a_custom_owner_collects_its_dependents(kubectl: Kubectl, cascade: str) -> None:
    configmap = _owned_configmap(kubectl, "g")
    deleted = _slow(kubectl, "delete", "gizmo", "g", f"--cascade={cascade}")
    assert (deleted.returncode, deleted.stdout) == (0, 'gizmo.toys.podscale.test "g" deleted\n')
    if cascade == "foreground":
        # kubectl waited for the owner, which the collector releases after its dependents.
        assert kubectl("get", "configmap", configmap).returncode != 0
    gone = _slow(
        kubectl, "wait", "--for=delete", f"configmap/{configmap}", f"--timeout={WAIT_SECONDS}s"
    )
    assert gone.returncode == 0, gone.stderr


def test_orphaning_a_custom_owner_keeps_its_dependents(kubectl: Kubectl) -> None:
    configmap = _owned_configmap(kubectl, "g")
    deleted = _slow(kubectl, "delete", "gizmo", "g", "--cascade=orphan")
    assert deleted.returncode == 0, deleted.stderr
    assert kubectl("get", "gizmo", "g").returncode != 0
    owners = kubectl.ok("get", "configmap", configmap, "-o", "jsonpath={.metadata.ownerReferences}")
    assert json.loads(owners or "[]") == []


def test_a_custom_resource_owned_by_a_deployment_goes_with_it(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT))
    owner = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "web",
        "uid": _uid(kubectl, "deployment", "web"),
    }
    _apply(kubectl, "owned", _gizmo("owned", owner), "default")
    kubectl.ok("delete", "deployment", "web")
    gone = _slow(kubectl, "wait", "--for=delete", "gizmo/owned", f"--timeout={WAIT_SECONDS}s")
    assert gone.returncode == 0, gone.stderr


def test_delete_namespace_waits_for_its_custom_resources(kubectl: Kubectl) -> None:
    kubectl.ok("create", "namespace", "shop")
    _apply(kubectl, "a", _gizmo("a"), "shop")
    _apply(kubectl, "b", _gizmo("b"), "shop")
    _apply(kubectl, "keep", _gizmo("keep"), "default")
    deleted = _slow(kubectl, "delete", "namespace", "shop", f"--timeout={WAIT_SECONDS}s")
    assert (deleted.returncode, deleted.stdout) == (0, 'namespace "shop" deleted\n')
    assert kubectl.ok("get", "gizmos", "-A", "-o", "name") == "gizmo.toys.podscale.test/keep\n"
