"""pods/binding: how a scheduler assigns a pod to a node (upstream's BindingREST).

Through the in-process client (``create(..., subresource="binding")``) for the semantics and
errors, and through the app (TestClient) for what only HTTP has: the name on the URL, the
verbs the route refuses, the 201 reply, Warning headers and discovery.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.apiserver.operations.binding import validate_binding
from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
T = TypeVar("T")
POD = kind_for("v1", "Pod")
NS = "default"
START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
PODS = "/api/v1/namespaces/default/pods"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def run(coro: Awaitable[T]) -> T:
    async def wrapper() -> T:
        return await asyncio.wait_for(coro, 5.0)

    return asyncio.run(wrapper())


def make_api() -> tuple[InProcessApi, FakeClock]:
    clock = FakeClock(START)
    return InProcessApi.for_store(MemoryStore(clock), clock), clock


def pod(name: str = "p", **spec: Any) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web", "zone": "old"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def binding(name: str = "p", node: str = "n1", **meta: Any) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": name, **meta},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


def bind(api: InProcessApi, body: JSON) -> JSON:
    return run(api.create(POD, NS, body, subresource="binding"))


def api_error(action: Callable[[], Awaitable[Any]]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        run(action())
    return caught.value


def set_status(api: InProcessApi, status: JSON) -> None:
    current = run(api.get(POD, NS, "p"))
    current["status"] = {**current["status"], **status}
    run(api.update(POD, NS, current, subresource="status"))


# -- success --------------------------------------------------------------------------------


def test_binding_sets_node_and_scheduled_condition_in_one_write() -> None:
    api, clock = make_api()
    created = run(api.create(POD, NS, pod()))
    clock.advance(30)
    assert bind(api, binding()) == SUCCESS
    bound = run(api.get(POD, NS, "p"))
    assert bound["spec"]["nodeName"] == "n1"
    assert bound["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": "2026-01-02T03:04:35Z",
        }
    ]
    assert (
        int(bound["metadata"]["resourceVersion"]) == int(created["metadata"]["resourceVersion"]) + 1
    )
    # Nothing else of the pod changes.
    assert bound["spec"]["containers"] == created["spec"]["containers"]
    assert bound["metadata"]["labels"] == created["metadata"]["labels"]
    assert "annotations" not in bound["metadata"]


@pytest.mark.parametrize(
    ("meta", "labels", "annotations"),
    [
        ({}, {"app": "web", "zone": "old"}, None),
        (
            {"annotations": {"scheduler/score": "7"}},
            {"app": "web", "zone": "old"},
            {"keep": "1", "scheduler/score": "7"},
        ),
        (
            {"labels": {"zone": "z1", "region": "r1"}},
            {"app": "web", "zone": "z1", "region": "r1"},
            {"keep": "1"},
        ),
    ],
    ids=["nothing-to-copy", "annotations-merged", "labels-overwrite"],
)
def test_binding_metadata_is_copied_onto_the_pod(
    meta: JSON, labels: JSON, annotations: JSON | None
) -> None:
    api, _ = make_api()
    body = pod()
    if annotations is not None:
        body["metadata"]["annotations"] = {"keep": "1"}
    run(api.create(POD, NS, body))
    bind(api, binding(**meta))
    bound = run(api.get(POD, NS, "p"))
    assert bound["metadata"]["labels"] == labels
    assert bound["metadata"].get("annotations") == annotations


@pytest.mark.parametrize(
    ("previous", "transition"),
    [
        (
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/1 nodes are available",
                "lastTransitionTime": "2026-01-02T03:04:05Z",
            },
            "2026-01-02T03:05:05Z",
        ),
        (
            {
                "type": "PodScheduled",
                "status": "True",
                "lastTransitionTime": "2026-01-02T03:04:05Z",
            },
            "2026-01-02T03:04:05Z",
        ),
    ],
    ids=["was-unschedulable", "already-true-keeps-its-time"],
)
def test_scheduled_condition_replaces_the_previous_one(previous: JSON, transition: str) -> None:
    api, clock = make_api()
    run(api.create(POD, NS, pod()))
    ready = {"type": "Ready", "status": "False", "lastTransitionTime": "2026-01-02T03:04:05Z"}
    set_status(api, {"conditions": [ready, previous], "nominatedNodeName": "n9"})
    clock.advance(60)
    bind(api, binding())
    status = run(api.get(POD, NS, "p"))["status"]
    assert status["conditions"][0] == ready
    assert status["conditions"][1] == {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": transition,
    }
    assert "nominatedNodeName" not in status


def test_an_empty_target_kind_means_node() -> None:
    api, _ = make_api()
    run(api.create(POD, NS, pod()))
    body = binding()
    body["target"] = {"name": "n2"}
    bind(api, body)
    assert run(api.get(POD, NS, "p"))["spec"]["nodeName"] == "n2"


def test_binding_with_the_pods_uid_and_version_succeeds() -> None:
    api, _ = make_api()
    created = run(api.create(POD, NS, pod()))
    meta = created["metadata"]
    bind(api, binding(uid=meta["uid"], resourceVersion=meta["resourceVersion"]))
    assert run(api.get(POD, NS, "p"))["spec"]["nodeName"] == "n1"


def test_dry_run_binds_nothing() -> None:
    api, _ = make_api()
    created = run(api.create(POD, NS, pod()))
    reply = run(api.create(POD, NS, binding(), subresource="binding", dry_run=True))
    assert reply == SUCCESS
    assert run(api.get(POD, NS, "p")) == created


def test_watchers_see_the_bound_pod_as_modified() -> None:
    api, _ = make_api()
    created = run(api.create(POD, NS, pod()))

    async def scenario() -> list[tuple[str, str]]:
        seen: list[tuple[str, str]] = []
        version = created["metadata"]["resourceVersion"]
        events = api.watch(POD, NS, resource_version=version)
        await api.create(POD, NS, binding(), subresource="binding")
        async for event_type, obj in events:
            if event_type != "BOOKMARK":
                seen.append((event_type, obj["spec"].get("nodeName", "")))
                break
        await events.aclose()
        return seen

    assert run(scenario()) == [("MODIFIED", "n1")]


# -- refusals -------------------------------------------------------------------------------


def _bound(api: InProcessApi) -> None:
    run(api.create(POD, NS, pod()))
    bind(api, binding(node="n0"))


def _terminating(api: InProcessApi) -> None:
    body = pod()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    run(api.create(POD, NS, body))
    run(api.delete(POD, NS, "p"))


def _gated(api: InProcessApi) -> None:
    run(api.create(POD, NS, pod(schedulingGates=[{"name": "example.com/wait"}])))


def _unbound(api: InProcessApi) -> None:
    run(api.create(POD, NS, pod()))


@pytest.mark.parametrize(
    ("setup", "body", "code", "reason", "message"),
    [
        (
            _bound,
            binding(),
            409,
            "Conflict",
            'Operation cannot be fulfilled on pods/binding "p": '
            'pod p is already assigned to node "n0"',
        ),
        (
            _terminating,
            binding(),
            409,
            "Conflict",
            'Operation cannot be fulfilled on pods/binding "p": '
            "pod p is being deleted, cannot be assigned to a host",
        ),
        (
            _gated,
            binding(),
            409,
            "Conflict",
            'Operation cannot be fulfilled on pods/binding "p": '
            "pod p has non-empty .spec.schedulingGates",
        ),
        (_unbound, binding("q"), 404, "NotFound", 'pods "q" not found'),
        (
            _unbound,
            binding(resourceVersion="999"),
            409,
            "Conflict",
            'Operation cannot be fulfilled on pods "p": Precondition failed: '
            "ResourceVersion in precondition: 999, ResourceVersion in object meta: "
            f"{len(SYSTEM_NAMESPACES) + 1}",
        ),
        (
            _unbound,
            {**binding(), "target": {"kind": "Node"}},
            422,
            "Invalid",
            'Binding "p" is invalid: target.name: Required value',
        ),
        (
            _unbound,
            {**binding(), "target": {"kind": "Pod", "name": "n1"}},
            422,
            "Invalid",
            'Binding "p" is invalid: '
            'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
        ),
        (
            _unbound,
            {**binding(), "target": {"kind": "Service"}},
            422,
            "Invalid",
            'Binding "p" is invalid: [target.kind: Unsupported value: "Service": '
            'supported values: "Node", "<empty>", target.name: Required value]',
        ),
        (
            _unbound,
            {**binding(), "kind": "Pod"},
            400,
            "BadRequest",
            "the object provided is unrecognized (must be of type Binding): "
            "the kind in the data (Pod) does not match the expected kind (Binding)",
        ),
        (
            _unbound,
            binding(namespace="other"),
            400,
            "BadRequest",
            "the namespace of the provided object does not match the namespace sent on the request",
        ),
        (
            _unbound,
            {**binding(), "target": {"name": 7}},
            400,
            "BadRequest",
            'Binding in version "v1" cannot be handled as a Binding: json: cannot unmarshal '
            "number into Go struct field ObjectReference.target.name of type string",
        ),
    ],
    ids=[
        "already-bound",
        "terminating",
        "scheduling-gated",
        "missing-pod",
        "stale-resource-version",
        "no-target-name",
        "target-not-a-node",
        "both-aggregated",
        "not-a-binding",
        "other-namespace",
        "wrong-value-type",
    ],
)
def test_refused_bindings_leave_the_pod_alone(
    setup: Callable[[InProcessApi], None],
    body: JSON,
    code: int,
    reason: str | None,
    message: str,
) -> None:
    api, _ = make_api()
    setup(api)
    before = run(api.get(POD, NS, "p"))
    err = api_error(lambda: api.create(POD, NS, copy.deepcopy(body), subresource="binding"))
    assert (err.status, err.body.get("reason"), err.body["message"]) == (code, reason, message)
    assert run(api.get(POD, NS, "p")) == before


def test_conflicts_name_the_binding_subresource() -> None:
    api, _ = make_api()
    _bound(api)
    err = api_error(lambda: api.create(POD, NS, binding(), subresource="binding"))
    assert err.body["details"] == {"name": "p", "kind": "pods/binding"}


def test_a_stale_uid_is_a_conflict_on_the_pod() -> None:
    """kube-scheduler sends the pod's uid: a pod recreated under the same name is not bound."""
    api, _ = make_api()
    uid = run(api.create(POD, NS, pod()))["metadata"]["uid"]
    err = api_error(lambda: api.create(POD, NS, binding(uid="x"), subresource="binding"))
    assert (err.status, err.body["reason"]) == (409, "Conflict")
    assert err.body["message"] == (
        'Operation cannot be fulfilled on pods "p": Precondition failed: '
        f"UID in precondition: x, UID in object meta: {uid}"
    )
    assert "nodeName" not in run(api.get(POD, NS, "p"))["spec"]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (lambda api: api.create(POD, NS, binding(), subresource="status"), 405),
        (lambda api: api.create(POD, NS, binding(), subresource="scale"), 404),
        (lambda api: api.create(POD, None, binding(), subresource="binding"), 404),
        (
            lambda api: api.create(kind_for("v1", "Node"), None, binding(), subresource="binding"),
            404,
        ),
        (lambda api: api.update(POD, NS, binding(), subresource="binding"), 405),
        (lambda api: api.get(POD, NS, "p", subresource="binding"), 405),
        (
            lambda api: api.patch(POD, NS, "p", {"target": {"name": "n"}}, subresource="binding"),
            405,
        ),
    ],
    ids=[
        "post-status",
        "post-scale-of-a-pod",
        "no-namespace",
        "nodes-have-no-binding",
        "put-binding",
        "get-binding",
        "patch-binding",
    ],
)
def test_in_process_refuses_what_the_router_refuses(
    action: Callable[[InProcessApi], Awaitable[Any]], code: int
) -> None:
    api, _ = make_api()
    _unbound(api)
    assert api_error(lambda: action(api)).status == code


@given(
    kind=st.sampled_from(["", "Node", "node", "Pod", "Nodes"]),
    name=st.sampled_from(["", "n1", "worker-05"]),
)
def test_validation_accepts_exactly_named_node_targets(kind: str, name: str) -> None:
    errors = validate_binding({"target": {"kind": kind, "name": name}})
    assert (errors == []) == (kind in ("", "Node") and name != "")
    assert [e.field for e in errors] == (["target.kind"] if kind not in ("", "Node") else []) + (
        ["target.name"] if not name else []
    )


# -- over HTTP --------------------------------------------------------------------------------


@pytest.fixture
def http() -> TestClient:
    clock = FakeClock(START)
    client = TestClient(create_app(MemoryStore(clock), clock=clock), raise_server_exceptions=False)
    assert client.post(PODS, json=pod()).status_code == 201
    return client


def test_http_binding_answers_201_with_a_success_status(http: TestClient) -> None:
    response = http.post(f"{PODS}/p/binding", json=binding())
    assert (response.status_code, response.json()) == (201, SUCCESS)
    assert http.get(f"{PODS}/p").json()["spec"]["nodeName"] == "n1"


def test_http_binding_name_must_be_the_urls(http: TestClient) -> None:
    response = http.post(f"{PODS}/p/binding", json=binding("other"))
    assert response.status_code == 400
    assert response.json()["message"] == "name in URL does not match name in Binding object"
    assert "nodeName" not in http.get(f"{PODS}/p").json()["spec"]


def test_http_validation_failure_is_422_not_upstreams_500(http: TestClient) -> None:
    # Upstream answers 500 here (kubernetes/kubernetes#139488); podscale never 500s on input.
    response = http.post(f"{PODS}/p/binding", json={**binding(), "target": {}})
    assert response.status_code == 422
    body = response.json()
    assert body["reason"] == "Invalid"
    assert body["message"] == 'Binding "p" is invalid: target.name: Required value'
    assert body["details"]["causes"][0]["field"] == "target.name"


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("GET", f"{PODS}/p/binding", 405),
        ("PUT", f"{PODS}/p/binding", 405),
        ("DELETE", f"{PODS}/p/binding", 405),
        ("POST", f"{PODS}/p/status", 405),
        ("POST", "/api/v1/pods/p/binding", 404),
        ("POST", "/api/v1/nodes/n1/binding", 404),
    ],
    ids=["get", "put", "delete", "post-status", "all-namespaces", "node"],
)
def test_http_routes_only_post_to_pod_bindings(
    http: TestClient, method: str, path: str, code: int
) -> None:
    response = http.request(method, path, json=binding())
    assert response.status_code == code, response.text


@pytest.mark.parametrize(
    ("mode", "code", "warnings"),
    [
        ("Warn", 201, ['299 - "unknown field \\"target.nodeId\\""']),
        ("Ignore", 201, []),
        ("Strict", 400, []),
    ],
    ids=["warn", "ignore", "strict"],
)
def test_http_unknown_fields_follow_field_validation(
    http: TestClient, mode: str, code: int, warnings: list[str]
) -> None:
    body = binding()
    body["target"]["nodeId"] = "x"
    response = http.post(f"{PODS}/p/binding?fieldValidation={mode}", json=body)
    assert response.status_code == code, response.text
    assert response.headers.get_list("warning") == warnings
    if mode == "Strict":
        assert response.json()["message"] == 'strict decoding error: unknown field "target.nodeId"'


def test_http_dry_run_persists_nothing(http: TestClient) -> None:
    before = http.get(f"{PODS}/p").json()
    response = http.post(f"{PODS}/p/binding?dryRun=All", json=binding())
    assert (response.status_code, response.json()) == (201, SUCCESS)
    assert http.get(f"{PODS}/p").json() == before


def test_discovery_lists_pods_binding_as_create_only(http: TestClient) -> None:
    resources = {r["name"]: r for r in http.get("/api/v1").json()["resources"]}
    assert resources["pods/binding"] == {
        "name": "pods/binding",
        "singularName": "",
        "namespaced": True,
        "kind": "Binding",
        "verbs": ["create"],
    }
    # Subresources stay out of `kubectl api-resources`: no top-level bindings resource.
    assert "bindings" not in resources


def test_openapi_publishes_binding_as_a_post_only_path(http: TestClient) -> None:
    document = http.get("/openapi/v3/api/v1").json()
    item = document["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/binding"]
    assert {key for key in item if key != "parameters"} == {"post"}
    assert item["post"]["x-kubernetes-group-version-kind"] == {
        "group": "",
        "kind": "Binding",
        "version": "v1",
    }
    assert "io.k8s.api.core.v1.Binding" in document["components"]["schemas"]


def test_timestamps_are_the_servers_clock_not_the_wall() -> None:
    api, clock = make_api()
    run(api.create(POD, NS, pod()))
    clock.advance(timedelta(days=3))
    bind(api, binding())
    condition = run(api.get(POD, NS, "p"))["status"]["conditions"][0]
    assert condition["lastTransitionTime"] == "2026-01-05T03:04:05Z"
