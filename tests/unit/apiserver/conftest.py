"""Fixtures for the API server tests: a MemoryStore on a fixed clock, the app, a client, and
object builders. Helpers are fixtures because tests run with ``--import-mode=importlib``."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]


class FixedClock:
    def __init__(self) -> None:
        self.current = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def store(clock: FixedClock) -> MemoryStore:
    return MemoryStore(clock)


@pytest.fixture
def client(store: MemoryStore, clock: FixedClock) -> TestClient:
    return TestClient(create_app(store, clock=clock), raise_server_exceptions=False)


_RS: JSON = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
        },
    },
}

_HPA_V2: JSON = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60},
                },
            }
        ],
    },
}


@pytest.fixture
def make_rs() -> Callable[..., JSON]:
    def build(
        name: str = "web", replicas: int = 2, kind: str = "ReplicaSet", **labels: str
    ) -> JSON:
        obj = copy.deepcopy(_RS)
        obj["kind"] = kind
        obj["metadata"]["name"] = name
        obj["metadata"]["labels"] = {"app": name, **labels}
        obj["spec"]["replicas"] = replicas
        obj["spec"]["selector"] = {"matchLabels": {"app": name}}
        obj["spec"]["template"]["metadata"]["labels"] = {"app": name}
        return obj

    return build


@pytest.fixture
def make_hpa() -> Callable[..., JSON]:
    def build(name: str = "web", max_replicas: int = 5) -> JSON:
        obj = copy.deepcopy(_HPA_V2)
        obj["metadata"]["name"] = name
        obj["spec"]["maxReplicas"] = max_replicas
        return obj

    return build


def _make_pod(name: str = "p", phase: str = "Running", node: str = "n1", **labels: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": phase},
    }


@pytest.fixture
def make_pod() -> Callable[..., JSON]:
    return _make_pod


RS_PATH = "/apis/apps/v1/namespaces/default/replicasets"


@pytest.fixture
def rs_path() -> str:
    return RS_PATH


@pytest.fixture
def created_rs(client: TestClient, make_rs: Callable[..., JSON]) -> JSON:
    response = client.post(RS_PATH, json=make_rs())
    assert response.status_code == 201, response.text
    created: JSON = response.json()
    return created


class AsgiStream:
    """Drives the app directly over ASGI so a test can read a watch line by line while it
    writes to the store (TestClient would buffer the whole response). Use inside asyncio."""

    def __init__(
        self,
        app: Any,
        path: str,
        query: str = "",
        headers: dict[str, str] | None = None,
        spec_version: str = "2.3",
    ):
        self._app = app
        self._scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": spec_version},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        self._disconnect: asyncio.Event | None = None
        self._lines: asyncio.Queue[bytes | None] | None = None
        self._buffer = b""
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.ended = False
        self._task: asyncio.Task[None] | None = None
        self._started = asyncio.Event()

    async def __aenter__(self) -> AsgiStream:
        self._disconnect = asyncio.Event()
        self._lines = asyncio.Queue()
        self._started = asyncio.Event()
        self._task = asyncio.create_task(self._run())
        # The handler checks its parameters and takes its selector snapshot before it starts
        # the response: writes made after this point are the ones the watch must report.
        await asyncio.wait_for(self._started.wait(), 5.0)
        return self

    async def _run(self) -> None:
        assert self._disconnect is not None
        assert self._lines is not None
        sent_request = False

        async def receive() -> dict[str, Any]:
            nonlocal sent_request
            if not sent_request:
                sent_request = True
                return {"type": "http.request", "body": b"", "more_body": False}
            assert self._disconnect is not None
            await self._disconnect.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            assert self._lines is not None
            if message["type"] == "http.response.start":
                self.status = message["status"]
                self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
                self._started.set()
            elif message["type"] == "http.response.body":
                self._buffer += message.get("body", b"")
                while b"\n" in self._buffer:
                    line, self._buffer = self._buffer.split(b"\n", 1)
                    await self._lines.put(line)
                if not message.get("more_body", False):
                    await self._lines.put(None)

        await self._app(self._scope, receive, send)

    async def line(self, timeout: float = 5.0) -> JSON | None:
        """The next event as JSON, or None when the stream ended."""
        assert self._lines is not None
        raw = await asyncio.wait_for(self._lines.get(), timeout)
        if raw is None:
            self.ended = True
            return None
        value: JSON = json.loads(raw)
        return value

    async def __aexit__(self, *exc: object) -> None:
        assert self._disconnect is not None
        assert self._task is not None
        self._disconnect.set()
        await asyncio.wait_for(self._task, 5.0)


@pytest.fixture
def make_app(store: MemoryStore, clock: FixedClock) -> Callable[..., Any]:
    def build(**kwargs: Any) -> Any:
        return create_app(store, clock=clock, **kwargs)

    return build


@pytest.fixture
def asgi_stream() -> type[AsgiStream]:
    return AsgiStream
