"""Optimistic concurrency over real HTTP: read-modify-write with retry on 409 loses nothing.

Upstream's contract (api-conventions "Concurrency Control and Consistency", and
``RunTestGuaranteedUpdateWithConflict`` in kube-apiserver's storage test suite): a PUT or
PATCH carrying a stale ``metadata.resourceVersion`` fails with 409 Conflict, so writers that
GET, change and write back with the version they read, retrying on 409, never lose an
update. Several threads (sync httpx) and asyncio tasks (``podscale.client.http.HttpApi``)
increment one counter each way, against a uvicorn server over each store backend.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import Connection
from podscale.store import MemoryStore, SqliteStore, Store, SystemClock

JSON = dict[str, Any]
NS = "default"
RS_PATH = f"/apis/apps/v1/namespaces/{NS}/replicasets"
COUNTER = "podscale.test/counter"
CONFLICT = (
    'Operation cannot be fulfilled on replicasets.apps "counter": the object has been '
    "modified; please apply your changes to the latest version and try again"
)
WRITERS = 6
INCREMENTS = 15
# Far more than a fair share of retries; running out means writers starve, not lose updates.
MAX_ATTEMPTS = 1_000


@pytest.fixture(params=["memory", "sqlite"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningServer]:
    clock = SystemClock()
    store: Store
    if request.param == "memory":
        store = MemoryStore(clock)
    else:
        store = SqliteStore(tmp_path / "data" / "store.db", clock)
    running = start_in_thread(create_app(store, clock=clock))
    try:
        yield running
    finally:
        running.stop()
        store.close()


def replica_set(name: str = "counter", replicas: int = 1) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "annotations": {COUNTER: "0"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def create_counter(url: str, replicas: int = 1) -> JSON:
    created = httpx.post(url + RS_PATH, json=replica_set(replicas=replicas), timeout=30)
    assert created.status_code == 201, created.text
    body: JSON = created.json()
    return body


def run_threads(count: int, target: Callable[[], None]) -> None:
    failures: list[BaseException] = []

    def guarded() -> None:
        try:
            target()
        except BaseException as err:  # reported below, in the test's thread
            failures.append(err)

    threads = [threading.Thread(target=guarded) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
        assert not thread.is_alive(), "a writer hung"
    if failures:
        raise failures[0]


class Tally:
    """What the writers saw: resourceVersions of their successful writes, and conflicts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.versions: list[int] = []
        self.conflicts = 0

    def wrote(self, obj: JSON) -> None:
        with self._lock:
            self.versions.append(int(obj["metadata"]["resourceVersion"]))

    def conflicted(self, status: JSON) -> None:
        assert status["reason"] == "Conflict", status
        assert status["code"] == 409
        with self._lock:
            self.conflicts += 1


def check_no_update_lost(tally: Tally, created: JSON, final: JSON) -> None:
    total = WRITERS * INCREMENTS
    assert len(tally.versions) == total
    assert len(set(tally.versions)) == total, "every acknowledged write got its own version"
    first = int(created["metadata"]["resourceVersion"])
    # Only the counter was written: its versions are exactly the revisions after the create.
    assert sorted(tally.versions) == list(range(first + 1, first + total + 1))
    assert int(final["metadata"]["resourceVersion"]) == first + total


def test_put_read_modify_write_with_retry_loses_no_update(server: RunningServer) -> None:
    created = create_counter(server.url)
    tally = Tally()
    path = f"{RS_PATH}/counter"

    def increment_many() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for _ in range(INCREMENTS):
                for _ in range(MAX_ATTEMPTS):
                    current = http.get(path).json()
                    annotations = current["metadata"]["annotations"]
                    annotations[COUNTER] = str(int(annotations[COUNTER]) + 1)
                    written = http.put(path, content=orjson.dumps(current))
                    if written.status_code == 409:
                        tally.conflicted(written.json())
                        continue
                    assert written.status_code == 200, written.text
                    tally.wrote(written.json())
                    break
                else:
                    pytest.fail("a writer never got its update in")

    run_threads(WRITERS, increment_many)
    final = httpx.get(server.url + path, timeout=30).json()
    assert final["metadata"]["annotations"][COUNTER] == str(WRITERS * INCREMENTS)
    check_no_update_lost(tally, created, final)


def test_a_stale_put_is_refused_with_upstreams_conflict(server: RunningServer) -> None:
    created = create_counter(server.url)
    path = f"{server.url}{RS_PATH}/counter"
    fresh = httpx.get(path, timeout=30).json()
    fresh["metadata"]["annotations"][COUNTER] = "1"
    assert httpx.put(path, json=fresh, timeout=30).status_code == 200
    created["metadata"]["annotations"][COUNTER] = "stale"
    refused = httpx.put(path, json=created, timeout=30)
    assert refused.status_code == 409
    assert refused.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": CONFLICT,
        "reason": "Conflict",
        "details": {"name": "counter", "group": "apps", "kind": "replicasets"},
        "code": 409,
    }
    assert httpx.get(path, timeout=30).json()["metadata"]["annotations"][COUNTER] == "1"


def test_scale_patches_with_resource_version_lose_no_update(server: RunningServer) -> None:
    """asyncio tasks over ``HttpApi``: GET /scale, PATCH /scale with the version read."""
    created = create_counter(server.url, replicas=0)
    tally = Tally()
    kind = kind_for("apps/v1", "ReplicaSet")

    async def increment_many(api: HttpApi) -> None:
        for _ in range(INCREMENTS):
            for _ in range(MAX_ATTEMPTS):
                scale = await api.get(kind, NS, "counter", "scale")
                patch = {
                    "metadata": {"resourceVersion": scale["metadata"]["resourceVersion"]},
                    "spec": {"replicas": scale["spec"]["replicas"] + 1},
                }
                try:
                    written = await api.patch(kind, NS, "counter", patch, subresource="scale")
                except ApiError as err:
                    if err.status != 409:
                        raise
                    tally.conflicted(err.body)
                    continue
                assert written["kind"] == "Scale"
                tally.wrote(written)
                break
            else:
                pytest.fail("a writer never got its update in")

    async def run() -> JSON:
        # Unthrottled (qps < 0, as client-go reads it): the writers must race the server.
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:
            await asyncio.gather(*(increment_many(api) for _ in range(WRITERS)))
            return await api.get(kind, NS, "counter")

    final = asyncio.run(run())
    assert final["spec"]["replicas"] == WRITERS * INCREMENTS
    assert final["status"]["replicas"] == 0, "the scale subresource only changes spec"
    check_no_update_lost(tally, created, final)
    assert tally.conflicts > 0, "concurrent tasks raced at least once"
