"""What one IHPA reconcile writes besides its counts: conditions, the ReplicaProfile spec
and the events, in Kapacity's texts.

``reconcile.decide`` chooses the portrait value, the gray step and the stability verdict;
it asks this module how to say it: ``set_condition`` (Kapacity's SetConditionInList),
``replica_profile_spec`` (the spec of the ReplicaProfile named as the IHPA, built from the
split and ``types.Ihpa``'s ``behavior.replicaProfile``), ``profile_events`` (Kapacity's
CreateReplicaProfile / UpdateReplicaProfile texts, "onlineReplcas" typo kept) and
``checker_events`` (podscale's GrayRolledBack / GrayPaused when a ``stability`` action
comes into force; Kapacity's controller does not act on checkers yet).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import replace

from podscale.controllers.kapacity import gray as gray_steps
from podscale.controllers.kapacity.reading import JSON, Condition
from podscale.controllers.kapacity.stability import CheckerReading, Verdict, verdict
from podscale.controllers.kapacity.types import Ihpa

__all__ = [
    "Event",
    "checker_events",
    "profile_events",
    "replica_profile_spec",
    "set_condition",
]

Event = tuple[str, str, str]  # type, reason, message


def set_condition(
    conditions: Sequence[Condition],
    kind: str,
    status: str,
    reason: str,
    message: str,
    generation: int,
    now: dt.datetime,
) -> tuple[Condition, ...]:
    """Kapacity's SetConditionInList: the transition time moves only when status does."""
    out: list[Condition] = []
    found = False
    for cond in conditions:
        if cond.type != kind:
            out.append(cond)
            continue
        found = True
        moved = cond.status != status or cond.last_transition_time is None
        stamp = now if moved else cond.last_transition_time
        out.append(Condition(kind, status, reason, message, stamp, generation))
    if not found:
        out.append(Condition(kind, status, reason, message, now, generation))
    return tuple(out)


def replica_profile_spec(ihpa: Ihpa, split: gray_steps.ReplicaSplit) -> JSON:
    """The ReplicaProfile spec Kapacity writes for ``split``."""
    behavior = ihpa.spec.behavior.replica_profile
    sorter: JSON = {"type": "WorkloadDefault"}
    traffic: JSON = {"type": "ReadinessGate"}
    if behavior is not None:
        sorter = {"type": behavior.pod_sorter.value}
        if behavior.pod_sorter_external is not None:
            ext = behavior.pod_sorter_external
            sorter["external"] = {"name": ext.name, "config": dict(ext.config)}
        traffic = {"type": behavior.traffic_controller.value}
        if behavior.traffic_controller_external is not None:
            ext = behavior.traffic_controller_external
            traffic["external"] = {"name": ext.name, "config": dict(ext.config)}
    return {
        "scaleTargetRef": ihpa.spec.target.to_json(),
        "onlineReplicas": split.online,
        "cutoffReplicas": split.cutoff,
        "standbyReplicas": split.standby,
        "paused": ihpa.spec.paused,
        "behavior": {"podSorter": sorter, "podTrafficController": traffic},
    }


def profile_events(
    old: gray_steps.ReplicaSplit | None, new: gray_steps.ReplicaSplit
) -> list[Event]:
    """Kapacity's event for creating (``old`` None) or recounting the ReplicaProfile."""
    if old is None:
        return [
            (
                "Normal",
                "CreateReplicaProfile",
                f"create ReplicaProfile with onlineReplcas: {new.online}, "
                f"cutoffReplicas: {new.cutoff}, standbyReplicas: {new.standby}",
            )
        ]
    if old == new:
        return []
    return [
        (
            "Normal",
            "UpdateReplicaProfile",
            f"update ReplicaProfile with onlineReplcas: {old.online} -> "
            f"{new.online}, cutoffReplicas: {old.cutoff} -> {new.cutoff}, "
            f"standbyReplicas: {old.standby} -> {new.standby}",
        )
    ]


def checker_events(
    readings: Sequence[CheckerReading],
    last_anomaly: Mapping[str, dt.datetime],
    found: Verdict,
    decision: gray_steps.GrayDecision,
    now: dt.datetime,
) -> list[Event]:
    """podscale's event when a checker action comes into force (none while it lasts):
    what was in force from earlier anomalies alone is compared with the verdict."""
    quiet = [replace(r, anomalous=False) for r in readings]
    if verdict(quiet, last_anomaly, now).action == found.action:
        return []
    names = ", ".join(r.name for r in readings if r.anomalous and r.action == found.action)
    if found.action == "Rollback":
        return [
            (
                "Warning",
                "GrayRolledBack",
                f"gray change rolled back to {decision.split.online} online replicas: "
                f"stability checker(s) {names} detected anomalies",
            )
        ]
    return [
        (
            "Warning",
            "GrayPaused",
            f"gray change paused at {decision.split.online} online replicas: "
            f"stability checker(s) {names} detected anomalies",
        )
    ]
