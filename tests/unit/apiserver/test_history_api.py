"""The read-only history path: an object's state documents, 404 when none, GET only."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.history_api import state_path
from podscale.apiserver.http.app import create_app
from podscale.history import MemoryHistory
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]


class ListlessHistory:
    """A state store that cannot list an object's documents (only get/put/delete)."""

    def __init__(self) -> None:
        self._inner = MemoryHistory()

    def get_state(self, uid: str, name: str) -> JSON | None:
        return self._inner.get_state(uid, name)

    def put_state(self, uid: str, name: str, document: JSON) -> None:
        self._inner.put_state(uid, name, document)

    def delete_state(self, uid: str) -> None:
        self._inner.delete_state(uid)


def _client(clock: Any, history: Any) -> TestClient:
    app = create_app(MemoryStore(clock), clock=clock)
    app.state.podscale.history = history
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize("store", [MemoryHistory, ListlessHistory], ids=["lister", "listless"])
def test_serves_the_documents_of_a_uid(clock: Any, store: type[Any]) -> None:
    history = store()
    history.put_state("u-1", "hpa/history", {"recommendations": []})
    history.put_state("u-1", "hpa/last-decision", {"hpa": "default/web"})
    history.put_state("u-2", "hpa/history", {"other": True})
    response = _client(clock, history).get(state_path("default", "u-1"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "uid": "u-1",
        "documents": {
            "hpa/history": {"recommendations": []},
            "hpa/last-decision": {"hpa": "default/web"},
        },
    }


def test_none_is_a_not_found_status(clock: Any) -> None:
    response = _client(clock, MemoryHistory()).get(state_path("default", "u-9"))
    assert response.status_code == 404
    body = response.json()
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "NotFound", 404)
    assert body["message"] == 'state.history.podscale.dev "u-9" not found'


@pytest.mark.parametrize(
    "path",
    [
        "/apis/history.podscale.dev/v1/namespaces/default/state",
        "/apis/history.podscale.dev/v1/namespaces/default/state/u-1/more",
        "/apis/history.podscale.dev/v2/namespaces/default/state/u-1",
        "/apis/history.podscale.dev/v1/namespaces//state/u-1",
        "/apis/history.podscale.dev/v1/state/u-1",
    ],
    ids=["no-uid", "too-long", "unknown-version", "empty-namespace", "no-namespace"],
)
def test_other_shapes_are_404(clock: Any, path: str) -> None:
    history = MemoryHistory()
    history.put_state("u-1", "hpa/history", {})
    response = _client(clock, history).get(path)
    assert response.status_code == 404
    assert response.json()["reason"] == "NotFound"


def test_without_a_history_store_the_path_is_404(clock: Any) -> None:
    client = TestClient(create_app(MemoryStore(clock), clock=clock))
    assert client.get(state_path("default", "u-1")).status_code == 404


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_read_only(clock: Any, method: str) -> None:
    history = MemoryHistory()
    history.put_state("u-1", "hpa/history", {})
    response = _client(clock, history).request(method, state_path("default", "u-1"), json={})
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
    assert history.get_state("u-1", "hpa/history") == {}
