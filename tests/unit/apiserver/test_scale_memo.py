"""``get_scale`` remembers the Scale views it served by the parent's resourceVersion: every
read must equal the view built afresh from the stored parent (``scale_view(get_object)``),
after any write to the parent too, and a caller changing what it got changes nothing else."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.errors import ApiError
from podscale.apiserver.operations import delete as operations_delete
from podscale.apiserver.operations import subresources, write_verbs
from podscale.apiserver.operations import verbs as operations
from podscale.apiserver.operations.types import DeleteOptions
from podscale.apiserver.registry.admission import WriteOptions
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import ServerState
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
DEPLOY = kind_for("apps/v1", "Deployment")
WRITE = WriteOptions(dry_run=False, field_validation="Warn")


def _parent(replicas: int = 2) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def _state(replicas: int = 2) -> ServerState:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    state = ServerState(store=MemoryStore(clock), clock=clock)
    ensure_system_namespaces(state.store)
    write_verbs.create_object(state, DEPLOY, "default", _parent(replicas), WRITE)
    return state


def _fresh(state: ServerState) -> JSON:
    """The general path: the view of the parent as stored now."""
    return subresources.scale_view(DEPLOY, operations.get_object(state, DEPLOY, "default", "web"))


def _nothing(state: ServerState) -> None:
    return None


def _replicas(state: ServerState) -> None:
    parent = operations.get_object(state, DEPLOY, "default", "web")
    parent["spec"]["replicas"] = 7
    write_verbs.update_object(state, DEPLOY, "default", "web", parent, WRITE)


def _status(state: ServerState) -> None:
    parent = operations.get_object(state, DEPLOY, "default", "web")
    parent["status"] = {"replicas": 3}
    subresources.update_status(state, DEPLOY, "default", "web", parent, WRITE)


def _through_scale(state: ServerState) -> None:
    scale = subresources.get_scale(state, DEPLOY, "default", "web")
    scale["spec"]["replicas"] = 9
    subresources.update_scale(state, DEPLOY, "default", "web", scale, WRITE)


def _recreated(state: ServerState) -> None:
    operations_delete.delete_object(state, DEPLOY, "default", "web", DeleteOptions())
    write_verbs.create_object(state, DEPLOY, "default", _parent(5), WRITE)


@pytest.mark.parametrize(
    "write",
    [_nothing, _replicas, _status, _through_scale, _recreated],
    ids=["unchanged", "spec-replicas-updated", "status-written", "scale-written", "recreated"],
)
def test_a_remembered_view_equals_the_fresh_one(write: Callable[[ServerState], None]) -> None:
    state = _state()
    first = subresources.get_scale(state, DEPLOY, "default", "web")
    assert first == _fresh(state)
    first["spec"]["replicas"] = 1000  # the caller's copy: nothing remembered changes
    write(state)
    for _ in range(2):  # the read that fills the memo, then the one it answers
        assert subresources.get_scale(state, DEPLOY, "default", "web") == _fresh(state)


def test_a_deleted_parent_is_not_found_after_being_remembered() -> None:
    state = _state()
    subresources.get_scale(state, DEPLOY, "default", "web")
    operations_delete.delete_object(state, DEPLOY, "default", "web", DeleteOptions())
    with pytest.raises(ApiError) as caught:
        subresources.get_scale(state, DEPLOY, "default", "web")
    assert caught.value.status["code"] == 404


def test_two_stores_do_not_share_views() -> None:
    one, other = _state(2), _state(5)
    # The same name at the same resourceVersion in two stores, with different replicas.
    version = one.store.revision_of("deployments.apps", "default", "web")
    assert version is not None
    assert other.store.revision_of("deployments.apps", "default", "web") == version
    assert subresources.get_scale(one, DEPLOY, "default", "web")["spec"]["replicas"] == 2
    assert subresources.get_scale(other, DEPLOY, "default", "web")["spec"]["replicas"] == 5
    assert subresources.get_scale(one, DEPLOY, "default", "web") == _fresh(one)
