"""Both transports take a list's resourceVersion and resourceVersionMatch and answer alike.

``InProcessApi`` and ``HttpApi`` (over the ASGI app, no sockets) run the same scenario on
a virtual-time loop: exact snapshots with paging, upstream's 422 for a bad combination as
``ApiError``, and the 504 ResourceVersionTooLarge after the 3 s wait (virtual seconds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.http import ApiError, HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.kubeconfig import Connection
from podscale.runtime import VirtualTimeLoop
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
RS = kind_for("apps/v1", "ReplicaSet")


Lists = InProcessApi | HttpApi


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC)


def rs(name: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def run_with(transport: str, scenario: Callable[[Lists, int], Coroutine[Any, Any, None]]) -> None:
    """Run ``scenario(api, base)``; ``base`` is the store's revision once the app is up (it
    creates the system namespaces), so the scenario's writes are revisions base+1, ..."""
    loop = VirtualTimeLoop()

    async def main() -> None:
        store = MemoryStore(FixedClock())
        app = create_app(store, clock=FixedClock())
        base = store.revision
        if transport == "inprocess":
            await scenario(InProcessApi.for_app(app), base)
            return
        asgi = httpx.ASGITransport(app=app)
        # No client retries: these tests read the server's one answer (a 504 "too large"
        # carries Retry-After, which HttpApi, as client-go, would otherwise retry).
        http = HttpApi(Connection(server="http://test"), transport=asgi, max_retries=0)
        async with http as api:
            await scenario(api, base)

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


def names(body: JSON) -> list[str]:
    return [item["metadata"]["name"] for item in body["items"]]


@pytest.mark.parametrize("transport", ["inprocess", "http"])
def test_exact_snapshot_pages(transport: str) -> None:
    async def scenario(api: Lists, base: int) -> None:
        for name in ("a", "b", "c"):
            await api.create(RS, "default", rs(name))
        second = str(base + 2)
        first = await api.list(
            RS, "default", resource_version=second, resource_version_match="Exact", limit=1
        )
        assert (names(first), first["metadata"]["resourceVersion"]) == (["a"], second)
        rest = await api.list(RS, "default", continue_token=first["metadata"]["continue"])
        assert (names(rest), rest["metadata"]["resourceVersion"]) == (["b"], second)
        newest = await api.list(RS, "default", resource_version=str(base + 1))
        assert (names(newest), newest["metadata"]["resourceVersion"]) == (
            ["a", "b", "c"],
            str(base + 3),
        )

    run_with(transport, scenario)


@pytest.mark.parametrize("transport", ["inprocess", "http"])
def test_invalid_options_are_422(transport: str) -> None:
    async def scenario(api: Lists, base: int) -> None:
        with pytest.raises(ApiError) as info:
            await api.list(RS, "default", resource_version="0", resource_version_match="Exact")
        assert info.value.status == 422
        assert info.value.body["message"] == (
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
        )

    run_with(transport, scenario)


@pytest.mark.parametrize("transport", ["inprocess", "http"])
def test_too_large_after_waiting(transport: str) -> None:
    async def scenario(api: Lists, base: int) -> None:
        await api.create(RS, "default", rs("a"))
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ApiError) as info:
            await api.list(RS, "default", resource_version=str(base + 7))
        assert loop.time() - started == 3.0
        assert info.value.status == 504
        assert info.value.body["message"] == (
            f"Timeout: Too large resource version: {base + 7}, current: {base + 1}"
        )
        assert info.value.body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"

    run_with(transport, scenario)
