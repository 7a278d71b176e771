"""The ReplicaSet controller's API calls against a scripted fake API: the status write and
its single retry (``updateReplicaSetStatus``), and pod creation when every generated name
is taken (``RealPodControl.CreatePods``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from podscale.client.http import ApiError
from podscale.controllers.replicaset.sync_io import update_replica_set_status
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_pods import PodControl

JSON = dict[str, Any]
NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
CONFLICT: JSON = {"message": "the object has been modified", "reason": "Conflict", "code": 409}
TAKEN: JSON = {"message": 'pods "web-x" already exists', "reason": "AlreadyExists", "code": 409}


class FixedClock:
    def now(self) -> datetime:
        return NOW


class FakeApi:
    """Records every call as (verb, kind, subresource); ``fail`` decides which raise."""

    def __init__(self, fail: Callable[[str, str, JSON | None], ApiError | None]) -> None:
        self.fail = fail
        self.calls: list[tuple[str, str, str | None]] = []
        self.created: list[JSON] = []
        self.fresh: JSON = {}

    def _check(self, verb: str, kind: str, obj: JSON | None) -> None:
        error = self.fail(verb, kind, obj)
        if error is not None:
            raise error

    async def create(self, kind: Any, namespace: str | None, obj: JSON, **_: Any) -> JSON:
        self.calls.append(("create", kind.kind, None))
        self._check("create", kind.kind, obj)
        self.created.append(obj)
        return obj

    async def update(
        self, kind: Any, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        self.calls.append(("update", kind.kind, subresource))
        self._check("update", kind.kind, obj)
        return {**obj, "written": True}

    async def get(self, kind: Any, namespace: str | None, name: str, sub: Any = None) -> JSON:
        self.calls.append(("get", kind.kind, None))
        self._check("get", kind.kind, None)
        return self.fresh


def replica_set(status: JSON) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web", "namespace": "default", "uid": "u1", "generation": 2},
        "spec": {"template": {"metadata": {"labels": {"app": "web"}}}},
        "status": status,
    }


WANTED: JSON = {"replicas": 2, "observedGeneration": 2}


def write(api: FakeApi, rs: JSON) -> JSON:
    return asyncio.run(update_replica_set_status(cast(ControllerApi, api), rs, WANTED))


def test_an_unchanged_status_is_not_written() -> None:
    api = FakeApi(lambda *_: None)
    assert write(api, replica_set(dict(WANTED))) == replica_set(dict(WANTED))
    assert api.calls == []


def test_a_failed_write_is_retried_once_on_a_fresh_copy_without_comparing_again() -> None:
    # The fresh copy already carries the wanted status; upstream writes it anyway.
    failures = iter([ApiError(409, CONFLICT), None])
    api = FakeApi(lambda verb, *_: next(failures) if verb == "update" else None)
    api.fresh = {**replica_set(dict(WANTED)), "fresh": True}
    written = write(api, replica_set({"replicas": 1}))
    assert api.calls == [
        ("update", "ReplicaSet", "status"),
        ("get", "ReplicaSet", None),
        ("update", "ReplicaSet", "status"),
    ]
    assert written["fresh"]
    assert written["written"]
    assert written["status"] == WANTED


@pytest.mark.parametrize(
    ("get_fails", "message"),
    [(False, "the object has been modified"), (True, "etcd is down")],
    ids=["second-write-fails", "fresh-read-fails"],
)
def test_the_last_error_propagates(get_fails: bool, message: str) -> None:
    def fail(verb: str, kind: str, obj: JSON | None) -> ApiError | None:
        if verb == "get" and get_fails:
            return ApiError(500, {"message": "etcd is down"})
        return ApiError(409, CONFLICT) if verb == "update" else None

    api = FakeApi(fail)
    api.fresh = replica_set({})
    with pytest.raises(ApiError, match=message):
        write(api, replica_set({"replicas": 1}))
    assert len([c for c in api.calls if c[0] == "update"]) == (1 if get_fails else 2)


def test_when_every_generated_name_is_taken_the_create_fails_with_an_event() -> None:
    api = FakeApi(lambda verb, kind, _: ApiError(409, TAKEN) if kind == "Pod" else None)
    fake = cast(ControllerApi, api)
    control = PodControl(fake, EventRecorder(fake, FixedClock(), "rs"), random.Random(1))
    created, error = asyncio.run(control.create_pods(replica_set({}), 3))
    assert created == 0
    assert isinstance(error, ApiError)
    assert error.reason == "AlreadyExists"
    assert len([c for c in api.calls if c[1] == "Pod"]) == 8  # then the slow start stops
    events = [(e["type"], e["reason"], e["message"]) for e in api.created]
    assert events == [("Warning", "FailedCreate", f"Error creating: {TAKEN['message']}")]
