"""A tiny in-memory API server for the garbage collector's planner tests.

``Cluster`` holds objects as JSON dicts and applies the planner's actions with the API server's
deletion semantics (a policy's finalizer replaces the other GC finalizer; an object whose last
finalizer goes while it is being deleted disappears). ``settle`` replans until nothing is left
to do, optionally "crashing" after a prefix of each plan to model a restart mid-cascade.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from podscale.controllers.garbagecollector import (
    Action,
    DeleteObject,
    Event,
    RemoveFinalizer,
    RemoveOwnerReferences,
    UnblockOwnerReferences,
    build_graph,
    plan,
)

GC_FINALIZERS = ("orphan", "foregroundDeletion")
DELETED_AT = "2026-01-01T00:00:00Z"


class Cluster:
    """Objects by uid plus the events recorded; mutated only through the methods below."""

    def __init__(self, objects: Iterable[dict[str, Any]]) -> None:
        self.objects: dict[str, dict[str, Any]] = {
            o["metadata"]["uid"]: copy.deepcopy(o) for o in objects
        }
        self.reported: set[tuple[str, str]] = set()
        self.events: list[Event] = []
        self.deleted_with: dict[str, str] = {}
        self.version = 100

    def _bump(self, uid: str) -> None:
        # Every write gets a new resourceVersion, so stale delete preconditions conflict.
        self.version += 1
        self.objects[uid]["metadata"]["resourceVersion"] = str(self.version)

    def plan(self) -> list[Action]:
        return plan(build_graph(self.objects.values()), reported=self.reported)

    def delete(self, uid: str, policy: str | None = None) -> None:
        """DELETE as the API server does it: finalizers first, removal when none remain."""
        obj = self.objects.get(uid)
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            return
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers") or ())
        if policy is not None:
            finalizers = [f for f in finalizers if f not in GC_FINALIZERS]
            finalizers += {"Orphan": ["orphan"], "Foreground": ["foregroundDeletion"]}.get(
                policy, []
            )
        if not finalizers:
            del self.objects[uid]
            return
        meta["finalizers"] = finalizers
        meta["deletionTimestamp"] = DELETED_AT
        self._bump(uid)

    def _remove_finalizer(self, uid: str, finalizer: str) -> None:
        meta = self.objects[uid]["metadata"]
        meta["finalizers"] = [f for f in meta.get("finalizers") or () if f != finalizer]
        if meta.get("deletionTimestamp") and not meta["finalizers"]:
            del self.objects[uid]
        else:
            self._bump(uid)

    def apply(self, action: Action) -> bool:
        """Apply one action; False on a precondition conflict (the executor then replans)."""
        if isinstance(action, Event):
            self.events.append(action)
            for ref in self.objects[action.ref.uid]["metadata"].get("ownerReferences") or ():
                if f"uid: {ref['uid']}]" in action.message:
                    self.reported.add((action.ref.uid, ref["uid"]))
            return True
        uid = action.ref.uid
        if uid not in self.objects:
            return True  # NotFound: the target is gone, nothing left to do
        meta = self.objects[uid]["metadata"]
        if isinstance(action, DeleteObject):
            assert action.precondition_uid == uid
            expected_version = action.precondition_resource_version
            if expected_version is not None and expected_version != meta.get("resourceVersion"):
                return False
            self.deleted_with[uid] = action.propagation
            self.delete(uid, action.propagation)
        elif isinstance(action, RemoveOwnerReferences):
            meta["ownerReferences"] = [
                r for r in meta.get("ownerReferences") or () if r["uid"] not in action.owner_uids
            ]
            self._bump(uid)
        elif isinstance(action, UnblockOwnerReferences):
            for ref in meta.get("ownerReferences") or ():
                if ref.get("blockOwnerDeletion") is True:
                    ref["blockOwnerDeletion"] = False
            self._bump(uid)
        elif isinstance(action, RemoveFinalizer):
            self._remove_finalizer(uid, action.finalizer)
        return True

    def apply_all(self, actions: list[Action]) -> None:
        """Apply in order, stopping at the first conflict like a real executor."""
        for action in actions:
            if not self.apply(action):
                return

    def settle(
        self,
        *,
        max_rounds: int = 100,
        prefix: Callable[[int], int] | None = None,
        check: Callable[[Cluster, list[Action]], None] | None = None,
    ) -> int:
        """Plan and apply until a plan is empty; returns the number of rounds that acted.

        ``prefix(n)`` chooses how many of a plan's n actions get applied before a simulated
        crash (the rest are dropped and found again by the next plan).
        """
        for rounds in range(max_rounds):
            actions = self.plan()
            if not actions:
                return rounds
            if check is not None:
                check(self, actions)
            count = len(actions) if prefix is None else max(1, prefix(len(actions)))
            self.apply_all(actions[:count])
        raise AssertionError(f"did not converge in {max_rounds} rounds: {self.plan()}")


@pytest.fixture(scope="session")
def cluster_type() -> type[Cluster]:
    return Cluster
