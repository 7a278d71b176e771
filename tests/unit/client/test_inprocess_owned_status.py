"""An in-process status write is defaulted in place of its one copy, with the same outcome.

``InProcessApi.update`` hands the server its copy of the body as an ``OwnedObject``, and
``update_status`` defaults that copy in place instead of copying it once more. Random
status writes (wrong types, invalid values, kept metadata such as a Deployment's labels
and a Pod's owners) go through both that path and the general one (a plain dict body,
defaulted as a copy) on two identical servers: the replies, the errors and the stored
bytes must be the same, and neither the caller's object nor the stored one may change.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import count
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.operations import subresources
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.client.inprocess_calls import call, write_options
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]

HPA: JSON = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "maxReplicas": 10,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    },
}
DEPLOYMENT: JSON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        },
    },
}
POD: JSON = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "rs",
                "uid": "u",
                "controller": True,
            }
        ],
    },
    "spec": {"containers": [{"name": "app", "image": "nginx"}]},
}
NODE: JSON = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "web"}}
NAMESPACE: JSON = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}}

_VALUES = st.one_of(
    st.integers(-2, 5),
    st.sampled_from([1.5, True, None, "", "x", "Running", [], {}, ["a"], {"a": 1}]),
    # What a status defaults from: a node's capacity (its allocatable when it has none).
    st.sampled_from([{"cpu": "2", "pods": "110"}, {"cpu": 2}, {"memory": "1Gi"}]),
)
_STATUS_KEYS = {
    "HorizontalPodAutoscaler": [
        "currentReplicas",
        "desiredReplicas",
        "currentMetrics",
        "conditions",
    ],
    "Deployment": ["replicas", "readyReplicas", "observedGeneration", "conditions"],
    "Pod": ["phase", "qosClass", "observedGeneration", "conditions", "containerStatuses"],
    "Node": ["capacity", "allocatable", "capacity", "conditions"],
    "Namespace": ["phase", "conditions"],
}
_CONDITIONS = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["Ready", "AbleToScale", "Available"])},
        optional={"status": st.sampled_from(["True", "False", 1]), "reason": st.just("R")},
    ),
    max_size=3,
)


_DROP = object()


def _plane() -> InProcessApi:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    uids = count()
    store = MemoryStore(clock, new_uid=lambda: f"uid-{next(uids)}")
    return InProcessApi.for_store(store, clock)


def _run(make: Callable[[], Any]) -> Any:
    async def wrapper() -> Any:
        return await make()

    return asyncio.run(wrapper())


def _general(api: InProcessApi, info: KindInfo, body: JSON) -> JSON:
    """The status write without the in-place defaulting: a plain dict body (its failures
    as the client reports them)."""
    options = write_options(False, None, api.field_manager)
    name = str(body["metadata"]["name"])
    namespace = "default" if info.namespaced else None
    return call(
        lambda: (
            subresources.update_status(
                api.state, info, namespace, name, copy_json(body), options
            ).object
        )
    )


def _outcome(write: Callable[[], Any]) -> Any:
    try:
        return ("ok", orjson.dumps(write()))
    except ApiError as err:
        return ("error", err.status, orjson.dumps(err.body))


@settings(max_examples=60, deadline=None)
@given(
    template=st.sampled_from([HPA, DEPLOYMENT, POD, NODE, NAMESPACE]),
    edits=st.lists(
        st.tuples(
            st.integers(0, 4), st.one_of(_VALUES, _CONDITIONS, st.just(_DROP)), st.booleans()
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_an_owned_status_write_is_the_general_one(
    template: JSON, edits: list[tuple[int, Any, bool]]
) -> None:
    info = kind_for(str(template["apiVersion"]), str(template["kind"]))
    owned, general = _plane(), _plane()
    for api in (owned, general):
        _run(lambda api=api: api.create(info, "default", copy.deepcopy(template)))
    keys = _STATUS_KEYS[info.kind]
    for index, value, relabel in edits:
        current = _run(lambda: owned.get(info, "default", "web"))
        body = copy.deepcopy(current)
        status = body.setdefault("status", {})
        if value is _DROP:  # what defaulting fills in comes back
            status.pop(keys[index % len(keys)], None)
        else:
            status[keys[index % len(keys)]] = copy.deepcopy(value)
        if relabel:  # a status write may not change what the strategy keeps
            body["metadata"]["labels"] = {"app": "other"}
            body["metadata"]["ownerReferences"] = []
        sent = copy.deepcopy(body)
        got = _outcome(
            lambda body=body: _run(lambda: owned.update(info, "default", body, "status"))
        )
        assert body == sent  # the caller's object is the caller's
        expected = _outcome(lambda body=body: _general(general, info, body))
        assert got == expected
        stored = [
            orjson.dumps(_run(lambda api=api: api.get(info, "default", "web")))
            for api in (owned, general)
        ]
        assert stored[0] == stored[1]


@pytest.mark.parametrize(
    ("conditions", "stored_first"),
    [
        (5, False),
        ("Ready", False),
        ([{"type": {"not": "a string"}, "status": "True"}], True),
        ([{"type": ["Ready"], "status": "True"}], True),
        ([7, {"type": "Ready", "status": "True"}, "x"], True),
    ],
    ids=["number", "string", "dict-type", "list-type", "items-not-objects"],
)
def test_a_pod_status_of_the_wrong_shape_is_refused_not_a_crash(
    conditions: Any, stored_first: bool
) -> None:
    # The Pod status strategy carries observedGeneration over by condition type: values
    # of the wrong shape reached it before the type check and raised there (a 500).
    api, info = _plane(), kind_for("v1", "Pod")
    current = _run(lambda: api.create(info, "default", copy.deepcopy(POD)))
    if stored_first:
        ready = copy.deepcopy(current)
        ready.setdefault("status", {})["conditions"] = [
            {"type": "Ready", "status": "True", "observedGeneration": 1}
        ]
        current = _run(lambda: api.update(info, "default", ready, "status"))
    body = copy.deepcopy(current)
    body.setdefault("status", {})["conditions"] = conditions
    with pytest.raises(ApiError) as refused:
        _run(lambda: api.update(info, "default", body, "status"))
    # kube-apiserver's decoder refuses it: 400, naming the field and the Go type.
    assert refused.value.status == 400
    assert "cannot unmarshal" in str(refused.value)
    assert "status.conditions" in str(refused.value)
