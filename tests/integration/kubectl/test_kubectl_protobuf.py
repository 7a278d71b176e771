"""kubectl 1.32 and 1.33 send the objects of their generators as protobuf: they work.

``create namespace``, ``create deployment`` and ``autoscale`` POST protobuf only (no JSON
fallback); ``run`` sends JSON but is part of the same everyday set. The objects must read
back as upstream stores them (defaulted like a JSON create).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .conftest import ControlPlaneProcess, Kubectl, start_control_plane

MINORS = (32, 33)


@pytest.fixture(scope="module", params=MINORS, ids=[f"kubectl-1.{m}" for m in MINORS])
def kubectl(
    request: pytest.FixtureRequest, kubectl_binary: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubectl]:
    minor = int(request.param)
    plane: ControlPlaneProcess = start_control_plane(
        tmp_path_factory.mktemp(f"plane-{minor}"), minor=minor
    )
    try:
        yield Kubectl(
            kubectl_binary,
            plane.kubeconfig,
            tmp_path_factory.mktemp("home"),
            tmp_path_factory.mktemp("work"),
        )
    finally:
        plane.stop()


def _get(kubectl: Kubectl, *args: str) -> dict[str, object]:
    value = json.loads(kubectl.ok("get", *args, "-o", "json"))
    assert isinstance(value, dict)
    return value


def test_create_namespace(kubectl: Kubectl) -> None:
    assert kubectl.ok("create", "namespace", "team-a").strip() == "namespace/team-a created"
    namespace = _get(kubectl, "namespace", "team-a")
    assert namespace["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}  # type: ignore[index]
    assert namespace["status"] == {"phase": "Active"}


def test_create_deployment(kubectl: Kubectl) -> None:
    out = kubectl.ok("create", "deployment", "x", "--image=nginx")
    assert out.strip() == "deployment.apps/x created"
    spec = _get(kubectl, "deployment", "x")["spec"]
    assert spec == {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "x"}},
        "template": {
            "metadata": {"labels": {"app": "x"}},
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx",
                        "imagePullPolicy": "Always",
                        "resources": {},
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst",
                "securityContext": {},
                "schedulerName": "default-scheduler",
            },
        },
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
        },
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    }


def test_run(kubectl: Kubectl) -> None:
    assert kubectl.ok("run", "p", "--image=nginx").strip() == "pod/p created"
    pod = _get(kubectl, "pod", "p")
    assert pod["metadata"]["labels"] == {"run": "p"}  # type: ignore[index]
    assert pod["spec"]["containers"][0]["name"] == "p"  # type: ignore[index]


def test_autoscale_the_created_deployment(kubectl: Kubectl) -> None:
    kubectl.ok("create", "deployment", "web", "--image=nginx")
    out = kubectl.ok("autoscale", "deployment", "web", "--max=4", "--cpu-percent=70")
    assert out.strip() == "horizontalpodautoscaler.autoscaling/web autoscaled"
    spec = _get(kubectl, "hpa", "web")["spec"]
    assert spec["maxReplicas"] == 4  # type: ignore[index]
    assert spec["minReplicas"] == 1  # type: ignore[index]


@pytest.mark.parametrize(
    ("args", "expected", "check"),
    [
        (
            ("configmap", "settings", "--from-literal=mode=fast"),
            "configmap/settings created",
            ("configmap", "settings", "data", {"mode": "fast"}),
        ),
        (
            ("secret", "generic", "creds", "--from-literal=token=s3cr3t"),
            "secret/creds created",
            ("secret", "creds", "data", {"token": "czNjcjN0"}),
        ),
        (
            ("service", "clusterip", "front", "--tcp=80:8080"),
            "service/front created",
            ("service", "front", "spec.ports", None),
        ),
        (
            ("serviceaccount", "robot"),
            "serviceaccount/robot created",
            ("serviceaccount", "robot", "kind", "ServiceAccount"),
        ),
        (
            ("poddisruptionbudget", "front-pdb", "--selector=app=front", "--min-available=1"),
            "poddisruptionbudget.policy/front-pdb created",
            ("pdb", "front-pdb", "spec.minAvailable", 1),
        ),
    ],
    ids=["configmap", "secret", "service", "serviceaccount", "pdb"],
)
def test_create_the_kinds_of_an_application(
    kubectl: Kubectl, args: tuple[str, ...], expected: str, check: tuple[str, str, str, object]
) -> None:
    assert kubectl.ok("create", *args).strip() == expected
    kind, name, path, value = check
    found: object = _get(kubectl, kind, name)
    for part in path.split("."):
        assert isinstance(found, dict)
        found = found[part]
    if value is None:  # the service: port and targetPort as the generator set them
        assert found == [{"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080}]
    else:
        assert found == value
