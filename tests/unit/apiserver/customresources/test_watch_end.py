"""Open watches on a custom resource end when its CRD is deleted, over HTTP and in-process:
the deletions of the custom resources (the CRD's finalizer removes them) arrive first, then
the stream finishes, and a new watch or list gets the 404 of a resource no longer served.
Watches on built-in kinds and on other CRDs' kinds go on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
CONFIGMAP = kind_for("v1", "ConfigMap")
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


def test_an_in_process_watch_ends_when_its_crd_is_deleted(
    api: InProcessApi, widget_factory: Callable[..., JSON]
) -> None:
    async def main() -> tuple[list[tuple[str, str]], int, int]:
        kind = await api.resolve_kind("example.com", "v1", "widgets")
        await api.create(kind, "default", widget_factory("w1"))
        seen: list[tuple[str, str]] = []

        async def consume() -> None:
            async for event_type, obj in api.watch(kind, "default"):
                if event_type != "BOOKMARK":
                    seen.append((event_type, obj["metadata"]["name"]))
                    if event_type == "ADDED":
                        await api.delete(CRD, None, "widgets.example.com")

        await asyncio.wait_for(consume(), timeout=30)
        with pytest.raises(ApiError) as rewatch:
            await anext(aiter(api.watch(kind, "default")))
        with pytest.raises(ApiError) as relist:
            await api.list(kind, "default")
        return seen, rewatch.value.status, relist.value.status

    seen, rewatch, relist = asyncio.run(main())
    assert seen == [("ADDED", "w1"), ("DELETED", "w1")]
    assert (rewatch, relist) == (404, 404)


def test_a_watch_on_a_built_in_kind_goes_on(api: InProcessApi) -> None:
    """A CRD deletion ends only its own kind's watches: a ConfigMap watch still delivers."""

    async def main() -> list[str]:
        names: list[str] = []

        async def consume() -> None:
            async for event_type, obj in api.watch(CONFIGMAP, "default"):
                if event_type == "ADDED":
                    names.append(obj["metadata"]["name"])
                    if len(names) == 2:
                        return

        task = asyncio.create_task(consume())
        await asyncio.sleep(0)
        configmap = {"metadata": {"name": "before"}, "data": {}}
        await api.create(CONFIGMAP, "default", configmap)
        await api.delete(CRD, None, "widgets.example.com")
        await asyncio.sleep(1.5)  # past a CRD check of the watch loops
        await api.create(CONFIGMAP, "default", {"metadata": {"name": "after"}, "data": {}})
        await asyncio.wait_for(task, timeout=30)
        return names

    assert asyncio.run(main()) == ["before", "after"]


def test_an_http_watch_ends_when_its_crd_is_deleted(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    assert client.post(WIDGETS, json=widget_factory("w1")).status_code == 201
    events: list[tuple[str, str]] = []

    def read() -> None:
        with client.stream("GET", WIDGETS, params={"watch": "1"}) as stream:
            for line in stream.iter_lines():
                if not line:
                    continue
                event = orjson.loads(line)
                events.append((event["type"], event["object"]["metadata"]["name"]))
                if event["type"] == "ADDED":
                    crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
                    client.delete(f"{crd}/widgets.example.com")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), "the watch did not end"
    assert events == [("ADDED", "w1"), ("DELETED", "w1")]
    assert client.get(WIDGETS, params={"watch": "1"}).status_code == 404
    assert client.get(WIDGETS).status_code == 404
