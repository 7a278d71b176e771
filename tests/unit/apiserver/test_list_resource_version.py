"""LIST with resourceVersion / resourceVersionMatch over HTTP, as kube-apiserver answers.

Exact and legacy-with-limit reads serve a past snapshot; not-older-than reads wait (on the
loop's clock: these run on virtual time) for a revision the store has not reached and then
answer 504 ResourceVersionTooLarge; invalid combinations are upstream's 422 ``ListOptions``
or 400. Served through ``create_app``, so the Status bodies and headers are the wire's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.runtime import VirtualTimeLoop
from podscale.store.listing import LIST_EXPIRED
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
T = TypeVar("T")
RS = "/apis/apps/v1/namespaces/default/replicasets"


@pytest.fixture
def base(client: TestClient, store: MemoryStore) -> int:
    """The store's revision once the app is up (it creates the system namespaces)."""
    return store.revision


@pytest.fixture
def history(client: TestClient, base: int, make_rs: Callable[..., JSON]) -> TestClient:
    """Revision base+1: web (2 replicas); +2: web scaled to 5; +3: api created; +4: web
    deleted."""
    assert client.post(RS, json=make_rs("web")).status_code == 201
    patch = {"spec": {"replicas": 5}}
    headers = {"Content-Type": "application/merge-patch+json"}
    assert client.patch(f"{RS}/web", json=patch, headers=headers).status_code == 200
    assert client.post(RS, json=make_rs("api")).status_code == 201
    assert client.delete(f"{RS}/web").status_code == 200
    return client


def at(base: int, query: str) -> str:
    """``query`` with ``{n}`` standing for revision ``base + n``."""
    return query.format(*(base + n for n in range(6)))


def served(body: JSON) -> list[tuple[str, int]]:
    return [(i["metadata"]["name"], i["spec"]["replicas"]) for i in body["items"]]


@pytest.mark.parametrize(
    ("query", "revision", "items"),
    [
        ("resourceVersion={1}&resourceVersionMatch=Exact", 1, [("web", 2)]),
        ("resourceVersion={2}&resourceVersionMatch=Exact", 2, [("web", 5)]),
        ("resourceVersion={3}&resourceVersionMatch=Exact", 3, [("api", 2), ("web", 5)]),
        ("resourceVersion={4}&resourceVersionMatch=Exact", 4, [("api", 2)]),
        ("resourceVersion={1}&limit=10", 1, [("web", 2)]),
        ("resourceVersion={1}", 4, [("api", 2)]),
        ("resourceVersion={2}&resourceVersionMatch=NotOlderThan", 4, [("api", 2)]),
        ("resourceVersion=0", 4, [("api", 2)]),
        ("resourceVersion=0&resourceVersionMatch=NotOlderThan", 4, [("api", 2)]),
        ("resourceVersion=0&limit=1", 4, [("api", 2)]),
        ("", 4, [("api", 2)]),
    ],
    ids=[
        "exact-1",
        "exact-2",
        "exact-3",
        "exact-current",
        "legacy-with-limit-is-exact",
        "legacy-without-limit-is-not-older-than",
        "not-older-than",
        "zero-is-any",
        "zero-not-older-than-is-any",
        "zero-with-limit-is-any",
        "unset-is-most-recent",
    ],
)
def test_list_reads_the_requested_snapshot(
    history: TestClient, base: int, query: str, revision: int, items: list[tuple[str, int]]
) -> None:
    response = history.get(f"{RS}?{at(base, query)}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["metadata"]["resourceVersion"] == str(base + revision)
    assert served(body) == items


def test_exact_pages_stay_on_their_snapshot(history: TestClient, base: int) -> None:
    query = f"resourceVersion={base + 3}&resourceVersionMatch=Exact&limit=1"
    first = history.get(f"{RS}?{query}").json()
    assert served(first) == [("api", 2)]
    assert first["metadata"]["remainingItemCount"] == 1
    rest = history.get(f"{RS}?limit=1&continue={first['metadata']['continue']}").json()
    assert rest["metadata"]["resourceVersion"] == str(base + 3)
    assert served(rest) == [("web", 5)]


def test_exact_list_as_a_table(history: TestClient, base: int) -> None:
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io"
    response = history.get(
        f"{RS}?resourceVersion={base + 1}&resourceVersionMatch=Exact", headers={"Accept": accept}
    )
    table = response.json()
    assert table["metadata"]["resourceVersion"] == str(base + 1)
    assert [row["cells"][0] for row in table["rows"]] == ["web"]


def test_exact_list_older_than_the_history_is_gone(
    make_rs: Callable[..., JSON], clock: Any
) -> None:
    store = MemoryStore(clock, history=1)
    client = TestClient(create_app(store, clock=clock), raise_server_exceptions=False)
    base = store.revision
    for name in ("a", "b", "c"):
        assert client.post(RS, json=make_rs(name)).status_code == 201
    response = client.get(f"{RS}?resourceVersion={base + 1}&resourceVersionMatch=Exact")
    assert response.status_code == 410
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": LIST_EXPIRED,
        "reason": "Expired",
        "code": 410,
    }


def _forbidden(detail: str) -> tuple[str, str]:
    return ("FieldValueForbidden", f"Forbidden: {detail}")


@pytest.mark.parametrize(
    ("query", "causes"),
    [
        (
            "resourceVersionMatch=Exact",
            [_forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided")],
        ),
        (
            "resourceVersion=0&resourceVersionMatch=Exact",
            [_forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"')],
        ),
        (
            "resourceVersion=1&resourceVersionMatch=Latest",
            [
                (
                    "FieldValueNotSupported",
                    'Unsupported value: "Latest": supported values: "Exact", "NotOlderThan", ""',
                )
            ],
        ),
        (
            "resourceVersion=1&resourceVersionMatch=NotOlderThan&continue=abc",
            [_forbidden("resourceVersionMatch is forbidden when continue is provided")],
        ),
        (
            "resourceVersionMatch=NotOlderThan&continue=abc",
            [
                _forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided"),
                _forbidden("resourceVersionMatch is forbidden when continue is provided"),
            ],
        ),
    ],
    ids=["match-without-version", "exact-zero", "unknown-match", "match-with-continue", "two"],
)
def test_invalid_list_options_are_422(
    history: TestClient, query: str, causes: list[tuple[str, str]]
) -> None:
    response = history.get(f"{RS}?{query}")
    assert response.status_code == 422
    body = response.json()
    texts = [f"resourceVersionMatch: {message}" for _, message in causes]
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    assert body["message"] == f'ListOptions.meta.k8s.io "" is invalid: {joined}'
    assert body["reason"] == "Invalid"
    assert body["details"] == {
        "name": "",
        "group": "meta.k8s.io",
        "kind": "ListOptions",
        "causes": [
            {"reason": reason, "message": message, "field": "resourceVersionMatch"}
            for reason, message in causes
        ],
    }


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "resourceVersion=abc",
            'invalid resource version: resourceVersion: Invalid value: "abc": '
            'strconv.ParseUint: parsing "abc": invalid syntax',
        ),
        (
            "resourceVersion=-1&resourceVersionMatch=NotOlderThan",
            'invalid resource version: resourceVersion: Invalid value: "-1": '
            'strconv.ParseUint: parsing "-1": invalid syntax',
        ),
        (
            "resourceVersion=99999999999999999999&resourceVersionMatch=Exact",
            'invalid resource version: resourceVersion: Invalid value: "99999999999999999999": '
            'strconv.ParseUint: parsing "99999999999999999999": value out of range',
        ),
        (
            "resourceVersion=2&continue=abc",
            "specifying resource version is not allowed when using continue",
        ),
    ],
    ids=["not-a-number", "negative", "out-of-range", "version-with-continue"],
)
def test_bad_resource_versions_are_400(history: TestClient, query: str, message: str) -> None:
    response = history.get(f"{RS}?{query}")
    assert response.status_code == 400
    assert response.json()["message"] == message
    assert response.json()["reason"] == "BadRequest"


def test_continue_with_resource_version_zero_is_allowed(history: TestClient, base: int) -> None:
    first = history.get(f"{RS}?resourceVersion={base + 3}&limit=1").json()
    token = first["metadata"]["continue"]
    rest = history.get(f"{RS}?limit=1&resourceVersion=0&continue={token}")
    assert rest.status_code == 200
    assert served(rest.json()) == [("web", 5)]


# -- waiting: on virtual time, through the ASGI app --------------------------------------


def run_virtual(main: Callable[[httpx.AsyncClient, MemoryStore], Coroutine[Any, Any, T]]) -> T:
    """Run ``main(client, store)`` against a fresh app on a virtual-time loop."""
    loop = VirtualTimeLoop()

    class LoopClock:
        def now(self) -> datetime:
            return datetime(2026, 1, 1, tzinfo=UTC)

    async def wrapper() -> T:
        store = MemoryStore(LoopClock())
        app = create_app(store, clock=LoopClock())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await main(client, store)

    try:
        return loop.run_until_complete(wrapper())
    finally:
        loop.close()


_RS_BODY: JSON = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "late"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "late"}},
        "template": {
            "metadata": {"labels": {"app": "late"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    },
}


@pytest.mark.parametrize(
    "query",
    [
        "resourceVersion={5}",
        "resourceVersion={5}&resourceVersionMatch=NotOlderThan",
        "resourceVersion={5}&resourceVersionMatch=Exact",
        "resourceVersion={5}&limit=3",
    ],
    ids=["legacy", "not-older-than", "exact", "legacy-exact"],
)
def test_a_revision_never_reached_is_504_after_three_seconds(query: str) -> None:
    async def main(
        client: httpx.AsyncClient, store: MemoryStore
    ) -> tuple[httpx.Response, float, int]:
        base = store.revision
        await client.post(RS, json=_RS_BODY)
        started = _loop_time()
        response = await client.get(f"{RS}?{at(base, query)}")
        return response, _loop_time() - started, base

    response, waited, base = run_virtual(main)
    assert response.status_code == 504
    assert waited == 3.0
    assert response.headers["Retry-After"] == "1"
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"Timeout: Too large resource version: {base + 5}, current: {base + 1}",
        "reason": "Timeout",
        "details": {
            "causes": [
                {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
            ],
            "retryAfterSeconds": 1,
        },
        "code": 504,
    }


def test_a_list_waits_for_the_revision_and_serves_it() -> None:
    async def main(client: httpx.AsyncClient, store: MemoryStore) -> tuple[JSON, float, int]:
        base = store.revision
        started = _loop_time()
        listing = asyncio.ensure_future(client.get(f"{RS}?resourceVersion={base + 1}"))
        await asyncio.sleep(2.0)
        assert not listing.done()  # never older data: it waits
        await client.post(RS, json=_RS_BODY)
        response = await listing
        assert response.status_code == 200
        return response.json(), _loop_time() - started, base

    body, waited, base = run_virtual(main)
    assert body["metadata"]["resourceVersion"] == str(base + 1)
    assert [i["metadata"]["name"] for i in body["items"]] == ["late"]
    assert waited == 2.0


def _loop_time() -> float:
    return asyncio.get_running_loop().time()
