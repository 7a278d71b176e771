"""Graceful deletion of pods, as upstream's pod strategy and generic registry decide it.

``operations.delete`` asks ``plan_graceful_delete`` before it deletes a Pod. Upstream
(``pkg/registry/core/pod/strategy.go`` ``CheckGracefulDelete`` and apiserver
``rest.BeforeDelete``): the grace period is ``DeleteOptions.gracePeriodSeconds``, else
``spec.terminationGracePeriodSeconds`` (defaulted to 30), 0 for a pod not bound to a node or
already Succeeded/Failed, 1 for a negative one; 0 deletes at once. A positive one marks the
pod (``deletionTimestamp = now + grace``, ``deletionGracePeriodSeconds``, generation + 1) and
the pod stays until its kubelet deletes it with grace 0. A second delete may only shorten a
pending grace period (the timestamp moves by the difference); a longer or equal one changes
nothing. The store writes the mark through an ordinary update (``store.objects`` accepts a
deletion mark that starts or shortens a grace period).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from podscale.api.timestamps import parse_time
from podscale.store.objects import format_timestamp

__all__ = ["GracefulPlan", "grace_period_for", "plan_graceful_delete"]

JSON = dict[str, Any]

_DEFAULT_TERMINATION_GRACE = 30
_TERMINATED_PHASES = frozenset({"Succeeded", "Failed"})


@dataclass(frozen=True, slots=True)
class GracefulPlan:
    """What a delete of a pod does: ``marked`` is the pod to write (None: write nothing);
    ``immediate`` means delete it from storage now (grace 0, or a mark that already
    reached 0); neither means a graceful deletion is pending and the reply is the pod."""

    marked: JSON | None
    immediate: bool


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def grace_period_for(pod: JSON, requested: int | None) -> int:
    """Upstream ``CheckGracefulDelete``: the grace period a first delete of ``pod`` gets."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if requested is not None:
        period = requested
    else:
        default = _int(spec.get("terminationGracePeriodSeconds"))
        period = _DEFAULT_TERMINATION_GRACE if default is None else default
    if not spec.get("nodeName"):
        period = 0
    if status.get("phase") in _TERMINATED_PHASES:
        period = 0
    return 1 if period < 0 else period


def _parse(text: str) -> datetime:
    return parse_time(text)


def plan_graceful_delete(pod: JSON, requested: int | None, now: datetime) -> GracefulPlan:
    """Upstream ``BeforeDelete`` for a pod: mark it, shorten its mark, or delete it now."""
    meta = pod.get("metadata") or {}
    pending = _int(meta.get("deletionGracePeriodSeconds"))
    if meta.get("deletionTimestamp"):
        if not pending:  # already due (or marked by finalizers): delete as usual
            return GracefulPlan(None, immediate=True)
        if requested is None or requested >= pending:
            return GracefulPlan(None, immediate=False)
        period = max(requested, 0)
        if period == 0:
            return GracefulPlan(None, immediate=True)
        due = _parse(str(meta["deletionTimestamp"])) - timedelta(seconds=pending - period)
        return GracefulPlan(_marked(pod, due, period, first=False), immediate=False)
    period = grace_period_for(pod, requested)
    if period == 0:
        return GracefulPlan(None, immediate=True)
    due = now + timedelta(seconds=period)
    return GracefulPlan(_marked(pod, due, period, first=True), immediate=False)


def _marked(pod: JSON, due: datetime, period: int, *, first: bool) -> JSON:
    marked = copy.deepcopy(pod)
    meta = marked.setdefault("metadata", {})
    meta["deletionTimestamp"] = format_timestamp(due)
    meta["deletionGracePeriodSeconds"] = period
    generation = _int(meta.get("generation"))
    if first and generation is not None and generation > 0:
        meta["generation"] = generation + 1
    return marked
