"""Watch-list streaming (``sendInitialEvents``): the current state, the end BOOKMARK, then
changes; upstream's option validation. Over raw ASGI (HTTP) and the in-process client."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.state import ServerState
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"
RESOURCE = "replicasets.apps"
WATCH_LIST = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
END = {"k8s.io/initial-events-end": "true"}


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def _seed(store: MemoryStore, make_rs: Callable[..., JSON], *names: str) -> None:
    for name in names:
        rs = make_rs(name)
        rs["metadata"]["namespace"] = "default"
        store.create(RESOURCE, rs)


def test_initial_events_then_end_bookmark_then_changes(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    app = make_app()  # creates the system namespaces: the state's revision is after them
    _seed(store, make_rs, "a", "b")
    state_revision = store.revision

    async def scenario() -> None:
        query = f"{WATCH_LIST}&allowWatchBookmarks=true"
        async with asgi_stream(app, RS, query) as stream:
            events = [await stream.line() for _ in range(3)]
            assert stream.status == 200
            assert [(e["type"], e["object"]["metadata"].get("name")) for e in events] == [
                ("ADDED", "a"),
                ("ADDED", "b"),
                ("BOOKMARK", None),
            ]
            bookmark = events[2]["object"]
            assert bookmark["kind"] == "ReplicaSet"
            assert bookmark["apiVersion"] == "apps/v1"
            assert bookmark["metadata"] == {
                "resourceVersion": str(state_revision),
                "annotations": END,
            }
            _seed(store, make_rs, "c")
            added = await stream.line()
            assert (added["type"], added["object"]["metadata"]["name"]) == ("ADDED", "c")

    run(scenario())


def test_initial_events_honour_the_selector(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a", "b")

    async def scenario() -> None:
        query = f"{WATCH_LIST}&allowWatchBookmarks=true&labelSelector=app%3Db"
        async with asgi_stream(make_app(), RS, query) as stream:
            first, second = await stream.line(), await stream.line()
            assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "b")
            assert second["type"] == "BOOKMARK"

    run(scenario())


def test_empty_collection_sends_only_the_end_bookmark(
    store: MemoryStore, make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    async def scenario() -> None:
        query = f"{WATCH_LIST}&allowWatchBookmarks=true"
        async with asgi_stream(make_app(), RS, query) as stream:
            event = await stream.line()
            assert event["type"] == "BOOKMARK"
            assert event["object"]["metadata"]["annotations"] == END

    run(scenario())


def test_send_initial_events_false_starts_now_without_replay(
    store: MemoryStore, make_rs: Callable[..., JSON], make_app: Callable[..., Any], asgi_stream: Any
) -> None:
    _seed(store, make_rs, "a")

    async def scenario() -> None:
        query = "watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan"
        async with asgi_stream(make_app(), RS, query) as stream:
            _seed(store, make_rs, "b")
            event = await stream.line()
            assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "b")

    run(scenario())


@pytest.mark.parametrize(
    ("query", "messages"),
    [
        (
            "sendInitialEvents=true",
            [
                "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                "resourceVersionMatch to NotOlderThan"
            ],
        ),
        (
            "resourceVersionMatch=NotOlderThan",
            [
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch "
                "unless sendInitialEvents is provided"
            ],
        ),
        (
            "sendInitialEvents=true&resourceVersionMatch=Exact",
            [
                "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                "resourceVersionMatch to NotOlderThan",
                'resourceVersionMatch: Unsupported value: "Exact": supported values: '
                '"NotOlderThan"',
            ],
        ),
        (
            "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=x",
            [
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when "
                "continue is provided"
            ],
        ),
    ],
    ids=["no-match", "match-without-initial-events", "exact", "continue"],
)
def test_invalid_watch_list_options_are_422_as_upstream(
    client: Any, query: str, messages: list[str]
) -> None:
    response = client.get(f"{RS}?watch=true&{query}")
    assert response.status_code == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["kind"] == "ListOptions"
    assert status["details"]["group"] == "meta.k8s.io"
    joined = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
    assert status["message"] == f'ListOptions.meta.k8s.io "" is invalid: {joined}'


def test_in_process_client_streams_the_watch_list(
    store: MemoryStore, make_rs: Callable[..., JSON], clock: Any
) -> None:
    _seed(store, make_rs, "a")
    api = InProcessApi(ServerState(store=store, clock=clock))
    info = kind_for("apps/v1", "ReplicaSet")

    async def scenario() -> None:
        events = api.watch(info, "default", send_initial_events=True)
        first = await anext(events)
        second = await anext(events)
        await events.aclose()
        assert (first[0], first[1]["metadata"]["name"]) == ("ADDED", "a")
        assert second[0] == "BOOKMARK"
        assert second[1]["metadata"]["annotations"] == END

    run(scenario())
