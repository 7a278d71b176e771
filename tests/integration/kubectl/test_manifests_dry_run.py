"""``deploy/podscale.yaml`` (``podscale manifests``) through the real kubectl.

Every document decodes as kubectl's own types (``kubectl label --local``, no server). The
kinds ``podscale up`` serves (CRDs, Namespace, ServiceAccount, Service, Deployment) pass
``kubectl apply --dry-run=client`` (validated against podscale's OpenAPI) and
``--dry-run=server`` (podscale's validation and admission, nothing stored). podscale does
not serve RBAC (ClusterRole, ClusterRoleBinding, Role, RoleBinding) nor
apiregistration.k8s.io's APIService: kubectl finds no mapping for those on it, which the
test checks too, so a kind served later makes it fail and join the dry runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

ROOT = Path(__file__).resolve().parents[3]
MANIFESTS = ROOT / "deploy" / "podscale.yaml"
UNSERVED = {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "APIService"}


def documents() -> list[dict[str, object]]:
    return [doc for doc in yaml.safe_load_all(MANIFESTS.read_text(encoding="utf-8")) if doc]


def split(tmp_path: Path) -> tuple[Path, Path]:
    served = [doc for doc in documents() if doc["kind"] not in UNSERVED]
    unserved = [doc for doc in documents() if doc["kind"] in UNSERVED]
    paths = (tmp_path / "served.yaml", tmp_path / "unserved.yaml")
    for path, docs in zip(paths, (served, unserved), strict=True):
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return paths


def names(output: str) -> list[str]:
    return sorted(line.split()[0] for line in output.splitlines() if line.strip())


def expected_names(kinds: set[str] | None = None) -> list[str]:
    result = []
    for doc in documents():
        if kinds is not None and doc["kind"] not in kinds:
            continue
        group = str(doc["apiVersion"]).rpartition("/")[0]
        kind = str(doc["kind"]).lower()
        meta = doc["metadata"]
        assert isinstance(meta, dict)
        result.append(f"{kind}.{group}/{meta['name']}" if group else f"{kind}/{meta['name']}")
    return sorted(result)


def test_every_document_decodes_as_kubectl_types(
    kubectl_binary: str, private_home: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "kubeconfig"
    empty.write_text("apiVersion: v1\nkind: Config\n", encoding="utf-8")
    kubectl = Kubectl(kubectl_binary, empty, private_home, tmp_path)
    output = kubectl.ok("label", "--local", "-f", str(MANIFESTS), "checked=yes", "-o", "name")
    assert names(output) == expected_names()


@pytest.fixture
def plane(tmp_path: Path, control_plane_factory: list[ControlPlaneProcess]) -> ControlPlaneProcess:
    started = start_control_plane(tmp_path / "data")
    control_plane_factory.append(started)
    return started


def test_the_served_kinds_pass_client_and_server_dry_runs(
    kubectl_binary: str, private_home: Path, tmp_path: Path, plane: ControlPlaneProcess
) -> None:
    kubectl = Kubectl(kubectl_binary, plane.kubeconfig, private_home, tmp_path)
    served, unserved = split(tmp_path)
    served_kinds = {str(doc["kind"]) for doc in documents()} - UNSERVED
    output = kubectl.ok("apply", "--dry-run=client", "-f", str(served), "-o", "name")
    assert names(output) == expected_names(served_kinds)
    # As on kube-apiserver, a dry run into a namespace that does not exist is NotFound
    # (namespace lifecycle admission): the namespace is created first, for real.
    kubectl.ok("create", "namespace", "podscale-system")
    output = kubectl.ok("apply", "--dry-run=server", "-f", str(served), "-o", "name")
    assert names(output) == expected_names(served_kinds)
    # The server dry run stored nothing.
    missing = kubectl("get", "deployment", "podscale-controller-manager", "-n", "podscale-system")
    assert missing.returncode != 0
    assert 'deployments.apps "podscale-controller-manager" not found' in missing.output
    refused = kubectl("apply", "--dry-run=client", "-f", str(unserved))
    assert refused.returncode != 0
    for kind in ("ClusterRole", "APIService"):
        assert f'no matches for kind "{kind}"' in refused.output
