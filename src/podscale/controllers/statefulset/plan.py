"""One StatefulSet sync as a plan: which pods to create, fix, delete, and in what order.

Upstream's ``updateStatefulSet`` (pkg/controller/statefulset/stateful_set_control.go) as a
pure function over the set and the pods it owns (``now`` is a parameter). Pods split into
*replicas* (ordinals ``[start, start + replicas)``, a missing one stood in for by the pod to
create) and *condemned* (any other ordinal, highest first). Three phases follow:

1. replicas in ordinal order: a Failed or Succeeded pod is deleted (and recreated under the
   same name on a later sync, once it is gone); a missing pod is created; a pod whose
   identity labels drifted is updated.
2. condemned pods are deleted.
3. RollingUpdate (MaxUnavailableStatefulSet, on since v1.35): up to ``maxUnavailable``
   minus the unavailable replicas, pods at ordinals ``>= partition`` that are not at the
   update revision are deleted, highest first (phase 1 recreates them). OnDelete skips it.

``OrderedReady`` is monotonic: each step holds one action and the plan stops at the first
thing to wait for (a pod just created, terminating, not Running and Ready, not available
for ``minReadySeconds``), so pods are created one at a time in order and removed one at
a time from the top, only while every lower pod is healthy. ``Parallel`` bursts: a phase is
one step, run in slow-start batches. The executor stops at the first step with an error.
Neighbours: ``identity``, ``revision``, ``health``, ``status``; the shell is ``controller``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from podscale.controllers.statefulset.health import (
    has_finished,
    is_created,
    is_running_and_available,
    is_running_and_ready,
    is_terminating,
    is_unavailable,
)
from podscale.controllers.statefulset.identity import (
    end_ordinal,
    identity_matches,
    new_stateful_pod,
    ordinal_of,
    start_ordinal,
    with_identity,
)
from podscale.controllers.statefulset.revision import (
    collision_count,
    current_and_update_revisions,
    pod_revision,
)
from podscale.controllers.statefulset.status import complete_rolling_update, stateful_set_status

__all__ = ["PodAction", "SyncPlan", "max_unavailable", "plan_sync"]

Verb = Literal["create", "update", "delete"]
Cause = Literal["missing", "finished", "identity", "condemned", "outdated"]


@dataclass(frozen=True)
class PodAction:
    """``verb`` on ``pod``: the body to create or update, or the pod to delete."""

    verb: Verb
    pod: Mapping[str, Any]
    cause: Cause

    @property
    def pod_name(self) -> str:
        return str((self.pod.get("metadata") or {}).get("name", ""))


@dataclass(frozen=True)
class SyncPlan:
    """Steps run in order (the actions of one step together); ``status`` is written after,
    even when a step fails. ``waiting_for`` names the pod a monotonic plan stopped at."""

    steps: tuple[tuple[PodAction, ...], ...]
    status: dict[str, Any]
    waiting_for: str | None = None

    @property
    def actions(self) -> tuple[PodAction, ...]:
        return tuple(action for step in self.steps for action in step)


def max_unavailable(sts: Mapping[str, Any]) -> int:
    """``rollingUpdate.maxUnavailable`` scaled to ``spec.replicas`` (a percentage rounds
    down), at least 1; 1 when unset."""
    spec = sts.get("spec") or {}
    rolling = (spec.get("updateStrategy") or {}).get("rollingUpdate") or {}
    raw = rolling.get("maxUnavailable")
    if raw is None:
        return 1
    if isinstance(raw, str) and raw.endswith("%"):
        value = int(raw[:-1]) * int(spec.get("replicas", 1)) // 100
    else:
        value = int(raw)
    return max(1, value)


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name", ""))


class _Planner:
    """Accumulates steps; ``monotonic`` puts every action in a step of its own."""

    def __init__(self, monotonic: bool) -> None:
        self.monotonic = monotonic
        self.steps: list[tuple[PodAction, ...]] = []
        self.batch: list[PodAction] = []

    def add(self, verb: Verb, pod: Mapping[str, Any], cause: Cause) -> None:
        action = PodAction(verb, pod, cause)
        if self.monotonic:
            self.steps.append((action,))
        else:
            self.batch.append(action)

    def end_phase(self) -> None:
        if self.batch:
            self.steps.append(tuple(self.batch))
            self.batch = []


def _replica_blocks(
    planner: _Planner, sts: Mapping[str, Any], pod: Mapping[str, Any], now: datetime
) -> bool:
    """Phase 1 for one replica; True when a monotonic plan must stop here."""
    min_ready = int((sts.get("spec") or {}).get("minReadySeconds") or 0)
    if has_finished(pod):
        if not is_terminating(pod):
            planner.add("delete", pod, "finished")
        return True  # in every mode: the replacement waits for the old pod to go
    if not is_created(pod):
        planner.add("create", pod, "missing")
        if planner.monotonic:
            return True
    elif planner.monotonic and (
        is_terminating(pod)
        or not is_running_and_ready(pod)
        or not is_running_and_available(pod, min_ready, now)
    ):
        return True
    if is_created(pod) and not identity_matches(sts, pod):
        planner.add("update", with_identity(sts, pod), "identity")
    return False


def _condemned_blocks(
    planner: _Planner,
    sts: Mapping[str, Any],
    pod: Mapping[str, Any],
    first_unavailable: str | None,
    now: datetime,
) -> bool:
    """Phase 2 for one condemned pod; True when a monotonic plan must stop here."""
    min_ready = int((sts.get("spec") or {}).get("minReadySeconds") or 0)
    if is_terminating(pod):
        return planner.monotonic
    healthy = is_running_and_ready(pod) and is_running_and_available(pod, min_ready, now)
    if planner.monotonic and not healthy and _name(pod) != first_unavailable:
        return True
    planner.add("delete", pod, "condemned")
    return planner.monotonic


def _plan_rollout(
    planner: _Planner,
    sts: Mapping[str, Any],
    replicas: Sequence[Mapping[str, Any]],
    update: str,
    now: datetime,
) -> int:
    """Phase 3; returns how many outdated pods it deletes."""
    spec = sts.get("spec") or {}
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        return 0
    min_ready = int(spec.get("minReadySeconds") or 0)
    partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
    unavailable = sum(is_unavailable(pod, min_ready, now) for pod in replicas)
    budget = max_unavailable(sts) - unavailable
    deleted = 0
    for index in range(len(replicas) - 1, partition - 1, -1):
        if deleted >= budget:
            break
        pod = replicas[index]
        if pod_revision(pod) != update and not is_terminating(pod):
            planner.add("delete", pod, "outdated")
            deleted += 1
    return deleted


def plan_sync(
    sts: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], *, now: datetime
) -> SyncPlan:
    """The plan for ``sts`` given the pods it owns (as claimed, members only)."""
    spec = sts.get("spec") or {}
    current, update = current_and_update_revisions(sts)
    min_ready = int(spec.get("minReadySeconds") or 0)
    start, end = start_ordinal(sts), end_ordinal(sts)
    by_ordinal: dict[int, Mapping[str, Any]] = {}
    condemned: list[Mapping[str, Any]] = []
    for pod in pods:
        ordinal = ordinal_of(pod)
        if start <= ordinal <= end:
            by_ordinal[ordinal] = pod
        elif ordinal >= 0:
            condemned.append(pod)
    condemned.sort(key=ordinal_of, reverse=True)
    observed = [*by_ordinal.values(), *condemned]

    def finish(
        planner: _Planner,
        waiting: Mapping[str, Any] | None,
        outdated: int = 0,
        counted: Sequence[Mapping[str, Any]] = observed,
    ) -> SyncPlan:
        planner.end_phase()
        status = stateful_set_status(
            sts,
            counted,
            current_revision=current,
            update_revision=update,
            collisions=collision_count(sts),
            now=now,
        )
        if outdated:
            status["currentReplicas"] = int(status.get("currentReplicas") or 0) - outdated
        status = complete_rolling_update(sts, status)
        return SyncPlan(tuple(planner.steps), status, None if waiting is None else _name(waiting))

    replicas = [
        by_ordinal.get(ordinal) or new_stateful_pod(sts, ordinal, update)
        for ordinal in range(start, end + 1)
    ]
    planner = _Planner(monotonic=spec.get("podManagementPolicy") != "Parallel")
    if (sts.get("metadata") or {}).get("deletionTimestamp"):
        return finish(planner, None, counted=pods)  # a set being deleted only reports
    first_unavailable = next(
        (
            _name(pod)
            for pod in [*replicas, *reversed(condemned)]
            if is_unavailable(pod, min_ready, now)
        ),
        None,
    )
    for pod in replicas:
        if _replica_blocks(planner, sts, pod, now) and planner.monotonic:
            return finish(planner, pod)
    planner.end_phase()
    for pod in condemned:
        if _condemned_blocks(planner, sts, pod, first_unavailable, now) and planner.monotonic:
            return finish(planner, pod)
    planner.end_phase()
    outdated = _plan_rollout(planner, sts, replicas, update, now)
    return finish(planner, None, outdated)
