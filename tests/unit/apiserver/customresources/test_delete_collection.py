"""deletecollection through ``InProcessApi`` answers as the HTTP verb does, for a built-in
kind (ConfigMap) and a custom one (Widget): the same objects deleted, the same List reply."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.paths import resource_path

JSON = dict[str, Any]
CONFIGMAP = kind_for("v1", "ConfigMap")


def _configmap(name: str, app: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": app}},
        "data": {"k": "v"},
    }


def _widget(name: str, app: str) -> JSON:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"replicas": 1},
    }


KINDS = [
    pytest.param(("", "v1", "configmaps"), _configmap, "ConfigMapList", id="built-in"),
    pytest.param(("example.com", "v1", "widgets"), _widget, "WidgetList", id="custom"),
]
CASES = [
    pytest.param({"label_selector": "app=a"}, ["a1", "a2"], ["b1"], id="label-selector"),
    pytest.param({"field_selector": "metadata.name=b1"}, ["b1"], ["a1", "a2"], id="field-selector"),
    pytest.param({}, ["a1", "a2", "b1"], [], id="everything"),
    pytest.param({"dry_run": True}, ["a1", "a2", "b1"], ["a1", "a2", "b1"], id="dry-run"),
]


def _names(items: list[JSON]) -> list[str]:
    return sorted(str(item["metadata"]["name"]) for item in items)


def _http_params(options: JSON) -> dict[str, str]:
    names = {"label_selector": "labelSelector", "field_selector": "fieldSelector"}
    params = {names[k]: v for k, v in options.items() if k in names}
    if options.get("dry_run"):
        params["dryRun"] = "All"
    return params


@pytest.mark.parametrize(("resource", "build", "list_kind"), KINDS)
@pytest.mark.parametrize(("options", "deleted", "left"), CASES)
def test_delete_collection_matches_the_http_verb(
    api: InProcessApi,
    client: TestClient,
    resource: tuple[str, str, str],
    build: Callable[[str, str], JSON],
    list_kind: str,
    options: JSON,
    deleted: list[str],
    left: list[str],
) -> None:
    async def in_process() -> tuple[JSON, JSON]:
        kind = await api.resolve_kind(*resource)
        for name, app in (("a1", "a"), ("a2", "a"), ("b1", "b")):
            await api.create(kind, "default", build(name, app))
        reply = await api.delete_collection(kind, "default", **options)
        return reply, await api.list(kind, "default")

    reply, remaining = asyncio.run(in_process())
    assert (reply["kind"], reply["apiVersion"]) == (list_kind, remaining["apiVersion"])
    assert _names(reply["items"]) == deleted
    assert _names(remaining["items"]) == left

    group, version, plural = resource
    path = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    collection = f"{path}/namespaces/other/{plural}"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}}
    client.post("/api/v1/namespaces", json=namespace)
    for name, app in (("a1", "a"), ("a2", "a"), ("b1", "b")):
        assert client.post(collection, json=build(name, app)).status_code == 201
    http_reply = client.delete(collection, params=_http_params(options)).json()
    assert (http_reply["kind"], http_reply["apiVersion"]) == (reply["kind"], reply["apiVersion"])
    assert _names(http_reply["items"]) == _names(reply["items"])


def test_delete_collection_with_foreground_leaves_marked_objects(api: InProcessApi) -> None:
    async def main() -> JSON:
        kind = await api.resolve_kind("example.com", "v1", "widgets")
        await api.create(kind, "default", _widget("w", "a"))
        await api.delete_collection(kind, "default", propagation="Foreground")
        return await api.get(kind, "default", "w")

    marked = asyncio.run(main())
    assert marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert marked["metadata"]["deletionTimestamp"]


@pytest.mark.parametrize(
    ("namespace", "options", "code"),
    [
        pytest.param(None, {}, 405, id="all-namespaces"),
        pytest.param("default", {"propagation": "Sideways"}, 422, id="bad-policy"),
        pytest.param("default", {"label_selector": "app in"}, 400, id="bad-selector"),
    ],
)
def test_delete_collection_refusals(
    api: InProcessApi, namespace: str | None, options: JSON, code: int
) -> None:
    async def main() -> None:
        await api.delete_collection(CONFIGMAP, namespace, **options)

    with pytest.raises(ApiError) as refused:
        asyncio.run(main())
    assert refused.value.status == code


def test_delete_collection_of_a_kind_without_the_verb_is_405(api: InProcessApi) -> None:
    namespaces = kind_for("v1", "Namespace")
    with pytest.raises(ApiError) as refused:
        asyncio.run(api.delete_collection(namespaces, None))
    assert refused.value.status == 405


def test_delete_collection_of_a_custom_kind_whose_crd_is_gone_is_404(
    api: InProcessApi, client: TestClient
) -> None:
    async def kind() -> KindInfo:
        return await api.resolve_kind("example.com", "v1", "widgets")

    widgets = asyncio.run(kind())
    crd = resource_path(kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition"), None)
    assert client.delete(f"{crd}/widgets.example.com").status_code == 200
    with pytest.raises(ApiError) as gone:
        asyncio.run(api.delete_collection(widgets, "default"))
    assert gone.value.status == 404


def test_http_client_delete_collection(api: InProcessApi) -> None:
    """``HttpApi.delete_collection`` sends the selectors and the policy the server reads."""
    app = api.state

    async def main() -> tuple[JSON, JSON]:
        server = create_app(app.store, clock=app.clock)
        transport = httpx.ASGITransport(app=server)
        async with HttpApi(Connection("http://podscale"), transport=transport) as http:
            kind = await api.resolve_kind("example.com", "v1", "widgets")
            for name, app_label in (("a1", "a"), ("b1", "b")):
                await api.create(kind, "default", _widget(name, app_label))
            reply = await http.delete_collection(
                kind, "default", label_selector="app=b", propagation="Orphan"
            )
            return reply, await api.get(kind, "default", "b1")

    reply, held = asyncio.run(main())
    assert _names(reply["items"]) == ["b1"]
    assert held["metadata"]["finalizers"] == ["orphan"]
