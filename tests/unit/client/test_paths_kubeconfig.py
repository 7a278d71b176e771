"""REST paths from the kind registry, and connections loaded from kubeconfig files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from podscale.api.kinds import kind_for
from podscale.client.kubeconfig import connection_from_kubeconfig
from podscale.client.paths import resource_path

POD = kind_for("v1", "Pod")
RS = kind_for("apps/v1", "ReplicaSet")
NODE = kind_for("v1", "Node")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ((POD, "default"), "/api/v1/namespaces/default/pods"),
        ((POD, None), "/api/v1/pods"),
        ((POD, "default", "web"), "/api/v1/namespaces/default/pods/web"),
        ((RS, "ns", "web", "scale"), "/apis/apps/v1/namespaces/ns/replicasets/web/scale"),
        ((NODE, "ignored", "n1"), "/api/v1/nodes/n1"),
        (
            (HPA, "default", "web", "status"),
            "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web/status",
        ),
    ],
    ids=["collection", "all-namespaces", "object", "subresource", "cluster-scoped", "hpa-status"],
)
def test_resource_path(args: tuple, path: str) -> None:  # type: ignore[type-arg]
    assert resource_path(*args) == path


def test_subresource_needs_a_name() -> None:
    with pytest.raises(ValueError, match="needs an object name"):
        resource_path(RS, "default", None, "scale")


def write(path: Path, user: dict, cluster: dict) -> Path:  # type: ignore[type-arg]
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": user}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return path


def test_token_kubeconfig(tmp_path: Path) -> None:
    path = write(tmp_path / "kc", {"token": "abc"}, {"server": "http://127.0.0.1:6443/"})
    connection = connection_from_kubeconfig(str(path))
    assert connection.server == "http://127.0.0.1:6443"
    assert connection.authorization == "Bearer abc"


def test_tls_settings_are_carried(tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    path = write(
        tmp_path / "kc",
        {"token": "t"},
        {"server": "https://127.0.0.1:6443", "certificate-authority": str(ca)},
    )
    connection = connection_from_kubeconfig(str(path))
    assert connection.verify is True
    assert connection.ca_file == str(ca)
    insecure = write(
        tmp_path / "kc2",
        {"token": "t"},
        {"server": "https://h:1", "insecure-skip-tls-verify": True},
    )
    assert connection_from_kubeconfig(str(insecure)).verify is False
