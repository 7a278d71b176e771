"""Real kubectl against ``podscale up`` running its controllers on the simulated cluster:
a Deployment applied, rolled out, scaled and watched, then deleted in the foreground; a
StatefulSet scaled in order. Everything runs at wall speed (the simulated kubelets start
pods within about a second), so waits are kubectl's own (``rollout status``, ``--wait``)
with bounded timeouts.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        resources: {requests: {cpu: 100m, memory: 64Mi}}
"""

STATEFUL_SET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
"""


@pytest.fixture
def kubectl(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> Kubectl:
    # Scrapes every second, so `kubectl top` has two points within a couple of seconds.
    plane = start_control_plane(
        tmp_path / "data", workloads=True, extra=("--metric-resolution=1s",)
    )
    control_plane_factory.append(plane)
    return Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)


def _names(kubectl: Kubectl, *args: str) -> list[str]:
    out = kubectl.ok("get", *args, "-o", "jsonpath={.items[*].metadata.name}")
    return sorted(out.split())


def test_nodes_are_registered_and_ready(kubectl: Kubectl) -> None:
    kubectl.ok("wait", "--for=condition=Ready", "node", "--all", "--timeout=30s")
    assert _names(kubectl, "nodes") == ["node-1", "node-2", "node-3"]


def test_deployment_apply_scale_watch_rollout_and_foreground_delete(kubectl: Kubectl) -> None:
    manifest = kubectl.write("web.yaml", DEPLOYMENT)
    assert kubectl.ok("apply", "-f", manifest) == "deployment.apps/web created\n"
    status = kubectl.ok("rollout", "status", "deployment/web", "--timeout=60s")
    assert 'deployment "web" successfully rolled out' in status
    [rs] = _names(kubectl, "rs", "-l", "app=web")
    pods = _names(kubectl, "pods", "-l", "app=web")
    assert len(pods) == 3
    assert all(pod.startswith(f"{rs}-") for pod in pods)
    nodes = kubectl.ok("get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}").split()
    assert sorted(nodes) == ["node-1", "node-2", "node-3"]  # spread over the nodes

    # Watch while scaling: new pods appear, then show up as 1/1 Running.
    watch = subprocess.Popen(
        kubectl.argv("get", "pods", "-l", "app=web", "-w", "--request-timeout=0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=kubectl.workdir,
        env=kubectl.env(),
    )
    try:
        assert (
            kubectl.ok("scale", "deployment/web", "--replicas=5") == "deployment.apps/web scaled\n"
        )
        kubectl.ok("rollout", "status", "deployment/web", "--timeout=60s")
        kubectl.ok("wait", "--for=condition=Ready", "pods", "-l", "app=web", "--timeout=60s")
    finally:
        watch.terminate()
        seen, _ = watch.communicate(timeout=10)
    scaled = _names(kubectl, "pods", "-l", "app=web")
    new_pods = set(scaled) - set(pods)
    assert len(new_pods) == 2
    rows = [line.split() for line in seen.splitlines()[1:]]
    for pod in new_pods:
        states = [(row[1], row[2]) for row in rows if row[0] == pod]
        assert states, f"{pod} never appeared in the watch:\n{seen}"
        assert states[-1] == ("1/1", "Running"), f"{pod} did not become ready:\n{seen}"

    # A template change rolls out a second revision.
    kubectl.ok("set", "image", "deployment/web", "nginx=nginx:1.27")
    kubectl.ok("rollout", "status", "deployment/web", "--timeout=90s")
    history = kubectl.ok("rollout", "history", "deployment/web").split()
    assert history[-4:] == ["1", "<none>", "2", "<none>"]
    # Old pods may still be Terminating (graceful deletion): only the live ones count.
    rows = kubectl.ok(
        "get",
        "pods",
        "-o",
        "jsonpath={range .items[*]}{.metadata.deletionTimestamp}|"
        "{.spec.containers[0].image}{'\\n'}{end}",
    )
    live = [line.split("|")[1] for line in rows.splitlines() if line.startswith("|")]
    assert set(live) == {"nginx:1.27"}

    # Foreground deletion: kubectl waits until the Deployment is gone, and by then its
    # ReplicaSets and pods are gone too (the garbage collector held the owner until then).
    deleted = kubectl.ok("delete", "deployment", "web", "--cascade=foreground", "--timeout=60s")
    assert deleted == 'deployment.apps "web" deleted\n'
    assert _names(kubectl, "deployments") == []
    assert _names(kubectl, "rs") == []
    assert _names(kubectl, "pods") == []


def test_statefulset_scales_in_order(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", kubectl.write("db.yaml", STATEFUL_SET))
    kubectl.ok("rollout", "status", "statefulset/db", "--timeout=60s")
    assert _names(kubectl, "pods", "-l", "app=db") == ["db-0", "db-1"]
    kubectl.ok("scale", "statefulset/db", "--replicas=3")
    kubectl.ok("rollout", "status", "statefulset/db", "--timeout=60s")
    assert _names(kubectl, "pods", "-l", "app=db") == ["db-0", "db-1", "db-2"]
    kubectl.ok("scale", "statefulset/db", "--replicas=1")
    kubectl.ok("wait", "--for=delete", "pod/db-2", "pod/db-1", "--timeout=60s")
    assert _names(kubectl, "pods", "-l", "app=db") == ["db-0"]


def test_top_pods_shows_the_simulated_usage(kubectl: Kubectl) -> None:
    kubectl.ok("apply", "-f", kubectl.write("web.yaml", DEPLOYMENT))
    kubectl.ok("rollout", "status", "deployment/web", "--timeout=60s")
    deadline = time.monotonic() + 30
    while True:  # bounded: metrics appear after two scrapes of a running pod
        top = kubectl("top", "pods", "-l", "app=web")
        if top.returncode == 0 and len(top.stdout.splitlines()) == 4:
            break
        assert time.monotonic() < deadline, top.output
        time.sleep(0.5)
    header, *rows = top.stdout.splitlines()
    assert header.split() == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    for row in rows:
        name, cpu, memory = row.split()
        assert name.startswith("web-")
        assert cpu.endswith("m")  # idle pods: their baseline, in millicores
        assert memory.endswith("Mi")
    nodes = kubectl.ok("top", "nodes").splitlines()
    assert [line.split()[0] for line in nodes[1:]] == ["node-1", "node-2", "node-3"]
