"""Real ``kubectl top pods`` / ``top nodes`` against the API server's metrics.k8s.io/v1beta1.

``podscale up`` has no metrics provider yet, so each kubectl flavour gets an in-thread API
server (``start_in_thread``) built with a ``FixedUsageProvider`` (``metrics_provider``) over a
``MemoryStore``; its ``/version`` minor picks the dispatcher's bundled kubectl (conftest).
Pods and nodes are created through the HTTP API, then kubectl's printed NAME / CPU(cores) /
MEMORY(bytes) (and the nodes' % of ``status.allocatable``) columns are checked, as computed
by upstream's staging/src/k8s.io/kubectl/pkg/metricsutil/metrics_printer.go: CPU in
millicores, memory in whole Mi, a pod's usage summed over its containers. Debian's kubectl
1.20 joins when ``PODSCALE_KUBECTL_120`` names its binary (see test_kubectl_120).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from podscale.apiserver.discovery import version_info
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore

from .conftest import Kubectl, find_kubectl
from .metrics_provider import FixedUsageProvider, Usage

KUBECTL_120_ENV = "PODSCALE_KUBECTL_120"
TIMESTAMP = "2026-01-01T00:00:00Z"


@dataclass(frozen=True)
class Flavour:
    """One kubectl: a dispatcher-bundled minor, or Debian's 1.20 (``debian``)."""

    minor: int
    debian: bool = False

    @property
    def server_minor(self) -> int:
        """The ``/version`` minor to report: it makes the dispatcher run ``minor``."""
        return 32 if self.debian else self.minor

    @property
    def node_percent_columns(self) -> list[str]:
        # kubectl 1.32 renamed the node columns CPU% / MEMORY% to CPU(%) / MEMORY(%).
        if self.minor >= 32:
            return ["CPU(%)", "MEMORY(%)"]
        return ["CPU%", "MEMORY%"]


# 1.32 is the dispatcher's own build; 1.28 asks for aggregated discovery v2beta1 only;
# 1.20 speaks legacy discovery only (kubectl-wire.md §1, §9).
FLAVOURS = [Flavour(32), Flavour(33), Flavour(28), Flavour(20, debian=True)]

PODS: dict[tuple[str, str], dict[str, str]] = {
    ("default", "web-1"): {"app": "web"},
    ("default", "web-2"): {"app": "web"},
    ("default", "api-0"): {"app": "api"},
    ("default", "unmeasured"): {"app": "web"},  # stored, but the provider has no usage
    ("other", "db-0"): {"app": "db"},
    ("quiet", "lonely"): {"app": "lonely"},  # the only pod of its namespace, no usage
}
POD_USAGE = {
    ("default", "web-1"): (("web", Usage("250m", "64Mi")), ("side", Usage("5m", "1Mi"))),
    ("default", "web-2"): (("web", Usage("1500m", "2Gi")),),
    ("default", "api-0"): (("api", Usage("20m", "300Mi")),),
    ("other", "db-0"): (("db", Usage("100m", "128Mi")),),
    ("default", "ghost"): (("web", Usage("1", "1Gi")),),  # no such pod: never reported
}
NODES = {"node-a": ("4", "8Gi"), "node-b": ("2", "4Gi"), "node-c": ("8", "16Gi")}
NODE_USAGE = {"node-a": Usage("1", "2Gi"), "node-b": Usage("1500m", "3Gi")}  # node-c: none


def create_objects(url: str) -> None:
    with httpx.Client(base_url=url, timeout=10) as http:
        for namespace in sorted({namespace for namespace, _ in PODS} - {"default"}):
            body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
            created = http.post("/api/v1/namespaces", json=body)
            assert created.status_code == 201, created.text
        for (namespace, name), labels in PODS.items():
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "labels": labels},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            }
            created = http.post(f"/api/v1/namespaces/{namespace}/pods", json=pod)
            assert created.status_code == 201, created.text
        for name, (cpu, memory) in NODES.items():
            allocatable = {"cpu": cpu, "memory": memory}
            node = {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name},
                "status": {"capacity": allocatable, "allocatable": allocatable},
            }
            created = http.post("/api/v1/nodes", json=node)
            assert created.status_code == 201, created.text


def write_kubeconfig(path: Path, url: str) -> Path:
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: metrics\n  cluster:\n    server: {url}\n"
        "users:\n- name: anonymous\n  user: {}\n"
        "contexts:\n- name: metrics\n  context: {cluster: metrics, user: anonymous, "
        "namespace: default}\n"
        "current-context: metrics\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module", params=FLAVOURS, ids=[f"kubectl-1.{f.minor}" for f in FLAVOURS])
def flavour(request: pytest.FixtureRequest) -> Flavour:
    chosen: Flavour = request.param
    return chosen


@pytest.fixture(scope="module")
def binary(flavour: Flavour) -> str:
    if flavour.debian:
        path = os.environ.get(KUBECTL_120_ENV, "")
        if not path or not os.access(path, os.X_OK):
            pytest.skip(f"{KUBECTL_120_ENV} does not name Debian's kubectl 1.20 binary ({path!r})")
        return path
    found = find_kubectl()
    if found is None:
        pytest.skip("kubectl is not installed: the real-kubectl compatibility suite needs it")
    return found


@pytest.fixture(scope="module")
def kubectl(
    flavour: Flavour, binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubectl]:
    clock = SystemClock()
    store = MemoryStore(clock)
    provider = FixedUsageProvider(store, TIMESTAMP, POD_USAGE, NODE_USAGE)
    app = create_app(
        store,
        clock=clock,
        metrics_provider=provider,
        version_info=version_info(f"v1.{flavour.server_minor}.0"),
    )
    server = start_in_thread(app)
    try:
        create_objects(server.url)
        workdir = tmp_path_factory.mktemp("top")
        kubeconfig = write_kubeconfig(workdir / "kubeconfig", server.url)
        home = workdir / "home"
        home.mkdir()
        yield Kubectl(binary, kubeconfig, home, workdir)
    finally:
        server.stop()


def rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


def test_the_intended_kubectl_runs(kubectl: Kubectl, flavour: Flavour) -> None:
    out = kubectl.ok("version")
    expected = 'GitVersion:"v1.20.' if flavour.debian else f"Client Version: v1.{flavour.minor}."
    assert expected in out, out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("top", "pods"),
            [
                ["NAME", "CPU(cores)", "MEMORY(bytes)"],
                ["api-0", "20m", "300Mi"],
                ["web-1", "255m", "65Mi"],  # summed over both containers
                ["web-2", "1500m", "2048Mi"],
            ],
        ),
        (
            ("top", "pods", "web-2"),
            [["NAME", "CPU(cores)", "MEMORY(bytes)"], ["web-2", "1500m", "2048Mi"]],
        ),
        (
            ("top", "pods", "-l", "app=web"),
            [
                ["NAME", "CPU(cores)", "MEMORY(bytes)"],
                ["web-1", "255m", "65Mi"],
                ["web-2", "1500m", "2048Mi"],
            ],
        ),
        (
            ("top", "pods", "web-1", "--containers"),
            [
                ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"],
                ["web-1", "side", "5m", "1Mi"],
                ["web-1", "web", "250m", "64Mi"],
            ],
        ),
        (
            ("top", "pods", "-n", "other"),
            [["NAME", "CPU(cores)", "MEMORY(bytes)"], ["db-0", "100m", "128Mi"]],
        ),
        (
            ("top", "pods", "--all-namespaces"),
            [
                ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"],
                ["default", "api-0", "20m", "300Mi"],
                ["default", "web-1", "255m", "65Mi"],
                ["default", "web-2", "1500m", "2048Mi"],
                ["other", "db-0", "100m", "128Mi"],
            ],
        ),
    ],
    ids=["namespace", "by-name", "label-selector", "containers", "other-namespace", "all"],
)
def test_top_pods_prints_usage(
    kubectl: Kubectl, args: tuple[str, ...], expected: list[list[str]]
) -> None:
    printed = rows(kubectl.ok(*args))
    assert printed[0] == expected[0]
    # 1.20 prints in the server's order; newer kubectl sorts: compare rows as a set.
    assert sorted(printed[1:]) == sorted(expected[1:])


@pytest.mark.parametrize(
    ("args", "returncode", "stderr"),
    [
        (("top", "pods", "-n", "quiet"), 1, "error: metrics not available yet"),
        (("top", "pods", "-n", "empty"), 0, "No resources found in empty namespace."),
        (
            ("top", "pods", "unmeasured"),
            1,
            'Error from server (NotFound): pods.metrics.k8s.io "unmeasured" not found',
        ),
    ],
    ids=["pods-without-metrics", "no-pods", "unmeasured-pod-by-name"],
)
def test_top_pods_without_metrics(
    kubectl: Kubectl, args: tuple[str, ...], returncode: int, stderr: str
) -> None:
    result = kubectl(*args)
    assert (result.returncode, result.stderr.strip()) == (returncode, stderr), result.output
    assert result.stdout == ""


def test_top_nodes_prints_usage_against_allocatable(kubectl: Kubectl, flavour: Flavour) -> None:
    cpu_percent, memory_percent = flavour.node_percent_columns
    printed = rows(kubectl.ok("top", "nodes"))
    assert printed[0] == ["NAME", "CPU(cores)", cpu_percent, "MEMORY(bytes)", memory_percent]
    assert sorted(printed[1:]) == [
        ["node-a", "1000m", "25%", "2048Mi", "25%"],
        ["node-b", "1500m", "75%", "3072Mi", "75%"],
        ["node-c", "<unknown>", "<unknown>", "<unknown>", "<unknown>"],  # listed, no metrics
    ]
    one = rows(kubectl.ok("top", "nodes", "node-b"))
    assert one[1:] == [["node-b", "1500m", "75%", "3072Mi", "75%"]]


@pytest.mark.parametrize(
    ("path", "kind", "names"),
    [
        (
            "/apis/metrics.k8s.io/v1beta1/pods",
            "PodMetricsList",
            ["api-0", "web-1", "web-2", "db-0"],
        ),
        ("/apis/metrics.k8s.io/v1beta1/namespaces/other/pods", "PodMetricsList", ["db-0"]),
        ("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1", "PodMetrics", ["web-1"]),
        ("/apis/metrics.k8s.io/v1beta1/nodes", "NodeMetricsList", ["node-a", "node-b"]),
    ],
    ids=["all-pods", "namespace-pods", "one-pod", "nodes"],
)
def test_get_raw_prints_the_metrics_objects(
    kubectl: Kubectl, path: str, kind: str, names: list[str]
) -> None:
    body = json.loads(kubectl.ok("get", "--raw", path))
    assert (body["kind"], body["apiVersion"]) == (kind, "metrics.k8s.io/v1beta1")
    items = body["items"] if kind.endswith("List") else [body]
    assert [item["metadata"]["name"] for item in items] == names
    for item in items:
        assert (item["timestamp"], item["window"]) == (TIMESTAMP, "30s")
    if kind == "PodMetrics":
        assert body["metadata"]["labels"] == {"app": "web"}
        assert body["containers"] == [
            {"name": "web", "usage": {"cpu": "250m", "memory": "64Mi"}},
            {"name": "side", "usage": {"cpu": "5m", "memory": "1Mi"}},
        ]
