"""``kubectl delete node`` against a real ``podscale up`` process: the process stays up
through its kubelets' next heartbeats (it used to exit with 'the controllers stopped: nodes
"node-2" not found'), says once that the node is gone, does not re-register it, and
``/readyz?verbose`` lists every supervised component as ok while ``/livez`` stays ok.
The heartbeat is shortened to 1 s (hidden ``--node-status-report-frequency``) so the
heartbeats that used to fail come within seconds."""

from __future__ import annotations

import time
from pathlib import Path

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

GONE = "node node-2 not found"


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def test_deleting_a_node_leaves_the_process_up_and_ready(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(
        tmp_path / "data", workloads=True, extra=("--node-status-report-frequency=1s",)
    )
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    assert _wait_for(lambda: kubectl("get", "node", "node-2").returncode == 0, 20)
    kubectl.ok("delete", "node", "node-2")

    # Several heartbeats later: still serving, and the loss said once.
    output: list[str] = []
    deadline = time.monotonic() + 20
    while not any(GONE in line for line in output):
        line = plane.reader.next(deadline)
        assert line is not None, "no word of the lost node:\n" + "".join(output)
        output.append(line)
    time.sleep(3)  # three more heartbeats at 1 s
    assert plane.process.poll() is None, plane.stop()[1]

    nodes = kubectl.ok("get", "nodes", "-o", "name").split()
    assert nodes == ["node/node-1", "node/node-3"]  # the kubelet does not re-register
    readyz = kubectl.ok("get", "--raw", "/readyz?verbose")
    assert readyz.startswith("[+]ping ok\n")
    assert "[+]simulated/node-heartbeats ok\n" in readyz
    assert "[+]controller/podgc ok\n" in readyz
    assert "[+]informer/nodes ok\n" in readyz
    assert readyz.endswith("readyz check passed\n")
    assert "[-]" not in readyz
    assert kubectl.ok("get", "--raw", "/livez") == "ok"
    metrics = kubectl.ok("get", "--raw", "/metrics")
    assert (
        'podscale_supervised_component_failures_total{component="simulated/node-heartbeats"} 0'
        in metrics
    )

    code, rest = plane.stop()
    assert code == 0, rest
    said = [line for line in output + rest.splitlines() if GONE in line]
    assert len(said) == 1, said
