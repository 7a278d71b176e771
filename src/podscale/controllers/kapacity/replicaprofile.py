"""A ReplicaProfile read into frozen plain values, with Kapacity's defaults.

A ReplicaProfile (``autoscaling.kapacitystack.io/v1alpha1``, short name ``rp``) holds the
replica counts per pod state that an IntelligentHorizontalPodAutoscaler asks of its scale
target: ``onlineReplicas`` serve traffic, ``cutoffReplicas`` run with no traffic (their
readiness gate is False), ``standbyReplicas`` run with their resources reclaimed; the
workload's replicas are their sum. ``allowedScalingDirection`` (``Both`` unless set) limits
changes of the online count; ``behavior`` names the pod sorter (``WorkloadDefault``: the
workload's own deletion order) and the traffic controller (``ReadinessGate``). The IHPA's
``spec.behavior.replicaProfile`` has the same shape (``read_replica_profile_behavior``,
used by ``types``). Helpers come from ``reading``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podscale.controllers.kapacity.reading import (
    Condition,
    External,
    TargetRef,
    boolean,
    choice,
    conditions,
    external,
    integer,
    mapping,
    string,
    target_ref,
)

__all__ = [
    "PodSorterType",
    "ReplicaProfile",
    "ReplicaProfileBehavior",
    "ReplicaProfileSpec",
    "ReplicaProfileStatus",
    "ScalingDirection",
    "TrafficControllerType",
    "parse_replica_profile",
    "read_replica_profile_behavior",
]


class ScalingDirection(StrEnum):
    BOTH = "Both"
    NEITHER = "Neither"
    UP = "Up"
    DOWN = "Down"


class PodSorterType(StrEnum):
    WORKLOAD_DEFAULT = "WorkloadDefault"
    EXTERNAL = "External"


class TrafficControllerType(StrEnum):
    READINESS_GATE = "ReadinessGate"
    EXTERNAL = "External"


@dataclass(frozen=True, slots=True)
class ReplicaProfileBehavior:
    """Kapacity's default when unset: the workload's own pod order, the readiness gate."""

    pod_sorter: PodSorterType = PodSorterType.WORKLOAD_DEFAULT
    pod_sorter_external: External | None = None
    traffic_controller: TrafficControllerType = TrafficControllerType.READINESS_GATE
    traffic_controller_external: External | None = None


@dataclass(frozen=True, slots=True)
class ReplicaProfileSpec:
    target: TargetRef
    online_replicas: int = 0
    cutoff_replicas: int = 0
    standby_replicas: int = 0
    paused: bool = False
    allowed_scaling_direction: ScalingDirection = ScalingDirection.BOTH
    behavior: ReplicaProfileBehavior = ReplicaProfileBehavior()

    @property
    def workload_replicas(self) -> int:
        """The replicas the workload runs: every pod not deleted, whatever its state."""
        return self.online_replicas + self.cutoff_replicas + self.standby_replicas


@dataclass(frozen=True, slots=True)
class ReplicaProfileStatus:
    online_replicas: int = 0
    cutoff_replicas: int = 0
    standby_replicas: int = 0
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True, slots=True)
class ReplicaProfile:
    namespace: str
    name: str
    generation: int
    spec: ReplicaProfileSpec
    status: ReplicaProfileStatus


def read_replica_profile_behavior(value: Any, path: str) -> ReplicaProfileBehavior:
    """A ReplicaProfile ``behavior`` (or an IHPA's ``behavior.replicaProfile``)."""
    body = mapping(value, path)
    sorter = mapping(body.get("podSorter"), f"{path}.podSorter")
    traffic = mapping(body.get("podTrafficController"), f"{path}.podTrafficController")
    return ReplicaProfileBehavior(
        pod_sorter=choice(
            PodSorterType,
            sorter.get("type"),
            f"{path}.podSorter.type",
            PodSorterType.WORKLOAD_DEFAULT,
        ),
        pod_sorter_external=external(sorter.get("external"), f"{path}.podSorter.external"),
        traffic_controller=choice(
            TrafficControllerType,
            traffic.get("type"),
            f"{path}.podTrafficController.type",
            TrafficControllerType.READINESS_GATE,
        ),
        traffic_controller_external=external(
            traffic.get("external"), f"{path}.podTrafficController.external"
        ),
    )


def parse_replica_profile(obj: Mapping[str, Any]) -> ReplicaProfile:
    """``obj`` (a ReplicaProfile's JSON) as a ``ReplicaProfile``."""
    meta = mapping(obj.get("metadata"), "metadata")
    spec = mapping(obj.get("spec"), "spec")
    status = mapping(obj.get("status"), "status")
    return ReplicaProfile(
        namespace=string(meta.get("namespace"), "metadata.namespace"),
        name=string(meta.get("name"), "metadata.name"),
        generation=integer(meta.get("generation"), "metadata.generation"),
        spec=ReplicaProfileSpec(
            target=target_ref(spec.get("scaleTargetRef"), "spec.scaleTargetRef"),
            online_replicas=integer(spec.get("onlineReplicas"), "spec.onlineReplicas"),
            cutoff_replicas=integer(spec.get("cutoffReplicas"), "spec.cutoffReplicas"),
            standby_replicas=integer(spec.get("standbyReplicas"), "spec.standbyReplicas"),
            paused=boolean(spec.get("paused"), "spec.paused"),
            allowed_scaling_direction=choice(
                ScalingDirection,
                spec.get("allowedScalingDirection"),
                "spec.allowedScalingDirection",
                ScalingDirection.BOTH,
            ),
            behavior=read_replica_profile_behavior(spec.get("behavior"), "spec.behavior"),
        ),
        status=ReplicaProfileStatus(
            online_replicas=integer(status.get("onlineReplicas"), "status.onlineReplicas"),
            cutoff_replicas=integer(status.get("cutoffReplicas"), "status.cutoffReplicas"),
            standby_replicas=integer(status.get("standbyReplicas"), "status.standbyReplicas"),
            conditions=conditions(status.get("conditions"), "status.conditions"),
        ),
    )
