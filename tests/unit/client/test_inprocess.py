"""The in-process transport: HttpApi's interface and Status errors, calling the operations
directly over a MemoryStore (create/get/list/update/patch/delete/watch, scale, finalizers)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import all_kinds, kind_for
from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES
from podscale.client.http import ApiError
from podscale.client.informer import Gone
from podscale.client.inprocess import InProcessApi
from podscale.store.interface import Preconditions
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
T = TypeVar("T")

RS = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
HPA_V1 = kind_for("autoscaling/v1", "HorizontalPodAutoscaler")
HPA_V2 = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
NODE = kind_for("v1", "Node")
NAMESPACE = kind_for("v1", "Namespace")


def rv(writes: int) -> str:
    """The resourceVersion of the ``writes``-th write: the API's start created the system
    namespaces first."""
    return str(len(SYSTEM_NAMESPACES) + writes)


def run(coro: Awaitable[T]) -> T:
    async def wrapper() -> T:
        return await asyncio.wait_for(coro, 5.0)

    return asyncio.run(wrapper())


def make_api(history: int = 10_000) -> InProcessApi:
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    return InProcessApi.for_store(MemoryStore(clock, history=history), clock)


def rs(name: str = "web", replicas: int = 2, **labels: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "labels": {"app": name, **labels}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }


def pod(name: str, node: str = "n1", **labels: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
    }


def api_error(action: Callable[[], Awaitable[Any]]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        run(action())
    return caught.value


def test_create_then_get_round_trips_with_server_fields_and_defaults() -> None:
    api = make_api()
    created = run(api.create(RS, "default", rs()))
    meta = created["metadata"]
    assert (meta["namespace"], meta["generation"]) == ("default", 1)
    assert meta["creationTimestamp"] == "2026-01-02T03:04:05Z"
    assert created["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == (
        "IfNotPresent"
    )
    assert created["status"] == {"replicas": 0}
    assert run(api.get(RS, "default", "web")) == created


def test_callers_cannot_change_the_store_through_inputs_or_outputs() -> None:
    api = make_api()
    original = rs()
    sent = copy.deepcopy(original)
    created = run(api.create(RS, "default", sent))
    assert sent == original  # admission worked on a copy
    created["spec"]["replicas"] = 99
    sent["spec"]["replicas"] = 98
    fetched = run(api.get(RS, "default", "web"))
    fetched["metadata"]["labels"]["x"] = "y"
    again = run(api.get(RS, "default", "web"))
    assert again["spec"]["replicas"] == 2
    assert "x" not in again["metadata"]["labels"]


def with_unknown_field() -> JSON:
    obj = rs()
    obj["spec"]["surprise"] = True
    return obj


def test_unknown_fields_pass_by_default_and_fail_when_strict() -> None:
    api = make_api()
    strict = api_error(
        lambda: api.create(RS, "default", with_unknown_field(), field_validation="Strict")
    )
    assert (strict.status, strict.body["message"]) == (
        400,
        'strict decoding error: unknown field "spec.surprise"',
    )
    assert run(api.create(RS, "default", with_unknown_field()))["metadata"]["name"] == "web"


def test_missing_object_is_upstream_not_found_status() -> None:
    err = api_error(lambda: make_api().get(RS, "default", "nosuch"))
    assert err.status == 404
    assert err.body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'replicasets.apps "nosuch" not found',
        "reason": "NotFound",
        "details": {"name": "nosuch", "group": "apps", "kind": "replicasets"},
        "code": 404,
    }


@pytest.mark.parametrize(
    ("action", "code", "reason"),
    [
        (lambda api: api.get(RS, None, "web"), 404, "NotFound"),
        (lambda api: api.create(RS, None, rs()), 405, "MethodNotAllowed"),
        (lambda api: api.get(RS, "default", "web", "log"), 404, "NotFound"),
        (lambda api: api.patch(RS, "default", "web", {}, subresource="log"), 404, "NotFound"),
        (lambda api: api.update(POD, "default", pod("p"), "scale"), 404, "NotFound"),
        (lambda api: api.create(RS, "default", rs(replicas=-1)), 422, "Invalid"),
        (lambda api: api.create(RS, "other", {**rs(), "metadata": {
            "name": "x", "namespace": "default"}}), 400, "BadRequest"),
        (lambda api: api.create(RS, "default", rs(), field_validation="Bogus"), 400, "BadRequest"),
        (lambda api: api.list(POD, "default", field_selector="spec.image=x"), 400, "BadRequest"),
        (lambda api: api.list(POD, "default", label_selector="a in (b"), 400, "BadRequest"),
        (lambda api: api.delete(RS, "default", "web", propagation="Sideways"), 422, "Invalid"),
    ],
    ids=[
        "namespaced-object-without-namespace",
        "create-on-all-namespaces",
        "unknown-subresource",
        "patch-unknown-subresource",
        "scale-of-a-pod",
        "invalid-object",
        "namespace-mismatch",
        "bad-field-validation",
        "unsupported-field-label",
        "bad-label-selector",
        "unknown-propagation-policy",
    ],
)  # fmt: skip
def test_refusals_carry_the_servers_status(
    action: Callable[[InProcessApi], Awaitable[Any]], code: int, reason: str
) -> None:
    api = make_api()
    run(api.create(RS, "default", rs()))
    err = api_error(lambda: action(api))
    assert (err.status, err.reason, err.body["code"]) == (code, reason, code)


def test_list_filters_by_label_and_field_selectors_across_namespaces() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, {"metadata": {"name": "other"}}))
    run(api.create(POD, "default", pod("a", "n1", tier="web")))
    run(api.create(POD, "default", pod("b", "n2", tier="web")))
    run(api.create(POD, "other", pod("c", "n1", tier="db")))
    everywhere = run(api.list(POD))
    assert [i["metadata"]["name"] for i in everywhere["items"]] == ["a", "b", "c"]
    assert everywhere["kind"] == "PodList"
    assert everywhere["metadata"]["resourceVersion"] == rv(4)
    web = run(api.list(POD, "default", label_selector="tier=web"))
    assert [i["metadata"]["name"] for i in web["items"]] == ["a", "b"]
    running = run(api.list(POD, None, field_selector="spec.nodeName=n1"))
    assert [i["metadata"]["name"] for i in running["items"]] == ["a", "c"]
    assert all(i["kind"] == "Pod" for i in running["items"])


def test_list_pages_with_limit_and_continue() -> None:
    api = make_api()
    for name in ("a", "b", "c"):
        run(api.create(RS, "default", rs(name)))
    first = run(api.list(RS, "default", limit=2))
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    assert first["metadata"]["remainingItemCount"] == 1
    rest = run(api.list(RS, "default", continue_token=first["metadata"]["continue"]))
    assert [i["metadata"]["name"] for i in rest["items"]] == ["c"]


def test_stale_update_is_upstream_conflict() -> None:
    api = make_api()
    created = run(api.create(RS, "default", rs()))
    first = copy.deepcopy(created)
    first["spec"]["replicas"] = 3
    run(api.update(RS, "default", first))
    created["spec"]["replicas"] = 4
    err = api_error(lambda: api.update(RS, "default", created))
    assert err.status == 409
    assert err.body["message"] == (
        'Operation cannot be fulfilled on replicasets.apps "web": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert run(api.get(RS, "default", "web"))["spec"]["replicas"] == 3


def test_patch_on_scale_sets_the_parents_replicas() -> None:
    api = make_api()
    run(api.create(RS, "default", rs()))
    scale = run(api.patch(RS, "default", "web", {"spec": {"replicas": 5}}, subresource="scale"))
    assert (scale["kind"], scale["spec"], scale["status"]["selector"]) == (
        "Scale",
        {"replicas": 5},
        "app=web",
    )
    assert run(api.get(RS, "default", "web"))["spec"]["replicas"] == 5
    assert run(api.get(RS, "default", "web", "scale"))["spec"]["replicas"] == 5


def test_status_update_changes_only_status() -> None:
    api = make_api()
    created = run(api.create(RS, "default", rs()))
    created["status"] = {"replicas": 2, "readyReplicas": 1}
    created["spec"]["replicas"] = 7
    updated = run(api.update(RS, "default", created, "status"))
    assert updated["status"]["readyReplicas"] == 1
    assert updated["spec"]["replicas"] == 2


def test_delete_with_finalizers_waits_then_goes_when_they_are_removed() -> None:
    api = make_api()
    obj = rs()
    obj["metadata"]["finalizers"] = ["example.com/hold"]
    run(api.create(RS, "default", obj))
    pending = run(api.delete(RS, "default", "web", propagation="Orphan"))
    assert pending["metadata"]["deletionTimestamp"] == "2026-01-02T03:04:05Z"
    assert pending["metadata"]["finalizers"] == ["example.com/hold", "orphan"]
    pending["metadata"]["finalizers"] = []
    run(api.update(RS, "default", pending))
    assert api_error(lambda: api.get(RS, "default", "web")).status == 404


def test_delete_answers_status_for_workloads_and_the_object_for_pods() -> None:
    api = make_api()
    created = run(api.create(RS, "default", rs()))
    run(api.create(POD, "default", pod("p")))
    status = run(api.delete(RS, "default", "web"))
    assert (status["kind"], status["status"]) == ("Status", "Success")
    assert status["details"] == {
        "name": "web",
        "group": "apps",
        "kind": "replicasets",
        "uid": created["metadata"]["uid"],
    }
    assert run(api.delete(POD, "default", "p"))["kind"] == "Pod"


def test_delete_precondition_mismatch_is_conflict() -> None:
    api = make_api()
    run(api.create(RS, "default", rs()))
    err = api_error(
        lambda: api.delete(RS, "default", "web", preconditions=Preconditions(uid="other"))
    )
    assert err.status == 409
    assert "Precondition failed: UID in precondition: other" in err.body["message"]


def test_dry_run_create_validates_but_stores_nothing() -> None:
    api = make_api()
    answered = run(api.create(RS, "default", rs(), dry_run=True))
    assert answered["metadata"]["name"] == "web"
    assert api_error(lambda: api.get(RS, "default", "web")).status == 404


def test_hpa_written_as_v1_reads_back_as_v2() -> None:
    api = make_api()
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
            "maxReplicas": 4,
            "targetCPUUtilizationPercentage": 70,
        },
    }
    run(api.create(HPA_V1, "default", hpa))
    v2 = run(api.get(HPA_V2, "default", "web"))
    metric = v2["spec"]["metrics"][0]["resource"]
    assert metric == {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}
    assert v2["status"]["desiredReplicas"] == 0


def test_cluster_kinds_ignore_a_namespace() -> None:
    api = make_api()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    run(api.create(NODE, None, node))
    assert run(api.get(NODE, "default", "n1"))["metadata"].get("namespace") is None


async def _collect(
    api: InProcessApi, opened: asyncio.Event, count: int, **kwargs: Any
) -> list[Any]:
    """The first ``count`` non-BOOKMARK events; ``opened`` is set at the first event of any
    type (a BOOKMARK proves the watch is open, so writes after it are live events)."""
    seen: list[Any] = []
    async for event_type, obj in api.watch(RS, "default", **kwargs):
        opened.set()
        if event_type == "BOOKMARK":
            continue
        seen.append((event_type, obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))
        if len(seen) == count:
            break
    return seen


def fast_bookmarks_api() -> InProcessApi:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    return InProcessApi.for_store(MemoryStore(clock), clock, bookmark_interval=0.001)


def test_watch_replays_then_follows_changes() -> None:
    api = fast_bookmarks_api()

    async def scenario() -> list[Any]:
        await api.create(RS, "default", rs("a"))
        opened = asyncio.Event()
        watching = asyncio.create_task(_collect(api, opened, 4))
        await opened.wait()
        await api.create(RS, "default", rs("b"))
        await api.patch(RS, "default", "b", {"spec": {"replicas": 3}})
        await api.delete(RS, "default", "a")
        return await watching

    assert run(scenario()) == [
        ("ADDED", "a", rv(1)),
        ("ADDED", "b", rv(2)),
        ("MODIFIED", "b", rv(3)),
        ("DELETED", "a", rv(4)),
    ]


def test_watch_from_a_version_delivers_only_later_changes() -> None:
    api = make_api()

    async def scenario() -> list[Any]:
        await api.create(RS, "default", rs("a"))
        await api.create(RS, "default", rs("b"))
        await api.delete(RS, "default", "a")
        return await _collect(api, asyncio.Event(), 2, resource_version=rv(1))

    assert run(scenario()) == [("ADDED", "b", rv(2)), ("DELETED", "a", rv(3))]


def test_watch_reports_an_object_leaving_the_selector_as_deleted() -> None:
    api = fast_bookmarks_api()

    async def scenario() -> list[Any]:
        await api.create(RS, "default", rs("a", tier="web"))
        await api.create(RS, "default", rs("b", tier="db"))
        opened = asyncio.Event()
        watching = asyncio.create_task(
            _collect(api, opened, 3, label_selector="tier=web", resource_version=rv(2))
        )
        await opened.wait()
        await api.patch(RS, "default", "b", {"metadata": {"labels": {"tier": "web"}}})
        await api.patch(RS, "default", "a", {"metadata": {"labels": {"tier": "db"}}})
        await api.patch(RS, "default", "a", {"spec": {"replicas": 5}})
        await api.patch(RS, "default", "b", {"spec": {"replicas": 5}})
        return await watching

    assert run(scenario()) == [
        ("ADDED", "b", rv(3)),
        ("DELETED", "a", rv(4)),
        ("MODIFIED", "b", rv(6)),
    ]


def test_selector_watch_from_a_version_knows_what_matched_then() -> None:
    """Changes made after the version but before the watch opens are still judged against
    the state at that version: ``a`` left the selector (DELETED), ``b`` entered it (ADDED)."""
    api = make_api()

    async def scenario() -> list[Any]:
        await api.create(RS, "default", rs("a", tier="web"))
        await api.create(RS, "default", rs("b", tier="db"))
        await api.patch(RS, "default", "a", {"metadata": {"labels": {"tier": "db"}}})
        await api.patch(RS, "default", "b", {"metadata": {"labels": {"tier": "web"}}})
        await api.patch(RS, "default", "a", {"spec": {"replicas": 9}})
        await api.patch(RS, "default", "b", {"spec": {"replicas": 9}})
        return await _collect(
            api, asyncio.Event(), 3, label_selector="tier=web", resource_version=rv(2)
        )

    assert run(scenario()) == [
        ("DELETED", "a", rv(3)),
        ("ADDED", "b", rv(4)),
        ("MODIFIED", "b", rv(6)),
    ]


def test_watch_from_expired_version_raises_gone() -> None:
    api = make_api(history=2)

    async def scenario() -> None:
        for name in ("a", "b", "c", "d"):
            await api.create(RS, "default", rs(name))
        async for _ in api.watch(RS, "default", resource_version="1"):
            pass

    with pytest.raises(Gone, match="too old resource version: 1"):
        run(scenario())


def test_watch_sends_bookmarks_when_idle_and_stops_at_its_timeout() -> None:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    api = InProcessApi.for_store(MemoryStore(clock), clock, bookmark_interval=0.01)

    async def scenario() -> list[tuple[str, JSON]]:
        await api.create(RS, "default", rs())
        events: list[tuple[str, JSON]] = []
        async for event in api.watch(RS, "default", resource_version=rv(1), timeout_seconds=1):
            events.append(event)
            break
        return events

    assert run(scenario()) == [
        (
            "BOOKMARK",
            {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"resourceVersion": rv(1)}},
        )
    ]


def test_watch_with_bad_resource_version_is_bad_request() -> None:
    api = make_api()

    async def scenario() -> None:
        async for _ in api.watch(RS, "default", resource_version="abc"):
            pass

    err = api_error(scenario)
    assert err.body["message"] == 'resourceVersion: Invalid value: "abc": must be an integer'


def _scanned_mappings(group: str, kind: str) -> list[Any]:
    # ``rest_mappings``' general reading of the built-in kinds: every top-level kind of the
    # group and kind, the preferred version first (stably).
    found = [i for i in all_kinds() if i.top_level and i.group == group and i.kind == kind]
    return sorted(found, key=lambda info: not info.preferred)


_MAPPED = [*sorted({(i.group, i.kind) for i in all_kinds()}), ("apps", "Nope"), ("x.io", "Pod")]


@pytest.mark.parametrize(("group", "kind"), _MAPPED, ids=[f"{g or 'core'}/{k}" for g, k in _MAPPED])
def test_rest_mappings_of_built_in_kinds_are_the_scan_of_all_kinds(group: str, kind: str) -> None:
    # The mappings kept per (group, kind) at import are the scan's, in its order, and each
    # caller gets a list of its own.
    api = make_api()
    first = run(api.rest_mappings(group, kind))
    assert first == _scanned_mappings(group, kind)
    first.append(None)  # type: ignore[arg-type]
    assert run(api.rest_mappings(group, kind)) == _scanned_mappings(group, kind)
