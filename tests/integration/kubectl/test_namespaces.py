"""Real kubectl against ``podscale up``: the namespace lifecycle as on a cluster.

With kubectl 1.32 and 1.33: ``kubectl create namespace``, a Deployment applied into it and
rolled out, then ``kubectl delete namespace``, which returns only once the namespace is gone
(kubectl waits on its own): the namespace controller deleted the Deployment, its ReplicaSet and pods
first. ``default`` cannot be deleted, and nothing can be created in a namespace that does
not exist; both errors are upstream's, word for word.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        resources: {requests: {cpu: 100m, memory: 64Mi}}
"""
# A namespace deletion waits 5 s before its first pass and again after each change of its
# conditions; the pods' termination comes on top: well within this bound.
DELETE_SECONDS = 90


MINORS = (32, 33)


@pytest.fixture(params=MINORS, ids=[f"kubectl-1.{m}" for m in MINORS])
def kubectl(
    request: pytest.FixtureRequest,
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> Kubectl:
    plane = start_control_plane(tmp_path / "data", minor=int(request.param), workloads=True)
    control_plane_factory.append(plane)
    return Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)


def _slow(kubectl: Kubectl, *args: str) -> subprocess.CompletedProcess[str]:
    """A kubectl command that waits longer than the harness's per-command bound."""
    return subprocess.run(
        kubectl.argv(*args),
        capture_output=True,
        text=True,
        cwd=kubectl.workdir,
        env=kubectl.env(),
        timeout=DELETE_SECONDS + 30,
        check=False,
    )


def test_delete_namespace_returns_once_it_and_its_content_are_gone(kubectl: Kubectl) -> None:
    created = kubectl("create", "namespace", "shop")  # a protobuf body
    assert (created.returncode, created.stdout) == (0, "namespace/shop created\n")
    phase = kubectl.ok("get", "namespace", "shop", "-o", "jsonpath={.status.phase}")
    assert phase == "Active"
    finalizers = kubectl.ok("get", "namespace", "shop", "-o", "jsonpath={.spec.finalizers}")
    assert finalizers == '["kubernetes"]'
    manifest = kubectl.write("web.yaml", DEPLOYMENT)
    assert kubectl.ok("apply", "-n", "shop", "-f", manifest) == "deployment.apps/web created\n"
    status = kubectl.ok("rollout", "status", "-n", "shop", "deployment/web", "--timeout=60s")
    assert 'deployment "web" successfully rolled out' in status

    deleted = _slow(kubectl, "delete", "namespace", "shop", f"--timeout={DELETE_SECONDS}s")
    assert (deleted.returncode, deleted.stdout, deleted.stderr) == (
        0,
        'namespace "shop" deleted\n',
        "",
    )
    gone = kubectl("get", "namespace", "shop")
    assert gone.stderr == 'Error from server (NotFound): namespaces "shop" not found\n'
    left = kubectl("get", "deployments,replicasets,pods", "-A", "-o", "name")
    assert "web" not in left.stdout


def test_system_namespaces_cannot_be_deleted(kubectl: Kubectl) -> None:
    refused = kubectl("delete", "namespace", "default")
    assert refused.returncode == 1
    assert refused.stderr == (
        'Error from server (Forbidden): namespaces "default" is forbidden: '
        "this namespace may not be deleted\n"
    )
    assert kubectl.ok("get", "namespace", "default", "-o", "name") == "namespace/default\n"


def test_creating_in_a_missing_namespace_is_not_found(kubectl: Kubectl) -> None:
    manifest = kubectl.write("web.yaml", DEPLOYMENT)
    refused = kubectl("create", "-n", "nope", "-f", manifest)
    assert refused.returncode == 1
    assert refused.stderr == (
        'Error from server (NotFound): error when creating "web.yaml": '
        'namespaces "nope" not found\n'
    )
    applied = kubectl("apply", "-n", "nope", "-f", manifest)
    assert 'namespaces "nope" not found' in applied.stderr
