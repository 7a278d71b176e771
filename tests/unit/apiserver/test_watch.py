"""Watch streams: NDJSON events, synthetic ADDED, 410 ERROR, bookmarks, timeouts, selectors,
Table mode and version conversion. Streams are read line by line over raw ASGI."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"
RESOURCE = "replicasets.apps"
TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def _seed(store: MemoryStore, make_rs: Callable[..., JSON], *names: str) -> None:
    for name in names:
        store.create(
            RESOURCE,
            {**make_rs(name), "metadata": {**make_rs(name)["metadata"], "namespace": "default"}},
        )


def _set_label(store: MemoryStore, name: str, **labels: str) -> None:
    obj = store.get(RESOURCE, "default", name)
    obj["metadata"]["labels"] = {**obj["metadata"].get("labels", {}), **labels}
    store.update(RESOURCE, obj)


def test_unset_resource_version_replays_then_streams_live(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a", "b")

    async def scenario() -> None:
        async with asgi_stream(make_app(), RS, "watch=true") as stream:
            first, second = await stream.line(), await stream.line()
            assert stream.status == 200
            assert stream.headers["content-type"] == "application/json"
            assert "content-encoding" not in stream.headers
            assert [first["type"], second["type"]] == ["ADDED", "ADDED"]
            assert [first["object"]["metadata"]["name"], second["object"]["metadata"]["name"]] == [
                "a",
                "b",
            ]
            _set_label(store, "a", tier="x")
            modified = await stream.line()
            assert modified["type"] == "MODIFIED"
            assert modified["object"]["metadata"]["labels"]["tier"] == "x"
            store.delete(RESOURCE, "default", "b")
            deleted = await stream.line()
            assert (deleted["type"], deleted["object"]["metadata"]["name"]) == ("DELETED", "b")

    run(scenario())


def test_watch_from_resource_version_sends_only_later_events(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    app = make_app()
    _seed(store, make_rs, "a")
    since = store.revision

    async def scenario() -> None:
        async with asgi_stream(app, RS, f"watch=1&resourceVersion={since}") as stream:
            _seed(store, make_rs, "b")
            event = await stream.line()
            assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "b")
            assert int(event["object"]["metadata"]["resourceVersion"]) == since + 1

    run(scenario())


def test_too_old_resource_version_is_error_410_then_end(
    clock: Any, make_rs: Callable[..., JSON], asgi_stream: Any
) -> None:
    store = MemoryStore(clock, history=2)
    _seed(store, make_rs, "a", "b", "c", "d", "e")
    app = create_app(store, clock=clock)

    async def scenario() -> None:
        async with asgi_stream(app, RS, "watch=true&resourceVersion=1") as stream:
            event = await stream.line()
            assert event["type"] == "ERROR"
            status = event["object"]
            assert status["kind"] == "Status"
            assert status["code"] == 410
            assert status["reason"] == "Expired"
            assert status["message"].startswith("too old resource version: 1 (")
            assert await stream.line() is None

    run(scenario())


def test_bookmarks_when_idle(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    app = make_app(bookmark_interval=0.05)
    _seed(store, make_rs, "a")
    since = store.revision

    async def scenario() -> None:
        query = f"watch=true&resourceVersion={since}&allowWatchBookmarks=true"
        async with asgi_stream(app, RS, query) as stream:
            event = await stream.line()
            assert event == {
                "type": "BOOKMARK",
                "object": {
                    "kind": "ReplicaSet",
                    "apiVersion": "apps/v1",
                    "metadata": {"resourceVersion": str(since)},
                },
            }

    run(scenario())


def test_no_bookmarks_unless_asked(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    since = store.revision
    app = make_app(bookmark_interval=0.01)

    async def scenario() -> None:
        async with asgi_stream(app, RS, f"watch=true&resourceVersion={since}") as stream:
            with pytest.raises(TimeoutError):
                await stream.line(timeout=0.2)

    run(scenario())


def test_timeout_seconds_ends_the_stream(
    make_app: Callable[..., Any], asgi_stream: Any, store: MemoryStore
) -> None:
    async def scenario() -> None:
        query = f"watch=true&timeoutSeconds=1&resourceVersion={store.revision}"
        async with asgi_stream(make_app(), RS, query) as stream:
            assert await stream.line(timeout=5) is None
            assert stream.ended

    run(scenario())


def test_selector_exit_is_deleted_and_entry_is_added(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a")
    _set_label(store, "a", tier="front")
    since = store.revision

    async def scenario() -> None:
        query = f"watch=true&resourceVersion={since}&labelSelector=tier%3Dfront"
        async with asgi_stream(make_app(), RS, query) as stream:
            _set_label(store, "a", tier="back")
            left = await stream.line()
            # As upstream's watch cache: the DELETED carries the state the client had (the
            # one that matched), at the resourceVersion of the change that removed it.
            assert (left["type"], left["object"]["metadata"]["labels"]["tier"]) == (
                "DELETED",
                "front",
            )
            assert left["object"]["metadata"]["resourceVersion"] == str(store.revision)
            _set_label(store, "a", other="1")  # still outside: nothing sent
            _set_label(store, "a", tier="front")
            entered = await stream.line()
            assert entered["type"] == "ADDED"
            _set_label(store, "a", again="1")
            assert (await stream.line())["type"] == "MODIFIED"

    run(scenario())


def test_field_selector_named_watch_gets_synthetic_added(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a", "b")

    async def scenario() -> None:
        query = "watch=true&resourceVersion=0&fieldSelector=metadata.name%3Db"
        async with asgi_stream(make_app(), RS, query) as stream:
            event = await stream.line()
            assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "b")
            _set_label(store, "a", x="1")
            _set_label(store, "b", x="1")
            event = await stream.line()
            assert (event["type"], event["object"]["metadata"]["name"]) == ("MODIFIED", "b")

    run(scenario())


def test_table_mode_events(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a", "b")

    async def scenario() -> None:
        async with asgi_stream(make_app(), RS, "watch=true", {"accept": TABLE_ACCEPT}) as stream:
            first, second = await stream.line(), await stream.line()
            assert first["object"]["kind"] == "Table"
            assert first["object"]["columnDefinitions"]
            assert second["object"]["columnDefinitions"] == []
            assert second["object"]["rows"][0]["cells"][0] == "b"

    run(scenario())


def test_hpa_watch_in_v1_is_converted(
    store: MemoryStore,
    make_hpa: Callable[..., JSON],
    make_app: Callable[..., Any],
    asgi_stream: Any,
) -> None:
    hpa = copy.deepcopy(make_hpa())
    hpa["metadata"]["namespace"] = "default"
    store.create("horizontalpodautoscalers.autoscaling", hpa)
    path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"

    async def scenario() -> None:
        async with asgi_stream(make_app(), path, "watch=true") as stream:
            event = await stream.line()
            obj = event["object"]
            assert obj["apiVersion"] == "autoscaling/v1"
            assert obj["spec"]["targetCPUUtilizationPercentage"] == 60
            assert obj["status"] == {"currentReplicas": 0, "desiredReplicas": 0}

    run(scenario())


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "watch=true&resourceVersion=abc",
            'resourceVersion: Invalid value: "abc": must be an integer',
        ),
        ("watch=true&labelSelector=a%20in", None),
        ("watch=true&fieldSelector=spec.foo%3D1", "field label not supported: spec.foo"),
    ],
    ids=["bad-rv", "bad-label-selector", "bad-field"],
)
def test_bad_watch_parameters_are_400_before_streaming(
    client: Any, query: str, message: str | None
) -> None:
    response = client.get(f"{RS}?{query}")
    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    if message is not None:
        assert response.json()["message"] == message


def test_idle_watch_ends_when_the_client_leaves_under_asgi_2_4(
    store: MemoryStore, make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    """uvicorn speaks ASGI 2.4, where Starlette does not watch for disconnects: the watch
    itself must notice, or the store watch would live until the next event."""
    closed: list[bool] = []
    real_watch = store.watch

    def tracking_watch(*args: Any, **kwargs: Any) -> Any:
        watch = real_watch(*args, **kwargs)
        real_close = watch.close

        def close() -> None:
            closed.append(True)
            real_close()

        watch.close = close  # type: ignore[method-assign]
        return watch

    store.watch = tracking_watch  # type: ignore[method-assign]

    async def scenario() -> None:
        query = f"watch=true&resourceVersion={store.revision}"
        stream = asgi_stream(make_app(), RS, query, spec_version="2.4")
        async with stream:
            with pytest.raises(TimeoutError):
                await stream.line(timeout=0.1)
        assert closed == [True]

    run(scenario())
