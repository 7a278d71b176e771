"""``podscale up`` as a real process: authentication as kubectl sees it, clean shutdown on
SIGTERM and Ctrl-C, data kept across restarts, and a smoke run of every other bundled minor.
"""

from __future__ import annotations

import json
import signal
import ssl
from pathlib import Path

import httpx
import pytest
import yaml

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

RS = """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: smoke}
spec:
  replicas: 1
  selector: {matchLabels: {app: smoke}}
  template:
    metadata: {labels: {app: smoke}}
    spec: {containers: [{name: web, image: nginx:1.25}]}
"""


def _server(kubeconfig: Path) -> str:
    config = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))
    return str(config["clusters"][0]["cluster"]["server"])


def test_kubectl_authenticates_over_tls_and_bad_tokens_are_refused(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
) -> None:
    plane = start_control_plane(tmp_path / "data", auth=True)
    control_plane_factory.append(plane)
    token = (tmp_path / "data" / "token").read_text(encoding="utf-8").strip()
    url = _server(plane.kubeconfig)
    assert url.startswith("https://127.0.0.1:")
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    # The generated kubeconfig carries the token and the CA: kubectl just works.
    allowed = kubectl("get", "rs")
    assert allowed.returncode == 0, allowed.stderr
    assert "No resources found" in allowed.stdout + allowed.stderr
    # A wrong token is refused.
    refused = kubectl("--token", "wrong-token", "get", "rs")
    assert refused.returncode == 1
    assert "error: You must be logged in to the server" in refused.stderr
    # The server verifies against podscale's CA, not an insecure skip.
    ca = tmp_path / "data" / "tls" / "ca.crt"
    with httpx.Client(base_url=url, verify=ssl.create_default_context(cafile=ca)) as client:
        wrong = client.get("/apis/apps/v1/replicasets", headers={"Authorization": "Bearer x"})
        assert (wrong.status_code, wrong.json()["message"]) == (401, "Unauthorized")
        # (kubectl without any credentials prompts for a username instead of sending none)
        assert client.get("/apis/apps/v1/replicasets").status_code == 401
        right = client.get(
            "/apis/apps/v1/replicasets", headers={"Authorization": f"Bearer {token}"}
        )
        assert right.status_code == 200
    code, rest = plane.stop()
    assert code == 0
    assert token not in "\n".join(plane.announced) + rest


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_stops_cleanly_and_keeps_objects_across_restarts(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
    stop_signal: signal.Signals,
) -> None:
    data_dir = tmp_path / "data"
    first = start_control_plane(data_dir)
    control_plane_factory.append(first)
    assert f"  export KUBECONFIG={data_dir / 'kubeconfig'}" in first.announced
    kubectl = Kubectl(kubectl_binary, first.kubeconfig, private_home, tmp_path)
    kubectl.ok("create", "-f", kubectl.write("rs.yaml", RS))
    code, rest = first.stop(stop_signal)
    assert code == 0, rest
    assert f"podscale control plane stopped ({stop_signal.name})." in rest

    second = start_control_plane(data_dir)
    control_plane_factory.append(second)
    assert second.kubeconfig == first.kubeconfig  # rewritten with the new port
    rows = kubectl.ok("get", "rs").splitlines()
    assert rows[1].split()[:2] == ["smoke", "1"]


@pytest.mark.parametrize(
    "minor", [27, 28, 30, 31], ids=[f"kubectl-1.{m}" for m in (27, 28, 30, 31)]
)
def test_other_bundled_minors_smoke(
    kubectl_binary: str,
    tmp_path: Path,
    private_home: Path,
    control_plane_factory: list[ControlPlaneProcess],
    minor: int,
) -> None:
    plane = start_control_plane(tmp_path / "data", minor=minor)
    control_plane_factory.append(plane)
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    versions = json.loads(kubectl.ok("version", "-o", "json"))
    assert versions["clientVersion"]["minor"] == str(minor)
    assert versions["serverVersion"]["gitVersion"] == f"v1.{minor}.0"
    manifest = kubectl.write("rs.yaml", RS)
    # kubectl <= 1.28 reads the protobuf /openapi/v2 to validate: no --validate=false needed.
    assert kubectl.ok("create", "-f", manifest) == "replicaset.apps/smoke created\n"
    assert kubectl.ok("get", "rs").splitlines()[1].split()[:2] == ["smoke", "1"]
    assert kubectl.ok("scale", "rs", "smoke", "--replicas=2") == "replicaset.apps/smoke scaled\n"
    assert "Replicas:     0 current / 2 desired" in kubectl.ok("describe", "rs", "smoke")
    autoscaled = kubectl.ok("autoscale", "rs", "smoke", "--max=3")
    assert autoscaled == "horizontalpodautoscaler.autoscaling/smoke autoscaled\n"
    assert "cpu: <unknown>/80%" in kubectl.ok("get", "hpa", "smoke")
    assert kubectl.ok("delete", "rs", "smoke") == 'replicaset.apps "smoke" deleted\n'
