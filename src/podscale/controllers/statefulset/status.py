"""StatefulSet status: replica counts by revision, completing a rollout, when to write.

Mirrors upstream's ``computeReplicaStatus``/``updateStatus``, ``completeRollingUpdate`` and
``inconsistentStatus`` (pkg/controller/statefulset/stateful_set_control.go and
stateful_set_utils.go), and the event texts of ``StatefulPodControl.recordPodEvent``
(stateful_pod_control.go). The status is built afresh each sync, as upstream replaces it
whole (so ``conditions`` go); fields follow Go's JSON tags: ``replicas``,
``availableReplicas`` and the ``collisionCount`` pointer are always written, the other
counts, revisions and ``observedGeneration`` are omitted at zero. Status fields podscale
does not know survive. Neighbours: ``health`` (predicates), ``plan`` (calls this).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Final

from podscale.controllers.statefulset.health import (
    is_created,
    is_running_and_available,
    is_running_and_ready,
    is_terminating,
)
from podscale.controllers.statefulset.revision import pod_revision

__all__ = [
    "complete_rolling_update",
    "pod_event",
    "stateful_set_status",
    "status_needs_update",
]

_KNOWN_FIELDS: Final = frozenset(
    {
        "observedGeneration",
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "currentRevision",
        "updateRevision",
        "collisionCount",
        "conditions",
        "availableReplicas",
    }
)
_OMIT_WHEN_EMPTY: Final = (
    "observedGeneration",
    "readyReplicas",
    "currentReplicas",
    "updatedReplicas",
    "currentRevision",
    "updateRevision",
)
# The fields upstream compares before writing (collisionCount is not among them).
_COMPARED: Final = (
    "replicas",
    "currentReplicas",
    "readyReplicas",
    "updatedReplicas",
    "currentRevision",
    "availableReplicas",
    "updateRevision",
)
_DEFAULTS: Final[Mapping[str, Any]] = {"currentRevision": "", "updateRevision": ""}


def stateful_set_status(
    sts: Mapping[str, Any],
    pods: Iterable[Mapping[str, Any]],
    *,
    current_revision: str,
    update_revision: str,
    collisions: int,
    now: datetime,
) -> dict[str, Any]:
    """The status ``pods`` (the set's members, as observed) give, before any rollout is
    completed; ``pods`` without a phase (not created yet) count for nothing."""
    min_ready = int((sts.get("spec") or {}).get("minReadySeconds") or 0)
    counts = dict.fromkeys(("replicas", "ready", "available", "current", "updated"), 0)
    for pod in pods:
        created = is_created(pod)
        counts["replicas"] += created
        if is_running_and_ready(pod):
            counts["ready"] += 1
            counts["available"] += is_running_and_available(pod, min_ready, now)
        if created and not is_terminating(pod):
            revision = pod_revision(pod)
            counts["current"] += revision == current_revision
            counts["updated"] += revision == update_revision
    unknown = {k: v for k, v in (sts.get("status") or {}).items() if k not in _KNOWN_FIELDS}
    status: dict[str, Any] = copy.deepcopy(unknown)
    status.update(
        {
            "observedGeneration": int((sts.get("metadata") or {}).get("generation") or 0),
            "replicas": counts["replicas"],
            "readyReplicas": counts["ready"],
            "currentReplicas": counts["current"],
            "updatedReplicas": counts["updated"],
            "currentRevision": current_revision,
            "updateRevision": update_revision,
            "collisionCount": collisions,
            "availableReplicas": counts["available"],
        }
    )
    return _omit_empty(status)


def _omit_empty(status: dict[str, Any]) -> dict[str, Any]:
    for field in _OMIT_WHEN_EMPTY:
        if not status.get(field):
            status.pop(field, None)
    return status


def complete_rolling_update(sts: Mapping[str, Any], status: Mapping[str, Any]) -> dict[str, Any]:
    """``status`` with the rollout marked done once every wanted replica exists, is ready
    and runs the update revision (RollingUpdate only): current catches up with update."""
    spec = sts.get("spec") or {}
    done: dict[str, Any] = copy.deepcopy(dict(status))
    strategy = str((spec.get("updateStrategy") or {}).get("type") or "RollingUpdate")
    wanted = int(spec.get("replicas", 1))
    if strategy == "RollingUpdate" and all(
        int(status.get(field) or 0) == wanted
        for field in ("updatedReplicas", "readyReplicas", "replicas")
    ):
        done["currentReplicas"] = done.get("updatedReplicas", 0)
        done["currentRevision"] = done.get("updateRevision", "")
    return _omit_empty(done)


def status_needs_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Upstream's ``inconsistentStatus``: a newer generation or any compared field differs."""
    if int(new.get("observedGeneration") or 0) > int(old.get("observedGeneration") or 0):
        return True
    return any(
        old.get(field, _DEFAULTS.get(field, 0)) != new.get(field, _DEFAULTS.get(field, 0))
        for field in _COMPARED
    )


def pod_event(
    verb: str, pod_name: str, set_name: str, error: str | None = None
) -> tuple[str, str, str]:
    """(type, reason, message) of the event for ``verb`` (create, update, delete) on a pod."""
    if error is None:
        message = f"{verb} Pod {pod_name} in StatefulSet {set_name} successful"
        return "Normal", f"Successful{verb.title()}", message
    message = f"{verb} Pod {pod_name} in StatefulSet {set_name} failed error: {error}"
    return "Warning", f"Failed{verb.title()}", message
