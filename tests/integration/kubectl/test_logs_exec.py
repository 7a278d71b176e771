"""Real kubectl 1.32 and 1.33 against ``podscale up`` with its simulated cluster: ``logs``
of a Deployment and of a pod, ``logs -f`` that returns when the pod is deleted, ``logs
--previous`` after a crash (written through the status subresource as the runtime's fault
injection writes it), ``exec`` refused with a clear message, no websocket warning on the
server's terminal, and ``describe hpa`` counting repeated events as ``(xN over ...)``.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import COMMAND_SECONDS, ControlPlaneProcess, Kubectl, start_control_plane

MINORS = (32, 33)
STARTED = 'podscale: simulated container "app" started (image "nginx:1.25")'
READY = 'podscale: container "app" is ready'
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - {{name: app, image: "nginx:1.25"{resources}}}
"""
HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: {name}}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 50}}}}
"""


@pytest.fixture(scope="module", params=MINORS, ids=[f"kubectl-1.{m}" for m in MINORS])
def minor(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture(scope="module")
def plane(
    minor: int, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ControlPlaneProcess]:
    started = start_control_plane(
        tmp_path_factory.mktemp(f"plane-{minor}"),
        minor=minor,
        workloads=True,
        extra=("--horizontal-pod-autoscaler-sync-period=1s",),
    )
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def kubectl(
    plane: ControlPlaneProcess, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Kubectl:
    home = tmp_path_factory.mktemp("home")
    workdir = tmp_path_factory.mktemp("manifests")
    return Kubectl(kubectl_binary, plane.kubeconfig, home, workdir)


def ready_pod(kubectl: Kubectl, name: str, *, requests: bool = True) -> str:
    resources = ", resources: {requests: {cpu: 100m}}" if requests else ""
    manifest = kubectl.write(f"{name}.yaml", DEPLOYMENT.format(name=name, resources=resources))
    kubectl.ok("apply", "-f", manifest)
    kubectl.ok("rollout", "status", f"deploy/{name}", "--timeout=20s")
    pods = kubectl.ok("get", "pods", "-l", f"app={name}", "-o", "name").split()
    assert len(pods) == 1
    return pods[0].removeprefix("pod/")


def test_logs_of_a_deployment_and_of_its_pod(kubectl: Kubectl) -> None:
    pod = ready_pod(kubectl, "logs-a")
    assert kubectl.ok("logs", "deploy/logs-a").splitlines() == [STARTED, READY]
    stamped = kubectl.ok("logs", pod, "--timestamps", "--tail=1").splitlines()
    assert len(stamped) == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z " + re.escape(READY), stamped[0])
    result = kubectl("logs", pod, "--previous")
    assert result.returncode != 0
    assert f'previous terminated container "app" in pod "{pod}" not found' in result.stderr


def test_follow_reads_lines_as_they_appear_and_returns_when_the_pod_is_deleted(
    kubectl: Kubectl,
) -> None:
    pod = ready_pod(kubectl, "logs-f")
    with subprocess.Popen(
        kubectl.argv("logs", "-f", pod),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=kubectl.env(),
    ) as follower:
        try:
            assert follower.stdout is not None
            assert follower.stdout.readline().rstrip("\n") == STARTED
            assert follower.stdout.readline().rstrip("\n") == READY
            kubectl.ok("delete", "pod", pod, "--wait=false")
            assert "received SIGTERM" in follower.stdout.readline()
            code = follower.wait(timeout=COMMAND_SECONDS)
            rest = follower.stdout.read()
        finally:
            follower.kill()
    assert code == 0
    assert rest.splitlines() == ['podscale: container "app" exited with code 0 (Completed)']


def test_previous_after_a_crash(kubectl: Kubectl) -> None:
    pod = ready_pod(kubectl, "logs-p")
    started = kubectl.ok(
        "get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].state.running.startedAt}"
    )
    finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    crash = (
        '[{"op": "replace", "path": "/status/containerStatuses/0/state", "value": '
        '{"terminated": {"exitCode": 137, "reason": "OOMKilled", '
        f'"startedAt": "{started}", "finishedAt": "{finished}"}}}}}},'
        ' {"op": "replace", "path": "/status/containerStatuses/0/ready", "value": false}]'
    )
    kubectl.ok("patch", "pod", pod, "--subresource=status", "--type=json", "-p", crash)
    deadline = time.monotonic() + COMMAND_SECONDS
    current = ""
    while time.monotonic() < deadline and "restart 1" not in current:
        time.sleep(0.2)
        current = kubectl("logs", pod).stdout
    assert current.splitlines()[0] == f"{STARTED}, restart 1"
    assert kubectl.ok("logs", pod, "--previous").splitlines() == [
        STARTED,
        READY,
        'podscale: container "app" exited with code 137 (OOMKilled)',
    ]


def test_exec_prints_that_the_pod_is_simulated_and_fails(
    kubectl: Kubectl, plane: ControlPlaneProcess
) -> None:
    pod = ready_pod(kubectl, "exec-x")
    result = kubectl("exec", pod, "--", "ls")
    assert result.returncode != 0
    assert (
        f"pod {pod} is simulated by podscale: container app has no process to exec into"
        in result.stderr
    )
    attach = kubectl("attach", pod)
    assert attach.returncode != 0
    assert "has no process to attach to" in attach.stderr


def test_describe_hpa_counts_repeated_events(kubectl: Kubectl) -> None:
    # No CPU request: every 1 s sync fails to compute utilization, with the same message.
    ready_pod(kubectl, "hpa-ev", requests=False)
    kubectl.ok("apply", "-f", kubectl.write("hpa-ev-hpa.yaml", HPA.format(name="hpa-ev")))
    deadline = time.monotonic() + COMMAND_SECONDS
    text = ""
    while time.monotonic() < deadline and not re.search(r"\(x[4-9] over", text):
        time.sleep(0.5)
        text = kubectl.ok("describe", "hpa", "hpa-ev")
    rows = [line for line in text.splitlines() if "FailedGetResourceMetric" in line]
    warnings = [line for line in rows if line.lstrip().startswith("Warning")]
    assert len(warnings) == 1, text
    assert re.search(r"\(x[4-9] over \d+s\)", warnings[0]), text


def test_no_websocket_warning_on_the_server_terminal(
    minor: int, kubectl_binary: str, tmp_path: Path
) -> None:
    # A plane of its own: reading the server's terminal means stopping it.
    plane = start_control_plane(tmp_path / "data", minor=minor, workloads=True)
    try:
        (tmp_path / "home").mkdir()
        kubectl = Kubectl(kubectl_binary, plane.kubeconfig, tmp_path / "home", tmp_path)
        pod = ready_pod(kubectl, "exec-w")
        assert kubectl("exec", pod, "--", "ls").returncode != 0
        assert kubectl("port-forward", f"pod/{pod}", "18080:80").returncode != 0
    finally:
        code, output = plane.stop()
    assert code == 0
    assert "Unsupported upgrade request" not in output
    assert "WebSocket" not in output
