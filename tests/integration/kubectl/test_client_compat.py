"""What client libraries and older kubectl read, against a real ``podscale up``.

One plane per kubectl minor (1.27, the oldest bundled, and the default 1.32), with the token
and the simulated nodes: kubernetes_asyncio's and the official client's generated models
(which refuse a Node whose ``nodeInfo`` lacks a required field), ``kubectl auth whoami|can-i``
(self reviews, which kubectl POSTs as protobuf), watch-list streaming, ``kubectl explain`` and
validated ``apply`` (kubectl 1.27 reads only the protobuf ``/openapi/v2``), and
events.k8s.io/v1 through kubectl and kubernetes_asyncio.
"""

from __future__ import annotations

import asyncio
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from podscale.apiserver.discovery import version_info

from .conftest import ControlPlaneProcess, Kubectl, find_kubectl, start_control_plane

JSON = dict[str, Any]
MINORS = [27, 32]


@pytest.fixture(scope="module", params=MINORS, ids=[f"kubectl-1.{m}" for m in MINORS])
def plane(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ControlPlaneProcess]:
    minor: int = request.param
    started = start_control_plane(
        tmp_path_factory.mktemp(f"plane{minor}") / "data", minor=minor, auth=True, workloads=True
    )
    try:
        yield started
    finally:
        started.stop(signal.SIGKILL)


@pytest.fixture
def kubectl(plane: ControlPlaneProcess, tmp_path: Path) -> Kubectl:
    binary = find_kubectl()
    if binary is None:
        pytest.skip("kubectl is not installed: the real-kubectl compatibility suite needs it")
    home = tmp_path / "home"
    home.mkdir()
    return Kubectl(binary, plane.kubeconfig, home, tmp_path)


def test_kubernetes_asyncio_lists_nodes(plane: ControlPlaneProcess) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client, config

    async def list_nodes() -> list[tuple[str, str]]:
        await config.load_kube_config(config_file=str(plane.kubeconfig))
        async with client.ApiClient() as api:
            # The simulated nodes register just after the server starts listening.
            for _ in range(100):
                nodes = await client.CoreV1Api(api).list_node()
                if nodes.items:
                    break
                await asyncio.sleep(0.1)
            return [(n.metadata.name, n.status.node_info.kubelet_version) for n in nodes.items]

    listed = asyncio.run(list_nodes())
    assert listed, "no simulated nodes registered"
    assert {version for _, version in listed} == {version_info()["gitVersion"]}


def test_auth_whoami(kubectl: Kubectl) -> None:
    out = kubectl.ok("auth", "whoami")
    assert out.split("\n")[0].split() == ["ATTRIBUTE", "VALUE"]
    assert "podscale-admin" in out
    assert "[system:masters system:authenticated]" in out


@pytest.mark.parametrize(
    "args",
    [("create", "deployments"), ("delete", "hpa", "-n", "kube-system"), ("get", "/healthz")],
    ids=["create-deployments", "delete-hpa-in-namespace", "non-resource-url"],
)
def test_auth_can_i(kubectl: Kubectl, args: tuple[str, ...]) -> None:
    assert kubectl.ok("auth", "can-i", *args).strip() == "yes"


def test_auth_can_i_list(kubectl: Kubectl) -> None:
    rows = [line.split() for line in kubectl.ok("auth", "can-i", "--list").splitlines()]
    assert rows[0] == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    assert ["*.*", "[]", "[]", "[*]"] in rows
    assert ["[*]", "[]", "[*]"] in rows


def test_watch_list_stream_over_https(plane: ControlPlaneProcess) -> None:
    """podscale's HTTP client asks for a watch-list stream: the nodes, then the end mark."""
    from podscale.api.kinds import kind_for
    from podscale.client.http import HttpApi
    from podscale.client.kubeconfig import connection_from_kubeconfig

    async def first_events() -> list[tuple[str, JSON]]:
        async with HttpApi(connection_from_kubeconfig(str(plane.kubeconfig))) as api:
            node = kind_for("v1", "Node")
            for _ in range(100):  # the simulated nodes register just after start-up
                if (await api.list(node)).get("items"):
                    break
                await asyncio.sleep(0.1)
            events: list[tuple[str, JSON]] = []
            async for event in api.watch(node, send_initial_events=True):
                events.append(event)
                if event[0] == "BOOKMARK":
                    return events
            return events

    events = asyncio.run(first_events())
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "BOOKMARK"
    assert set(kinds[:-1]) == {"ADDED"}
    assert len(kinds) > 1
    assert events[-1][1]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 1
{extra}  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: web, image: nginx:1.25}}]}}
"""


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("deployment.spec.replicas", ["KIND:       Deployment", "FIELD: replicas <integer>"]),
        ("hpa.spec", ["KIND:       HorizontalPodAutoscaler", "maxReplicas\t<integer> -required-"]),
    ],
    ids=["deployment-replicas", "hpa-spec"],
)
def test_explain_without_flags(kubectl: Kubectl, field: str, expected: list[str]) -> None:
    out = kubectl.ok("explain", field)
    for line in expected:
        assert line in out, out


def test_apply_validates_without_validate_false(kubectl: Kubectl) -> None:
    name = "validated"  # one plane per kubectl minor, so the name is free
    good = kubectl.write("good.yaml", DEPLOYMENT.format(name=name, extra=""))
    assert kubectl.ok("apply", "-f", good) == f"deployment.apps/{name} created\n"
    bogus = kubectl.write("bogus.yaml", DEPLOYMENT.format(name=name, extra="  bogus: 1\n"))
    refused = kubectl("apply", "-f", bogus)
    assert refused.returncode == 1
    # kubectl finds fieldValidation on the kind's PATCH in /openapi/v2 (1.27) or v3 (1.32)
    # and leaves the check to the server, which names the unknown field.
    assert 'strict decoding error: unknown field "spec.bogus"' in refused.stderr


NEW_EVENT = """\
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: poked.1}
eventTime: "2026-01-02T03:04:05.000000Z"
reportingController: example.com/poker
reportingInstance: poker-1
action: Poke
reason: Poked
type: Normal
note: poked the deployment
regarding: {apiVersion: apps/v1, kind: Deployment, name: web, namespace: default}
"""


def test_events_k8s_io_with_kubectl(kubectl: Kubectl) -> None:
    manifest = kubectl.write("event.yaml", NEW_EVENT)
    assert kubectl.ok("create", "-f", manifest) == "event.events.k8s.io/poked.1 created\n"
    rows = [
        re.split(r"\s{2,}", line.strip())
        for line in kubectl.ok("get", "events.v1.events.k8s.io", "poked.1").splitlines()
    ]
    assert rows[0] == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert rows[1][1:] == ["Normal", "Poked", "deployment/web", "poked the deployment"]
    # The same stored event through core/v1.
    assert kubectl.ok("get", "events", "poked.1", "-o", "jsonpath={.message}") == (
        "poked the deployment"
    )
    bad = kubectl.write(
        "bad.yaml", NEW_EVENT.replace("reportingController: example.com/poker\n", "")
    )
    refused = kubectl("create", "-f", bad)
    assert refused.returncode == 1
    assert "reportingController: Required value" in refused.stderr


def test_kubernetes_asyncio_events_v1(plane: ControlPlaneProcess) -> None:
    pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio import client, config

    async def create_and_list() -> list[str]:
        await config.load_kube_config(config_file=str(plane.kubeconfig))
        async with client.ApiClient() as api:
            events = client.EventsV1Api(api)
            body = client.EventsV1Event(
                metadata=client.V1ObjectMeta(name="asyncio.1"),
                event_time="2026-01-02T03:04:05.000000Z",
                reporting_controller="example.com/asyncio",
                reporting_instance="asyncio-1",
                action="Check",
                reason="Checked",
                type="Warning",
                note="checked from kubernetes_asyncio",
                regarding=client.V1ObjectReference(kind="Node", name="node-1"),
            )
            await events.create_namespaced_event("default", body)
            listed = await events.list_namespaced_event(
                "default", field_selector="metadata.name=asyncio.1"
            )
            return [item.note for item in listed.items]

    assert asyncio.run(create_and_list()) == ["checked from kubernetes_asyncio"]


def test_official_client_self_reviews(plane: ControlPlaneProcess) -> None:
    """The official client POSTs the reviews as JSON (kubectl sends protobuf)."""
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(plane.kubeconfig))
    try:
        review = client.AuthenticationV1Api(api).create_self_subject_review(
            client.V1SelfSubjectReview()
        )
        assert review.status.user_info.username == "podscale-admin"
        access = client.AuthorizationV1Api(api).create_self_subject_access_review(
            client.V1SelfSubjectAccessReview(
                spec=client.V1SelfSubjectAccessReviewSpec(
                    resource_attributes=client.V1ResourceAttributes(
                        verb="delete", group="apps", resource="deployments", namespace="default"
                    )
                )
            )
        )
        assert access.status.allowed is True
        nodes = client.CoreV1Api(api).list_node()
        assert all(n.status.node_info.boot_id for n in nodes.items)
    finally:
        api.close()
