"""``sync.DeploymentSync`` changes its working copy copy-on-write: the result equals (key
order included) changing a deep copy in place, and the object it started from, which
shares nested dicts with the informer cache, is never touched."""

from __future__ import annotations

import asyncio
import copy
import json
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment import conditions as cond
from podscale.controllers.deployment.fenceposts import Strategy, strategy_of
from podscale.controllers.deployment.revisions import REVISION_ANNOTATION
from podscale.controllers.deployment.sync import DeploymentSync

JSON = dict[str, Any]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _sync(deployment: JSON) -> DeploymentSync:
    # No I/O happens in these tests: the API and recorder are never reached.
    return DeploymentSync(cast(Any, None), cast(Any, None), deployment, [], NOW)


def _shape(value: JSON) -> str:
    return json.dumps(value)  # keeps key order, so equal text means same order too


# The in-place versions these replaced, on a deep copy (the old working copy).
def _in_place_revision(deployment: JSON, revision: str) -> bool:
    annotations = deployment.setdefault("metadata", {}).setdefault("annotations", {})
    if annotations.get(REVISION_ANNOTATION) == revision:
        return False
    annotations[REVISION_ANNOTATION] = revision
    return True


def _in_place_condition(deployment: JSON, condition: JSON) -> None:
    status = deployment.setdefault("status", {})
    conditions = list(status.get("conditions") or [])
    cond.set_condition(conditions, condition)
    status["conditions"] = conditions


def _in_place_collision(deployment: JSON) -> None:
    status = deployment.setdefault("status", {})
    status["collisionCount"] = int(status.get("collisionCount") or 0) + 1


_condition = st.builds(
    lambda kind, status, reason: cond.new_condition(kind, status, reason, "m", NOW),
    st.sampled_from([cond.PROGRESSING, cond.AVAILABLE]),
    st.sampled_from(["True", "False"]),
    st.sampled_from([cond.NEW_RS_CREATED, cond.REPLICA_SET_UPDATED]),
)


@st.composite
def _deployments(draw: st.DrawFn) -> JSON:
    body: JSON = {"apiVersion": "apps/v1", "kind": "Deployment"}
    if draw(st.booleans()):
        meta: JSON = {"name": "web", "namespace": "default"}
        if draw(st.booleans()):
            meta["annotations"] = draw(
                st.dictionaries(
                    st.sampled_from(["a", "b", REVISION_ANNOTATION]),
                    st.sampled_from(["1", "2", "x"]),
                )
            )
        meta["uid"] = "u"
        body["metadata"] = meta
    body["spec"] = {"replicas": 3}
    if draw(st.booleans()):
        status: JSON = {"replicas": 3}
        if draw(st.booleans()):
            status["conditions"] = draw(st.lists(_condition, max_size=3))
        if draw(st.booleans()):
            status["collisionCount"] = draw(st.integers(0, 3))
        status["readyReplicas"] = 1
        body["status"] = status
    return body


@given(
    _deployments(),
    st.lists(
        st.one_of(
            st.tuples(st.just("revision"), st.sampled_from(["1", "2", "3"])),
            st.tuples(st.just("condition"), _condition),
            st.tuples(st.just("collision"), st.none()),
        ),
        max_size=5,
    ),
)
def test_changes_equal_the_in_place_ones_and_leave_the_original_alone(
    deployment: JSON, steps: list[tuple[str, Any]]
) -> None:
    pristine = copy.deepcopy(deployment)
    reference = copy.deepcopy(deployment)
    sync = _sync(dict(deployment))  # the controller's shallow copy of the cached object
    for step, arg in steps:
        if step == "revision":
            assert sync.set_revision(arg) == _in_place_revision(reference, arg)
        elif step == "condition":
            sync.set_condition(arg)
            _in_place_condition(reference, arg)
        else:
            sync.bump_collision_count()
            _in_place_collision(reference)
        assert _shape(sync.deployment) == _shape(reference)
    assert _shape(deployment) == _shape(pristine)


def test_strategy_is_read_again_when_the_spec_is_replaced() -> None:
    sync = _sync({"metadata": {"name": "web"}, "spec": {"strategy": {"type": "Recreate"}}})
    first = sync.strategy
    assert first == Strategy(type="Recreate", max_surge=None, max_unavailable=None)
    assert sync.strategy is first  # remembered while the spec is the same dict
    sync.set_revision("4")  # metadata changes keep the spec: still remembered
    assert sync.strategy is first
    replaced = {"metadata": {"name": "web"}, "spec": {"strategy": {"type": "RollingUpdate"}}}
    sync.deployment = replaced  # as a server answer replaces the working copy
    assert sync.strategy == strategy_of(replaced) == Strategy()


@pytest.mark.parametrize(
    "stored",
    [None, {"replicas": 2}, {"replicas": 2, "conditions": []}],
    ids=["no-status", "counts", "empty-conditions"],
)
def test_write_status_leaves_the_working_copy_alone(stored: JSON | None) -> None:
    sent: list[JSON] = []

    class Api:
        async def update(self, kind: Any, namespace: str, body: JSON, sub: str) -> JSON:
            sent.append(body)
            return copy.deepcopy(body)

    deployment: JSON = {"metadata": {"name": "web", "namespace": "default"}, "spec": {}}
    if stored is not None:
        deployment["status"] = stored
    pristine = copy.deepcopy(deployment)
    sync = DeploymentSync(cast(Any, Api()), cast(Any, None), dict(deployment), [], NOW)
    asyncio.run(sync.write_status({"replicas": 3, "observedGeneration": 0}))
    assert deployment == pristine
    assert sent == [{**pristine, "status": {"replicas": 3}}]
    assert sync.deployment == sent[0]
