"""/livez, /readyz and /healthz as upstream's healthz handlers answer (podscale.apiserver
.health): terse ``ok``, ``?verbose`` listings, failures always verbose with the reason
withheld, ``?exclude``, per-check paths; readiness checks come from the server state."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.health import HealthCheck, render_health
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

OK = HealthCheck("controller/replicaset", lambda: None)
BROKEN = HealthCheck("simulated/node-heartbeats", lambda: "restarting after a failure: boom")


@pytest.mark.parametrize(
    ("endpoint", "verbose", "excluded", "readiness", "status", "body"),
    [
        ("readyz", False, [], [OK], 200, "ok"),
        (
            "readyz",
            True,
            [],
            [OK],
            200,
            "[+]ping ok\n[+]controller/replicaset ok\nreadyz check passed\n",
        ),
        (
            "readyz",
            False,
            [],
            [OK, BROKEN],
            500,
            "[+]ping ok\n[+]controller/replicaset ok\n"
            "[-]simulated/node-heartbeats failed: reason withheld\nreadyz check failed\n",
        ),
        (
            "readyz",
            True,
            ["simulated/node-heartbeats", "nope", "also-nope"],
            [OK, BROKEN],
            200,
            "[+]ping ok\n[+]controller/replicaset ok\n"
            "[+]simulated/node-heartbeats excluded: ok\n"
            'warn: some health checks cannot be excluded: no matches for "also-nope","nope"\n'
            "readyz check passed\n",
        ),
        ("livez", True, [], [OK, BROKEN], 200, "[+]ping ok\nlivez check passed\n"),
        ("healthz", False, [], [BROKEN], 200, "ok"),
    ],
    ids=[
        "ready",
        "ready-verbose",
        "failure-is-always-verbose",
        "exclude-and-unmatched",
        "livez-ignores-readiness",
        "healthz-ignores-readiness",
    ],
)
def test_render_health(
    endpoint: str,
    verbose: bool,
    excluded: list[str],
    readiness: list[HealthCheck],
    status: int,
    body: str,
) -> None:
    answer = render_health(endpoint, None, verbose=verbose, excluded=excluded, readiness=readiness)
    assert answer is not None
    assert (answer.status, answer.body) == (status, body)


@pytest.mark.parametrize(
    ("name", "status", "body"),
    [
        ("ping", 200, "ok"),
        ("controller/replicaset", 200, "ok"),
        (
            "simulated/node-heartbeats",
            500,
            "internal server error: restarting after a failure: boom\n",
        ),
    ],
    ids=["ping", "ok-check", "failing-check-tells-its-reason"],
)
def test_one_check(name: str, status: int, body: str) -> None:
    answer = render_health("readyz", name, verbose=False, excluded=[], readiness=[OK, BROKEN])
    assert answer is not None
    assert (answer.status, answer.body) == (status, body)
    assert render_health("readyz", "nope", verbose=False, excluded=[], readiness=[OK]) is None


def test_readiness_sources_are_asked_on_every_request() -> None:
    clock = FakeClock()
    app = create_app(MemoryStore(clock), clock=clock)
    broken = {"now": False}
    check = HealthCheck("part", lambda: "down" if broken["now"] else None)
    app.state.podscale.readiness_sources.append(lambda: [check])
    client = TestClient(app)
    assert (client.get("/readyz").status_code, client.get("/readyz").text) == (200, "ok")
    broken["now"] = True
    failed = client.get("/readyz", params={"verbose": ""})
    assert failed.status_code == 500
    assert failed.text == "[+]ping ok\n[-]part failed: reason withheld\nreadyz check failed\n"
    assert failed.headers["content-type"] == "text/plain; charset=utf-8"
    assert failed.headers["x-content-type-options"] == "nosniff"
    assert (client.get("/livez").status_code, client.get("/livez").text) == (200, "ok")
    one = client.get("/readyz/part")
    assert (one.status_code, one.text) == (500, "internal server error: down\n")
    assert client.get("/readyz/unknown").status_code == 404
    excluded = client.get("/readyz?exclude=part")
    assert (excluded.status_code, excluded.text) == (200, "ok")
