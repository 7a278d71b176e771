"""The watch contract over real HTTP: a uvicorn server on 127.0.0.1:0 over each store backend.

The properties are etcd's watch guarantees (``etcd-io/etcd: tests/robustness/validate/
watch.go``: ordered, unique, reliable, resumable, bookmarkable) and the scenarios of upstream's
``test/e2e/apimachinery/watch.go``, checked the way a client sees them: list, then watch from
the list's resourceVersion while several writer threads create, patch and delete pods. Each
test owns its server, so every revision after the system namespaces' comes from the writers
and a watch must deliver
exactly the revisions after its start, no more, no fewer. Writers end with a ``sentinel`` pod;
watchers read until they see it, so no test waits on a timer except the timeout and bookmark
ones, which use bounded server-side timeouts.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.exceptions import ApiException

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES
from podscale.store import MemoryStore, SqliteStore, Store, SystemClock

JSON = dict[str, Any]
Seen = tuple[str, str, int]  # (event type, pod name, resourceVersion)
StartServer = Callable[..., RunningServer]

NS = "default"
PODS = f"/api/v1/namespaces/{NS}/pods"
SENTINEL = "sentinel"
MERGE = {"Content-Type": "application/merge-patch+json"}
# The API server creates the system namespaces at start: the writers' revisions follow them.
BASE = len(SYSTEM_NAMESPACES)
# Server-side bound on every watch, so a broken contract fails instead of hanging.
WATCH_TIMEOUT = "30"


def make_pod(name: str, labels: dict[str, str] | None = None) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def version_of(obj: JSON) -> int:
    return int(obj["metadata"]["resourceVersion"])


@pytest.fixture(params=["memory", "sqlite"])
def start_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StartServer]:
    """A factory: ``start_server(history=..., bookmark_interval=...)`` on this backend."""
    running: list[tuple[RunningServer, Store]] = []

    def start(*, history: int = 10_000, bookmark_interval: float = 5.0) -> RunningServer:
        clock = SystemClock()
        store: Store
        if request.param == "memory":
            store = MemoryStore(clock, history=history)
        else:
            store = SqliteStore(tmp_path / "data" / f"{len(running)}.db", clock, history=history)
        server = start_in_thread(
            create_app(store, clock=clock, bookmark_interval=bookmark_interval)
        )
        running.append((server, store))
        return server

    yield start
    for server, store in running:
        server.stop()
        store.close()


class Writers:
    """``count`` threads, each creating, patching and deleting its own pods over HTTP and
    recording every acknowledged write as (type, name, resourceVersion)."""

    def __init__(self, url: str, count: int = 4, rounds: int = 10) -> None:
        self.url = url
        self.acknowledged: list[Seen] = []
        self.warmed_up = threading.Event()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._write, args=(f"w{i}", rounds)) for i in range(count)
        ]

    def _ack(self, kind: str, obj: JSON) -> None:
        with self._lock:
            self.acknowledged.append((kind, obj["metadata"]["name"], version_of(obj)))
            if len(self.acknowledged) >= 8:
                self.warmed_up.set()

    def _write(self, prefix: str, rounds: int) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            for i in range(rounds):
                name = f"{prefix}-{i}"
                created = http.post(PODS, json=make_pod(name))
                assert created.status_code == 201, created.text
                self._ack("ADDED", created.json())
                for step in range(2):
                    patch = orjson.dumps({"metadata": {"annotations": {"step": str(step)}}})
                    patched = http.patch(f"{PODS}/{name}", content=patch, headers=MERGE)
                    assert patched.status_code == 200, patched.text
                    self._ack("MODIFIED", patched.json())
                if i % 3 == 0:
                    deleted = http.delete(f"{PODS}/{name}")
                    assert deleted.status_code == 200, deleted.text
                    self._ack("DELETED", deleted.json())

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def finish(self) -> int:
        """Join the writers, then write the sentinel; returns its resourceVersion."""
        for thread in self._threads:
            thread.join(60)
            assert not thread.is_alive(), "a writer hung"
        with httpx.Client(base_url=self.url, timeout=30) as http:
            created = http.post(PODS, json=make_pod(SENTINEL))
            assert created.status_code == 201, created.text
            self._ack("ADDED", created.json())
            return version_of(created.json())


def read_watch(
    url: str,
    params: dict[str, str],
    *,
    until: Callable[[Seen], bool] = lambda seen: seen[1] == SENTINEL,
    keep: Callable[[JSON], bool] = lambda event: event["type"] != "BOOKMARK",
) -> list[Seen]:
    """Watch the pods until ``until`` holds for an event (the connection is then dropped) or
    the server ends the stream; returns what was seen."""
    query = {"watch": "true", "timeoutSeconds": WATCH_TIMEOUT, **params}
    seen: list[Seen] = []
    with (
        httpx.Client(base_url=url, timeout=30) as http,
        http.stream("GET", PODS, params=query) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        for line in response.iter_lines():
            event = orjson.loads(line)
            if not keep(event):
                continue
            obj = event["object"]
            item = (event["type"], obj["metadata"].get("name", ""), version_of(obj))
            seen.append(item)
            if until(item):
                break
    return seen


def list_pods(url: str) -> JSON:
    response = httpx.get(url + PODS, timeout=30)
    assert response.status_code == 200
    body: JSON = response.json()
    return body


def test_list_then_watch_under_concurrent_writers_is_ordered_gapless_and_unique(
    start_server: StartServer,
) -> None:
    server = start_server()
    writers = Writers(server.url, count=4, rounds=10)
    writers.start()
    assert writers.warmed_up.wait(30)
    listed = list_pods(server.url)
    since = int(listed["metadata"]["resourceVersion"])
    with ThreadPoolExecutor(1) as pool:
        watching = pool.submit(read_watch, server.url, {"resourceVersion": str(since)})
        sentinel = writers.finish()
        seen = watching.result(60)

    versions = [rv for _, _, rv in seen]
    assert versions == sorted(set(versions)), "ordered by resourceVersion, no duplicate"
    assert versions == list(range(since + 1, sentinel + 1)), "no revision skipped"
    acknowledged = sorted((e for e in writers.acknowledged if e[2] > since), key=lambda e: e[2])
    assert seen == acknowledged, "exactly the acknowledged writes, with their types"

    # The listed state plus the watched events is the server's final state.
    state = {item["metadata"]["name"]: version_of(item) for item in listed["items"]}
    for kind, name, rv in seen:
        if kind == "DELETED":
            del state[name]
        else:
            state[name] = rv
    final = list_pods(server.url)
    assert state == {item["metadata"]["name"]: version_of(item) for item in final["items"]}


def test_watch_from_a_resource_version_sees_exactly_the_later_events(
    start_server: StartServer,
) -> None:
    server = start_server()
    writers = Writers(server.url, count=1, rounds=6)
    writers.start()
    sentinel = writers.finish()
    history = sorted(writers.acknowledged, key=lambda e: e[2])
    assert [rv for _, _, rv in history] == list(range(BASE + 1, sentinel + 1))
    for since in (BASE + 1, BASE + 7, sentinel - 1):
        seen = read_watch(server.url, {"resourceVersion": str(since)})
        assert seen == [e for e in history if e[2] > since], f"from {since}"
    # Unset or "0": the current objects as synthetic ADDED events, in list order.
    current = list_pods(server.url)["items"]
    replay = [("ADDED", p["metadata"]["name"], version_of(p)) for p in current]
    for params in ({}, {"resourceVersion": "0"}):
        assert (
            read_watch(server.url, params, until=after_events(len(replay), or_sentinel=False))
            == replay
        )


def after_events(count: int, *, or_sentinel: bool = True) -> Callable[[Seen], bool]:
    """A ``read_watch`` stop condition: ``count`` events on this connection (or the sentinel)."""
    seen_here = 0

    def done(seen: Seen) -> bool:
        nonlocal seen_here
        seen_here += 1
        return (or_sentinel and seen[1] == SENTINEL) or seen_here >= count

    return done


def test_a_disconnected_client_resumes_from_its_last_resource_version(
    start_server: StartServer,
) -> None:
    server = start_server()
    # Resuming from "0" would mean "replay the current state": start from a real revision.
    since = _fill(server.url, 1)
    writers = Writers(server.url, count=3, rounds=8)
    writers.start()
    collected: list[Seen] = []
    connections = 0
    last = since
    sentinel = -1
    # Drop the connection after every 5 events, reconnecting from the last one seen.
    while not collected or collected[-1][1] != SENTINEL:
        connections += 1
        assert connections < 200, "no progress"
        chunk = read_watch(server.url, {"resourceVersion": str(last)}, until=after_events(5))
        collected.extend(chunk)
        last = collected[-1][2] if collected else last
        if connections == 2:
            sentinel = writers.finish()
    assert connections > 3
    assert [rv for _, _, rv in collected] == list(range(since + 1, sentinel + 1))
    assert collected == sorted(writers.acknowledged, key=lambda e: e[2])


def test_concurrent_watchers_see_the_same_order(start_server: StartServer) -> None:
    server = start_server()
    writers = Writers(server.url, count=4, rounds=8)
    writers.start()
    assert writers.warmed_up.wait(30)
    since = int(list_pods(server.url)["metadata"]["resourceVersion"])
    with ThreadPoolExecutor(5) as pool:
        same_start = [
            pool.submit(read_watch, server.url, {"resourceVersion": str(since)}) for _ in range(4)
        ]
        later = int(list_pods(server.url)["metadata"]["resourceVersion"])
        late_start = pool.submit(read_watch, server.url, {"resourceVersion": str(later)})
        sentinel = writers.finish()
        sequences = [future.result(60) for future in same_start]
        late = late_start.result(60)
    assert [rv for _, _, rv in sequences[0]] == list(range(since + 1, sentinel + 1))
    assert all(sequence == sequences[0] for sequence in sequences[1:])
    assert late == [e for e in sequences[0] if e[2] > later]


@pytest.mark.parametrize(
    "watch_first",
    [True, False],
    ids=["watch-open-during-changes", "changes-replayed-from-history"],
)
def test_an_object_leaving_the_selector_is_observed_as_deleted(
    start_server: StartServer, watch_first: bool
) -> None:
    """A client listed ``app=a`` at ``since`` (seeing ``moving``), then watches from there:
    whether the changes happen while the watch is open or before it opens (replayed from
    history, the list-then-watch race), it must see ``moving`` leave and come back."""
    server = start_server()
    query = {"watch": "true", "timeoutSeconds": WATCH_TIMEOUT, "labelSelector": "app=a"}
    with (
        httpx.Client(base_url=server.url, timeout=30) as http,
        contextlib.ExitStack() as stack,
    ):
        http.post(PODS, json=make_pod("other", {"app": "other"}))
        since = version_of(http.post(PODS, json=make_pod("moving", {"app": "a"})).json())
        query["resourceVersion"] = str(since)

        def open_watch() -> httpx.Response:
            response = stack.enter_context(http.stream("GET", PODS, params=query))
            assert response.status_code == 200  # headers sent: the watch has started
            return response

        response = open_watch() if watch_first else None
        steps = []
        changes = ({"labels": {"app": "b"}}, {"labels": {"app": "a"}}, {"annotations": {"x": "y"}})
        for change in changes:
            patch = orjson.dumps({"metadata": change})
            steps.append(
                version_of(http.patch(f"{PODS}/moving", content=patch, headers=MERGE).json())
            )
        http.post(PODS, json=make_pod("other-2", {"app": "other"}))
        sentinel = version_of(http.post(PODS, json=make_pod(SENTINEL, {"app": "a"})).json())
        if response is None:
            response = open_watch()
        seen: list[Seen] = []
        for line in response.iter_lines():
            event = orjson.loads(line)
            obj = event["object"]
            seen.append((event["type"], obj["metadata"]["name"], version_of(obj)))
            if seen[-1][1] == SENTINEL:
                break
    assert seen == [
        ("DELETED", "moving", steps[0]),  # left the selector
        ("ADDED", "moving", steps[1]),  # came back
        ("MODIFIED", "moving", steps[2]),
        ("ADDED", SENTINEL, sentinel),
    ]


def _fill(url: str, count: int) -> int:
    with httpx.Client(base_url=url, timeout=30) as http:
        for i in range(count):
            created = http.post(PODS, json=make_pod(f"p{i}"))
            assert created.status_code == 201
        return version_of(created.json())


def test_an_expired_resource_version_gets_a_410_error_event(start_server: StartServer) -> None:
    server = start_server(history=5)
    latest = _fill(server.url, 12)
    assert latest == BASE + 12
    # The last 5 revisions are kept: the one before them is the oldest a watch may start from.
    old = {"watch": "true", "resourceVersion": str(BASE + 3)}
    with (
        httpx.Client(base_url=server.url, timeout=30) as http,
        http.stream("GET", PODS, params=old) as response,
    ):
        assert response.status_code == 200
        lines = [orjson.loads(line) for line in response.iter_lines()]
    assert lines == [
        {
            "type": "ERROR",
            "object": {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": f"too old resource version: {BASE + 3} ({BASE + 7})",
                "reason": "Expired",
                "code": 410,
            },
        }
    ], "one ERROR event, then the stream ends"
    since = {"resourceVersion": str(BASE + 7)}
    seen = read_watch(server.url, since, until=lambda seen: seen[2] == latest)
    assert [rv for _, _, rv in seen] == [BASE + 8, BASE + 9, BASE + 10, BASE + 11, BASE + 12]


def test_the_official_client_raises_410_after_its_one_retry(start_server: StartServer) -> None:
    server = start_server(history=3)
    _fill(server.url, 6)
    configuration = k8s.Configuration()
    configuration.host = server.url
    with k8s.ApiClient(configuration) as api:
        # It sees the ERROR event, retries once from the same version, then raises.
        watcher = k8s_watch.Watch()  # type: ignore[no-untyped-call]
        stream = watcher.stream(  # type: ignore[no-untyped-call]
            k8s.CoreV1Api(api).list_namespaced_pod, NS, resource_version="1"
        )
        with pytest.raises(ApiException) as gone:
            next(iter(stream))
    assert gone.value.status == 410
    assert gone.value.reason == f"Expired: too old resource version: 1 ({BASE + 3})"


def test_idle_watches_get_bookmarks_covering_every_delivered_event(
    start_server: StartServer,
) -> None:
    server = start_server(bookmark_interval=0.1)
    latest = _fill(server.url, 3)
    seen = read_watch(
        server.url,
        {"resourceVersion": str(BASE + 1), "allowWatchBookmarks": "true"},
        until=lambda seen: seen[0] == "BOOKMARK",
        keep=lambda event: True,
    )
    assert seen == [("ADDED", "p1", BASE + 2), ("ADDED", "p2", BASE + 3), ("BOOKMARK", "", latest)]
    with (
        httpx.Client(base_url=server.url, timeout=30) as http,
        http.stream(
            "GET", PODS, params={"watch": "true", "allowWatchBookmarks": "true"}
        ) as response,
    ):
        for line in response.iter_lines():
            event = orjson.loads(line)
            if event["type"] == "BOOKMARK":
                # Only kind, apiVersion and metadata.resourceVersion (KEP-956).
                assert event["object"] == {
                    "kind": "Pod",
                    "apiVersion": "v1",
                    "metadata": {"resourceVersion": str(latest)},
                }
                break


@pytest.mark.parametrize(
    ("bookmarks", "expected"),
    [(False, []), (True, ["BOOKMARK"])],
    ids=["no-bookmarks-unless-asked", "bookmarks-when-asked"],
)
def test_timeout_seconds_ends_the_stream(
    start_server: StartServer, bookmarks: bool, expected: list[str]
) -> None:
    server = start_server(bookmark_interval=0.3)
    latest = _fill(server.url, 2)
    params = {"watch": "true", "resourceVersion": str(latest), "timeoutSeconds": "1"}
    if bookmarks:
        params["allowWatchBookmarks"] = "true"
    began = time.monotonic()
    with (
        httpx.Client(base_url=server.url, timeout=30) as http,
        http.stream("GET", PODS, params=params) as response,
    ):
        types = [orjson.loads(line)["type"] for line in response.iter_lines()]
    elapsed = time.monotonic() - began
    # The server closed the stream itself, at about the requested second.
    assert 0.9 <= elapsed < 10, elapsed
    assert sorted(set(types)) == expected
