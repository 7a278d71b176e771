"""Parity: the same requests over HTTP (Starlette TestClient on ``create_app``) and through
``InProcessApi`` give the same objects and the same Status bodies.

Two stores on the same clock with the same uid sequence replay the same script; every step's
answer (object or failure Status, and its code) must be equal on both transports.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.client.paths import resource_path
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
RS = kind_for("apps/v1", "ReplicaSet")
DEPLOY = kind_for("apps/v1", "Deployment")
POD = kind_for("v1", "Pod")
HPA_V1 = kind_for("autoscaling/v1", "HorizontalPodAutoscaler")
HPA_V2 = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


@dataclass(frozen=True)
class Step:
    """One request: ``verb`` is get/list/create/update/patch/delete; an update's ``name`` is
    its body's (the client API takes the name from the object, as ``HttpApi`` does)."""

    verb: str
    kind: KindInfo
    namespace: str | None = "default"
    name: str = ""
    body: Any = None
    subresource: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/merge-patch+json"


def workload(kind: str, name: str, replicas: int = 2, **labels: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "labels": {"app": name, **labels}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
            },
        },
    }


def stored_rs(name: str, rv: str, uid: str, replicas: int, **extra: Any) -> JSON:
    obj = workload("ReplicaSet", name, replicas)
    obj["metadata"].update(resourceVersion=rv, uid=uid, **extra)
    return obj


HPA_V1_BODY: JSON = {
    "apiVersion": "autoscaling/v1",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 4,
        "targetCPUUtilizationPercentage": 60,
    },
}
POD_BODY: JSON = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p1", "labels": {"app": "web"}},
    "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
}
HELD = workload("ReplicaSet", "held")
HELD["metadata"]["finalizers"] = ["example.com/hold"]

SCRIPT: list[tuple[str, Step]] = [
    ("create-rs", Step("create", RS, body=workload("ReplicaSet", "web", tier="front"))),
    ("create-rs-again", Step("create", RS, body=workload("ReplicaSet", "web"))),
    ("create-invalid", Step("create", RS, body=workload("ReplicaSet", "bad", replicas=-1))),
    ("create-deployment", Step("create", DEPLOY, body=workload("Deployment", "api"))),
    ("create-pod", Step("create", POD, body=POD_BODY)),
    ("create-hpa-v1", Step("create", HPA_V1, body=HPA_V1_BODY)),
    ("create-held", Step("create", RS, body=HELD)),
    ("get-rs", Step("get", RS, name="web")),
    ("get-missing", Step("get", RS, name="nosuch")),
    ("get-hpa-as-v2", Step("get", HPA_V2, name="web")),
    ("get-hpa-as-v1", Step("get", HPA_V1, name="web")),
    ("get-scale", Step("get", DEPLOY, name="api", subresource="scale")),
    ("list-rs", Step("list", RS)),
    ("list-pods-all-namespaces", Step("list", POD, namespace=None)),
    ("list-labels", Step("list", RS, params={"labelSelector": "tier=front"})),
    ("list-fields", Step("list", POD, params={"fieldSelector": "spec.nodeName=n1"})),
    ("list-bad-field", Step("list", POD, params={"fieldSelector": "spec.image=x"})),
    ("list-bad-labels", Step("list", RS, params={"labelSelector": "a in (b"})),
    ("update-rs", Step("update", RS, name="web", body=stored_rs("web", "1", "uid-1", 3))),
    ("update-stale", Step("update", RS, name="web", body=stored_rs("web", "1", "uid-1", 4))),
    ("update-missing", Step("update", RS, name="x", body=stored_rs("x", "", "", 1))),
    ("patch-merge", Step("patch", RS, name="web", body={"spec": {"replicas": 5}})),
    (
        "patch-json",
        Step(
            "patch",
            RS,
            name="web",
            body=[{"op": "replace", "path": "/spec/replicas", "value": 6}],
            content_type="application/json-patch+json",
        ),
    ),
    ("patch-bad-json-patch", Step(
        "patch", RS, name="web", body=[{"op": "nope"}], content_type="application/json-patch+json"
    )),
    ("patch-scale", Step("patch", DEPLOY, name="api", subresource="scale", body={
        "spec": {"replicas": 7}})),
    ("patch-scale-invalid", Step("patch", DEPLOY, name="api", subresource="scale", body={
        "spec": {"replicas": -7}})),
    ("patch-status", Step("patch", RS, name="web", subresource="status", body={
        "status": {"replicas": 6}})),
    ("patch-hpa-v1-status", Step("patch", HPA_V1, name="web", subresource="status", body={
        "status": {"currentReplicas": 2, "desiredReplicas": 3}})),
    ("delete-held", Step("delete", RS, name="held", params={"propagationPolicy": "Foreground"})),
    ("delete-bad-policy", Step("delete", RS, name="web", params={"propagationPolicy": "Nope"})),
    ("delete-pod", Step("delete", POD, name="p1")),
    ("delete-rs", Step("delete", RS, name="web")),
    ("delete-missing", Step("delete", RS, name="web")),
    ("list-after", Step("list", RS)),
]  # fmt: skip


def _http(client: TestClient, step: Step) -> tuple[int, Any]:
    path = resource_path(
        step.kind, step.namespace, step.name or None if step.verb != "create" else None,
        step.subresource,
    )  # fmt: skip
    if step.verb in ("get", "list"):
        response = client.get(path, params=step.params)
    elif step.verb == "create":
        response = client.post(path, json=step.body)
    elif step.verb == "update":
        response = client.put(path, json=step.body)
    elif step.verb == "patch":
        content = orjson.dumps(step.body)
        headers = {"content-type": step.content_type}
        response = client.patch(path, content=content, headers=headers)
    else:
        options = {"kind": "DeleteOptions", "apiVersion": "v1", **step.params}
        response = client.request("DELETE", path, json=options)
    code = 200 if response.status_code < 400 else response.status_code
    return code, response.json()


async def _inprocess(api: InProcessApi, step: Step) -> tuple[int, Any]:
    try:
        if step.verb == "get":
            body = await api.get(step.kind, step.namespace, step.name, step.subresource)
        elif step.verb == "list":
            body = await api.list(
                step.kind,
                step.namespace,
                label_selector=step.params.get("labelSelector"),
                field_selector=step.params.get("fieldSelector"),
            )
        elif step.verb == "create":
            body = await api.create(step.kind, step.namespace, step.body)
        elif step.verb == "update":
            body = await api.update(step.kind, step.namespace, step.body, step.subresource)
        elif step.verb == "patch":
            body = await api.patch(
                step.kind,
                step.namespace,
                step.name,
                step.body,
                content_type=step.content_type,
                subresource=step.subresource,
            )
        else:
            propagation = step.params.get("propagationPolicy")
            body = await api.delete(step.kind, step.namespace, step.name, propagation=propagation)
    except ApiError as err:
        return err.status, err.body
    return 200, body


def _store() -> MemoryStore:
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    counter = itertools.count(1)
    return MemoryStore(clock, new_uid=lambda: f"uid-{next(counter)}")


def _replay() -> list[tuple[str, tuple[int, Any], tuple[int, Any]]]:
    http_store, local_store = _store(), _store()
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    client = TestClient(create_app(http_store, clock=clock), raise_server_exceptions=False)
    # Both sides write as the same field manager, so their managedFields agree too.
    client.headers["user-agent"] = "podscale/test"
    api = InProcessApi.for_store(local_store, clock)

    async def local_all() -> list[tuple[int, Any]]:
        return [await _inprocess(api, step) for _, step in SCRIPT]

    # HTTP first, then in-process: each store sees the same sequence of writes.
    http_answers = [_http(client, step) for _, step in SCRIPT]
    local_answers = asyncio.run(local_all())
    return [
        (label, http, local)
        for (label, _), http, local in zip(SCRIPT, http_answers, local_answers, strict=True)
    ]


_ANSWERS = _replay()


@pytest.mark.parametrize(
    ("label", "http", "local"), _ANSWERS, ids=[label for label, _ in SCRIPT]
)  # fmt: skip
def test_both_transports_answer_alike(
    label: str, http: tuple[int, Any], local: tuple[int, Any]
) -> None:
    assert local == http, label


def test_the_script_exercises_successes_and_every_failure_class() -> None:
    codes = {http[0] for _, http, _ in _ANSWERS}
    assert codes == {200, 400, 404, 409, 422}
