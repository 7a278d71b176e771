"""Graceful deletion of pods through the HTTP API and the in-process client, as upstream's
pod strategy (``CheckGracefulDelete``) and ``rest.BeforeDelete`` decide it; plus the pure
plan and the store's acceptance of a graceful mark. The clock is fixed at 03:04:05."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.api.kinds import kind_for
from podscale.apiserver.operations.graceful import grace_period_for, plan_graceful_delete
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.interface import Preconditions
from podscale.store.memory import MemoryStore
from podscale.store.objects import is_finalized, stamp_updated

JSON = dict[str, Any]
PODS = "/api/v1/namespaces/default/pods"
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _create(client: TestClient, pod: JSON) -> JSON:
    response = client.post(PODS, json=pod)
    assert response.status_code == 201, response.text
    created: JSON = response.json()
    return created


@pytest.mark.parametrize(
    ("grace_spec", "node", "url_suffix", "body", "expected"),
    [
        (None, "n1", "", None, ("2026-01-02T03:04:35Z", 30)),
        (10, "n1", "", None, ("2026-01-02T03:04:15Z", 10)),
        (None, "n1", "?gracePeriodSeconds=5", None, ("2026-01-02T03:04:10Z", 5)),
        (
            None,
            "n1",
            "?gracePeriodSeconds=5",
            {"gracePeriodSeconds": 7},
            ("2026-01-02T03:04:12Z", 7),
        ),
        (None, "n1", "?gracePeriodSeconds=-3", None, ("2026-01-02T03:04:06Z", 1)),
        (None, "n1", "?gracePeriodSeconds=0", None, None),
        (None, "n1", "", {"gracePeriodSeconds": 0}, None),
        (0, "n1", "", None, None),
        (None, "", "", None, None),
        (None, "", "?gracePeriodSeconds=30", None, None),
    ],
    ids=[
        "default-30",
        "spec-grace",
        "query-grace",
        "body-wins",
        "negative-is-1",
        "query-zero-immediate",
        "body-zero-immediate",
        "spec-zero-immediate",
        "unscheduled-immediate",
        "unscheduled-ignores-grace",
    ],
)
def test_first_delete_marks_a_bound_pod_or_deletes_it_now(
    client: TestClient,
    make_pod: Callable[..., JSON],
    grace_spec: int | None,
    node: str,
    url_suffix: str,
    body: JSON | None,
    expected: tuple[str, int] | None,
) -> None:
    pod = make_pod("a", node=node)
    if grace_spec is not None:
        pod["spec"]["terminationGracePeriodSeconds"] = grace_spec
    created = _create(client, pod)
    kwargs: dict[str, Any] = {"json": body} if body is not None else {}
    response = client.request("DELETE", f"{PODS}/a{url_suffix}", **kwargs)
    assert response.status_code == 200
    reply = response.json()
    assert reply["kind"] == "Pod"
    stored = client.get(f"{PODS}/a")
    if expected is None:
        assert stored.status_code == 404
        assert "deletionGracePeriodSeconds" not in reply["metadata"]
        return
    meta = stored.json()["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == expected
    assert meta["generation"] == created["metadata"]["generation"] + 1
    assert reply["metadata"]["deletionTimestamp"] == expected[0]
    assert reply["metadata"]["resourceVersion"] == meta["resourceVersion"]


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ("", ("2026-01-02T03:04:35Z", 30)),
        ("?gracePeriodSeconds=30", ("2026-01-02T03:04:35Z", 30)),
        ("?gracePeriodSeconds=60", ("2026-01-02T03:04:35Z", 30)),
        ("?gracePeriodSeconds=10", ("2026-01-02T03:04:15Z", 10)),
        ("?gracePeriodSeconds=0", None),
    ],
    ids=["repeat", "equal", "longer-ignored", "shorter-moves-deadline", "zero-deletes"],
)
def test_second_delete_may_only_shorten_the_grace_period(
    client: TestClient,
    clock: Any,
    make_pod: Callable[..., JSON],
    second: str,
    expected: tuple[str, int] | None,
) -> None:
    _create(client, make_pod("a"))
    first = client.delete(f"{PODS}/a").json()
    clock.current = datetime(2026, 1, 2, 3, 4, 20, tzinfo=UTC)  # 15 s later
    response = client.delete(f"{PODS}/a{second}")
    assert response.status_code == 200
    stored = client.get(f"{PODS}/a")
    if expected is None:
        assert stored.status_code == 404
        return
    meta = stored.json()["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == expected
    assert meta["generation"] == first["metadata"]["generation"]  # bumped once only
    if expected[1] == 30:
        assert meta["resourceVersion"] == first["metadata"]["resourceVersion"]  # no write


def test_status_writes_keep_a_terminating_pod_until_the_grace_zero_delete(
    client: TestClient, make_pod: Callable[..., JSON]
) -> None:
    _create(client, make_pod("a"))
    marked = client.delete(f"{PODS}/a").json()
    marked["status"] = {"phase": "Succeeded"}
    response = client.put(f"{PODS}/a/status", json=marked)
    assert response.status_code == 200, response.text
    assert response.json()["metadata"]["deletionGracePeriodSeconds"] == 30
    wrong_uid = {"gracePeriodSeconds": 0, "preconditions": {"uid": "other"}}
    assert client.request("DELETE", f"{PODS}/a", json=wrong_uid).status_code == 409
    uid = marked["metadata"]["uid"]
    final = {"gracePeriodSeconds": 0, "preconditions": {"uid": uid}}
    assert client.request("DELETE", f"{PODS}/a", json=final).status_code == 200
    assert client.get(f"{PODS}/a").status_code == 404


def test_finalizers_keep_the_pod_after_the_grace_zero_delete(
    client: TestClient, make_pod: Callable[..., JSON]
) -> None:
    _create(client, make_pod("a"))
    reply = client.delete(f"{PODS}/a?propagationPolicy=Foreground")
    assert reply.status_code == 200
    meta = reply.json()["metadata"]
    assert (meta["finalizers"], meta["deletionGracePeriodSeconds"]) == (["foregroundDeletion"], 30)
    kept = client.delete(f"{PODS}/a?gracePeriodSeconds=0")
    assert kept.status_code == 202
    assert kept.json()["metadata"]["deletionGracePeriodSeconds"] == 0
    assert client.get(f"{PODS}/a").status_code == 200


@pytest.mark.parametrize(
    ("url", "body", "code"),
    [
        (f"{PODS}/a?gracePeriodSeconds=soon", None, 400),
        (f"{PODS}/a", {"gracePeriodSeconds": "5"}, 400),
        (f"{PODS}/a?dryRun=All", None, 200),
    ],
    ids=["query-not-an-integer", "body-not-an-integer", "dry-run-writes-nothing"],
)
def test_bad_grace_or_dry_run_leaves_the_pod_alone(
    client: TestClient, make_pod: Callable[..., JSON], url: str, body: JSON | None, code: int
) -> None:
    _create(client, make_pod("a"))
    kwargs: dict[str, Any] = {"json": body} if body is not None else {}
    assert client.request("DELETE", url, **kwargs).status_code == code
    assert "deletionTimestamp" not in client.get(f"{PODS}/a").json()["metadata"]


def test_delete_collection_marks_bound_pods_and_deletes_pending_ones(
    client: TestClient, make_pod: Callable[..., JSON]
) -> None:
    _create(client, make_pod("bound", app="x"))
    _create(client, make_pod("pending", node="", app="x"))
    response = client.delete(f"{PODS}?labelSelector=app%3Dx")
    assert response.status_code == 200
    assert sorted(item["metadata"]["name"] for item in response.json()["items"]) == [
        "bound",
        "pending",
    ]
    names = [item["metadata"]["name"] for item in client.get(PODS).json()["items"]]
    assert names == ["bound"]
    assert client.get(f"{PODS}/bound").json()["metadata"]["deletionGracePeriodSeconds"] == 30


def test_in_process_client_passes_the_grace_period(make_pod: Callable[..., JSON]) -> None:
    class Clock:
        def now(self) -> datetime:
            return NOW

    clock = Clock()
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    pod_kind = kind_for("v1", "Pod")

    async def scenario() -> JSON:
        await api.create(pod_kind, "default", make_pod("a"))
        marked = await api.delete(pod_kind, "default", "a")
        assert marked["metadata"]["deletionGracePeriodSeconds"] == 30
        uid = str(marked["metadata"]["uid"])
        await api.delete(
            pod_kind, "default", "a", preconditions=Preconditions(uid=uid), grace_period_seconds=0
        )
        with pytest.raises(ApiError) as caught:
            await api.get(pod_kind, "default", "a")
        assert caught.value.status == 404
        return marked

    asyncio.run(asyncio.wait_for(scenario(), 5.0))


@pytest.mark.parametrize(
    ("spec", "status", "requested", "expected"),
    [
        ({"nodeName": "n"}, {}, None, 30),
        ({"nodeName": "n", "terminationGracePeriodSeconds": 3}, {}, None, 3),
        ({"nodeName": "n", "terminationGracePeriodSeconds": 3}, {}, 9, 9),
        ({"nodeName": "n"}, {"phase": "Succeeded"}, 9, 0),
        ({"nodeName": "n"}, {"phase": "Failed"}, None, 0),
        ({"nodeName": "n"}, {"phase": "Running"}, -5, 1),
        ({}, {"phase": "Running"}, 9, 0),
    ],
    ids=["default", "spec", "requested", "succeeded", "failed", "negative", "unbound"],
)
def test_grace_period_for_follows_check_graceful_delete(
    spec: JSON, status: JSON, requested: int | None, expected: int
) -> None:
    assert grace_period_for({"spec": spec, "status": status}, requested) == expected


@given(
    first=st.integers(min_value=1, max_value=3600),
    second=st.one_of(st.none(), st.integers(min_value=-10, max_value=7200)),
)
def test_a_second_delete_never_extends_the_deadline(first: int, second: int | None) -> None:
    pod: JSON = {"metadata": {"name": "a"}, "spec": {"nodeName": "n"}, "status": {}}
    marked = plan_graceful_delete(pod, first, NOW).marked
    assert marked is not None
    again = plan_graceful_delete(marked, second, NOW)
    if again.immediate:
        assert second is not None
        assert second <= 0
        return
    if again.marked is None:
        assert second is None or second >= first
        return
    old_meta, new_meta = marked["metadata"], again.marked["metadata"]
    assert new_meta["deletionTimestamp"] < old_meta["deletionTimestamp"]
    assert new_meta["deletionGracePeriodSeconds"] == second
    # The store takes exactly this shortening through an ordinary update.
    written = stamp_updated(marked, again.marked, revision=9)
    assert written["metadata"]["deletionTimestamp"] == new_meta["deletionTimestamp"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({}, {"deletionTimestamp": "t2", "deletionGracePeriodSeconds": 5}, ("t2", 5)),
        ({}, {"deletionTimestamp": "t2", "deletionGracePeriodSeconds": 0}, (None, None)),
        (
            {"deletionTimestamp": "t1", "deletionGracePeriodSeconds": 5},
            {"deletionTimestamp": "t2", "deletionGracePeriodSeconds": 9},
            ("t1", 5),
        ),
        (
            {"deletionTimestamp": "t1", "deletionGracePeriodSeconds": 0},
            {"deletionTimestamp": "t2", "deletionGracePeriodSeconds": 1},
            ("t1", 0),
        ),
    ],
    ids=["starts", "zero-ignored", "longer-ignored", "finalizer-mark-kept"],
)
def test_store_update_accepts_only_a_starting_or_shorter_grace(
    old: JSON, new: JSON, expected: tuple[str | None, int | None]
) -> None:
    stored = {"metadata": {"name": "a", "uid": "u", "finalizers": ["f"], **old}}
    written = stamp_updated(stored, {"metadata": {"name": "a", **new}}, revision=3)
    meta = written["metadata"]
    assert (meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")) == expected


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"deletionTimestamp": "t", "deletionGracePeriodSeconds": 30}, False),
        ({"deletionTimestamp": "t", "deletionGracePeriodSeconds": 0}, True),
    ],
    ids=["grace-pending-stays", "grace-zero-goes"],
)
def test_is_finalized_waits_for_a_pending_grace_period(meta: JSON, expected: bool) -> None:
    assert is_finalized({"metadata": meta}) is expected
