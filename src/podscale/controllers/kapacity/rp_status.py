"""A ReplicaProfile's status as the ReplicaProfile controller writes it: pure helpers.

``set_condition`` is Kapacity's ``SetConditionInList``: the condition of a type is replaced
in place (appended when absent), its ``lastTransitionTime`` moves only when the status
flips, and it records the object's generation. ``status_json`` writes the counts and
conditions in Kapacity's field names; ``go_list`` prints names as Go's ``%v`` prints a
``[]string`` (the pod lists of the OnlinePods/CutoffPods/StandbyPods events). The reasons
and messages are Kapacity's. Used by ``rp_controller``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Final

from podscale.controllers.kapacity.pod_states import Classified
from podscale.controllers.kapacity.reading import JSON, Condition

__all__ = [
    "APPLIED",
    "APPLIED_MESSAGE",
    "ENSURED",
    "ENSURED_MESSAGE",
    "NOT_SATISFIED_MESSAGE",
    "PAUSED_MESSAGE",
    "SKIPPED_MESSAGE",
    "go_list",
    "set_condition",
    "status_json",
]

APPLIED: Final = "ReplicaProfileApplied"
ENSURED: Final = "ReplicaProfileEnsured"
PAUSED_MESSAGE: Final = "the replica profile is paused"
ENSURED_MESSAGE: Final = "current replica profile is ensured"
NOT_SATISFIED_MESSAGE: Final = "the number of replicas of some states do not meet the expectation"
APPLIED_MESSAGE: Final = "all the operations for ensuring the replica profile are applied"
SKIPPED_MESSAGE: Final = (
    "state change skipped as the number of current running pods observed mismatch "
    "the desired replicas of the target workload"
)


def set_condition(
    conditions: Sequence[Condition],
    condition_type: str,
    status: str,
    reason: str,
    message: str,
    *,
    generation: int,
    now: datetime,
) -> tuple[Condition, ...]:
    """``conditions`` with ``condition_type`` set (see the module docstring)."""
    result = list(conditions)
    for index, old in enumerate(result):
        if old.type == condition_type:
            moved = now if old.status != status else old.last_transition_time
            result[index] = replace(
                old,
                status=status,
                reason=reason,
                message=message,
                last_transition_time=moved,
                observed_generation=generation,
            )
            return tuple(result)
    result.append(Condition(condition_type, status, reason, message, now, generation))
    return tuple(result)


def status_json(counts: Classified | None, conditions: Iterable[Condition], base: JSON) -> JSON:
    """The status to write: ``base`` (the stored status) with the counts when observed, and
    the conditions."""
    status: JSON = dict(base)
    if counts is not None:
        status["onlineReplicas"] = len(counts.online)
        status["cutoffReplicas"] = len(counts.cutoff)
        status["standbyReplicas"] = len(counts.standby)
    status["conditions"] = [c.to_json() for c in conditions]
    return status


def go_list(names: Iterable[str]) -> str:
    """``[a b c]``, as Go's ``%v`` formats a ``[]string``."""
    return "[" + " ".join(names) + "]"
