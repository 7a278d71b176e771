"""pods/binding over a real uvicorn server on 127.0.0.1:0: ``HttpApi`` and the official client.

A scheduler talking HTTP binds with ``create(POD, ns, binding, subresource="binding")`` exactly
as it does in-process; an HTTP watcher sees the bound pod as MODIFIED; the official Python
client's ``create_namespaced_pod_binding`` gets upstream's 201 Success ``Status`` (which that
client cannot deserialise as the ``V1Binding`` it declares, so real schedulers written with it
pass ``_preload_content=False``, as here) and upstream's 409 for a pod already bound.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import Connection
from podscale.store import MemoryStore, SystemClock

JSON = dict[str, Any]
NS = "default"
POD = kind_for("v1", "Pod")
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
WAIT_SECONDS = 10.0


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    clock = SystemClock()
    running = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        yield running
    finally:
        running.stop()


def make_pod(name: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def make_binding(name: str, node: str, **meta: Any) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": name, **meta},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


def test_http_api_binds_like_the_in_process_client(server: RunningServer) -> None:
    async def scenario() -> tuple[JSON, JSON, ApiError]:
        async with HttpApi(Connection(server=server.url)) as api:
            created = await api.create(POD, NS, make_pod("web-1"))
            uid = created["metadata"]["uid"]
            reply = await api.create(
                POD, NS, make_binding("web-1", "node-a", uid=uid), subresource="binding"
            )
            bound = await api.get(POD, NS, "web-1")
            with pytest.raises(ApiError) as again:
                await api.create(POD, NS, make_binding("web-1", "node-b"), subresource="binding")
            return reply, bound, again.value

    reply, bound, again = asyncio.run(asyncio.wait_for(scenario(), WAIT_SECONDS))
    assert reply == SUCCESS
    assert bound["spec"]["nodeName"] == "node-a"
    assert [(c["type"], c["status"]) for c in bound["status"]["conditions"]] == [
        ("PodScheduled", "True")
    ]
    assert (again.status, again.reason) == (409, "Conflict")
    assert str(again) == (
        'Operation cannot be fulfilled on pods/binding "web-1": '
        'pod web-1 is already assigned to node "node-a"'
    )


def test_http_watcher_sees_the_binding_as_modified(server: RunningServer) -> None:
    async def scenario() -> tuple[str, str]:
        async with HttpApi(Connection(server=server.url)) as api:
            created = await api.create(POD, NS, make_pod("web-2"))
            await api.create(POD, NS, make_binding("web-2", "node-c"), subresource="binding")
            # A watch from the pod's creation delivers every later change: the binding's write.
            events = api.watch(
                POD,
                NS,
                resource_version=created["metadata"]["resourceVersion"],
                field_selector="metadata.name=web-2",
            )
            async for event_type, obj in events:
                if event_type != "BOOKMARK":
                    await events.aclose()
                    return event_type, obj["spec"]["nodeName"]
            raise AssertionError("the watch ended without an event")

    assert asyncio.run(asyncio.wait_for(scenario(), WAIT_SECONDS)) == ("MODIFIED", "node-c")


def test_http_api_reports_a_missing_pod(server: RunningServer) -> None:
    async def scenario() -> ApiError:
        async with HttpApi(Connection(server=server.url)) as api:
            with pytest.raises(ApiError) as caught:
                await api.create(POD, NS, make_binding("ghost", "n"), subresource="binding")
            return caught.value

    err = asyncio.run(asyncio.wait_for(scenario(), WAIT_SECONDS))
    assert (err.status, err.reason, str(err)) == (404, "NotFound", 'pods "ghost" not found')


@pytest.fixture(scope="module")
def core(server: RunningServer) -> Iterator[k8s.CoreV1Api]:
    configuration = k8s.Configuration()
    configuration.host = server.url
    with k8s.ApiClient(configuration) as api:
        yield k8s.CoreV1Api(api)


def test_official_client_binds_a_pod(core: k8s.CoreV1Api) -> None:
    core.create_namespaced_pod(NS, make_pod("web-3"))
    body = k8s.V1Binding(
        metadata=k8s.V1ObjectMeta(name="web-3", annotations={"scheduled-by": "test"}),
        target=k8s.V1ObjectReference(kind="Node", name="node-d"),
    )
    response = core.create_namespaced_pod_binding("web-3", NS, body, _preload_content=False)
    assert response.status == 201
    assert json.loads(response.data) == SUCCESS
    pod = core.read_namespaced_pod("web-3", NS)
    assert pod.spec.node_name == "node-d"
    assert pod.metadata.annotations == {"scheduled-by": "test"}
    assert [(c.type, c.status) for c in pod.status.conditions] == [("PodScheduled", "True")]


def test_official_client_gets_upstreams_conflict(core: k8s.CoreV1Api) -> None:
    core.create_namespaced_pod(NS, make_pod("web-4"))
    first = make_binding("web-4", "node-e")
    core.create_namespaced_pod_binding("web-4", NS, first, _preload_content=False)
    with pytest.raises(ApiException) as caught:
        core.create_namespaced_pod_binding("web-4", NS, make_binding("web-4", "node-f"))
    assert caught.value.status == 409
    assert json.loads(caught.value.body)["message"] == (
        'Operation cannot be fulfilled on pods/binding "web-4": '
        'pod web-4 is already assigned to node "node-e"'
    )
