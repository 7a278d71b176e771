"""Custom resources through the in-process API (what controllers use), and across restarts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CRD_RESOURCE, CustomKind
from podscale.apiserver.http.app import create_app
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.sqlite import SqliteStore

JSON = dict[str, Any]


def test_resolve_kind_finds_custom_and_built_in_kinds(api: InProcessApi) -> None:
    async def main() -> tuple[KindInfo, KindInfo]:
        custom = await api.resolve_kind("example.com", "v1", "widgets")
        built_in = await api.resolve_kind("apps", "v1", "deployments")
        with pytest.raises(ApiError) as missing:
            await api.resolve_kind("example.com", "v1", "gadgets")
        assert missing.value.status == 404
        return custom, built_in

    custom, built_in = asyncio.run(main())
    assert isinstance(custom, CustomKind)
    assert (custom.kind, custom.namespaced) == ("Widget", True)
    assert built_in.kind == "Deployment"


def test_every_verb_in_process(api: InProcessApi, widget_factory: Callable[..., JSON]) -> None:
    async def main() -> None:
        kind = await api.resolve_kind("example.com", "v1", "widgets")
        created = await api.create(kind, "default", widget_factory())
        assert created["metadata"]["generation"] == 1
        listed = await api.list(kind, "default", label_selector="app=w1")
        assert [i["metadata"]["name"] for i in listed["items"]] == ["w1"]
        patched = await api.patch(kind, "default", "w1", {"spec": {"size": "small"}})
        assert patched["metadata"]["generation"] == 2
        json_patched = await api.patch(
            kind,
            "default",
            "w1",
            [{"op": "replace", "path": "/spec/size", "value": "tiny"}],
            content_type="application/json-patch+json",
        )
        assert json_patched["spec"]["size"] == "tiny"
        with pytest.raises(ApiError) as strategic:
            await api.patch(
                kind,
                "default",
                "w1",
                {"spec": {"size": "x"}},
                content_type="application/strategic-merge-patch+json",
            )
        assert strategic.value.status == 415
        status = dict(json_patched, status={"replicas": 4, "selector": "app=w1"})
        await api.update(kind, "default", status, subresource="status")
        scale = await api.get(kind, "default", "w1", subresource="scale")
        assert scale["status"] == {"replicas": 4, "selector": "app=w1"}
        await api.patch(kind, "default", "w1", {"spec": {"replicas": 6}}, subresource="scale")
        assert (await api.get(kind, "default", "w1"))["spec"]["replicas"] == 6
        await api.delete(kind, "default", "w1")
        with pytest.raises(ApiError) as gone:
            await api.get(kind, "default", "w1")
        assert gone.value.status == 404

    asyncio.run(main())


def test_watch_in_process(api: InProcessApi, widget_factory: Callable[..., JSON]) -> None:
    async def main() -> list[tuple[str, str]]:
        kind = await api.resolve_kind("example.com", "v1beta1", "widgets")
        await api.create(kind, "default", widget_factory(version="v1beta1"))
        seen: list[tuple[str, str]] = []
        async for event_type, obj in api.watch(kind, "default", timeout_seconds=1):
            if event_type == "BOOKMARK":
                continue
            seen.append((event_type, obj["apiVersion"]))
            break
        return seen

    assert asyncio.run(main()) == [("ADDED", "example.com/v1beta1")]


def test_a_stale_kind_is_resolved_again(
    api: InProcessApi, widget_factory: Callable[..., JSON]
) -> None:
    """A controller's kind without the CRD's details still reaches the custom resource."""
    plain = KindInfo(
        group="example.com",
        version="v1",
        kind="Widget",
        plural="widgets",
        singular="widget",
        short_names=(),
        namespaced=True,
        verbs=("create", "get"),
        subresources=(),
        categories=(),
        list_kind="WidgetList",
    )

    async def main() -> JSON:
        await api.create(plain, "default", widget_factory())
        return await api.get(plain, "default", "w1")

    assert asyncio.run(main())["apiVersion"] == "example.com/v1"


def test_custom_resources_survive_a_restart(
    tmp_path: Path, crd_factory: Callable[..., JSON], widget_factory: Callable[..., JSON]
) -> None:
    from datetime import UTC, datetime

    class Clock:
        def now(self) -> datetime:
            return datetime(2026, 1, 2, tzinfo=UTC)

    path = tmp_path / "store.db"
    first = SqliteStore(path, Clock())
    first.create(CRD_RESOURCE, crd_factory())
    with TestClient(create_app(first, clock=Clock())) as client:
        url = "/apis/example.com/v1/namespaces/default/widgets"
        assert client.post(url, json=widget_factory()).status_code == 201
    first.close()
    second = SqliteStore(path, Clock())
    try:
        with TestClient(create_app(second, clock=Clock())) as client:
            got = client.get("/apis/example.com/v1/namespaces/default/widgets/w1")
            assert got.status_code == 200
            assert got.json()["spec"]["size"] == "big"
    finally:
        second.close()


def test_an_unprefixed_finalizer_is_valid_on_a_custom_resource(
    api: InProcessApi, widget_factory: Callable[..., JSON]
) -> None:
    # apiextensions validates a custom resource's metadata with apimachinery's generic rules
    # only (a qualified name): KEDA's "finalizer.keda.sh" is accepted, on create and update.
    # The built-in kinds add the standard-or-fully-qualified rule, which refuses it.
    async def main() -> tuple[JSON, JSON, ApiError]:
        kind = await api.resolve_kind("example.com", "v1", "widgets")
        widget = widget_factory()
        widget["metadata"]["finalizers"] = ["finalizer.keda.sh"]
        created = await api.create(kind, "default", widget)
        patch = {"metadata": {"finalizers": ["finalizer.keda.sh", "example.com/other"]}}
        updated = await api.patch(
            kind, "default", "w1", patch, content_type="application/merge-patch+json"
        )
        pods = await api.resolve_kind("", "v1", "pods")
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "finalizers": ["finalizer.keda.sh"]},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
        }
        with pytest.raises(ApiError) as refused:
            await api.create(pods, "default", pod)
        return created, updated, refused.value

    created, updated, refused = asyncio.run(main())
    assert created["metadata"]["finalizers"] == ["finalizer.keda.sh"]
    assert updated["metadata"]["finalizers"] == ["finalizer.keda.sh", "example.com/other"]
    assert refused.status == 422
    assert "name is neither a standard finalizer name nor is it fully qualified" in str(refused)
