"""A ScaledObject as plain values, with KEDA's defaults: the types and the defaults.

``ScaledObject`` and its parts (``ScaleTarget``, ``Trigger``, ``Advanced`` with
``ScalingModifiers``, ``Fallback``), KEDA's defaults (``pollingInterval`` 30 s,
``cooldownPeriod`` 300 s, ``initialCooldownPeriod`` 0, ``minReplicaCount`` 0,
``maxReplicaCount`` 100, ``fallback.behavior`` ``static``), the annotations KEDA reads and
``ScaledObjectError``. Whether ``minReplicaCount`` was written at all is kept
(``min_replica_count_set``): KEDA's replica-bound and scale-to-zero rules tell an absent
value from an explicit 0 (``validation``). A trigger's empty ``metricType`` reads as
``AverageValue``, as KEDA's scalers take it. ``hpa_min_replicas``/``hpa_max_replicas``
and ``hpa_name`` are what KEDA gives the HPA it generates. ``keda.reading`` builds a
``ScaledObject`` from the object's JSON (``parse_scaled_object``). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "AVERAGE_VALUE",
    "DEFAULT_COOLDOWN_PERIOD",
    "DEFAULT_INITIAL_COOLDOWN_PERIOD",
    "DEFAULT_MAX_REPLICA_COUNT",
    "DEFAULT_MIN_REPLICA_COUNT",
    "DEFAULT_POLLING_INTERVAL",
    "FALLBACK_BEHAVIORS",
    "PAUSED_ANNOTATION",
    "PAUSED_REPLICAS_ANNOTATION",
    "TRANSFER_HPA_OWNERSHIP_ANNOTATION",
    "VALIDATE_HPA_OWNERSHIP_ANNOTATION",
    "Advanced",
    "Fallback",
    "ScaleTarget",
    "ScaledObject",
    "ScaledObjectError",
    "ScalingModifiers",
    "Trigger",
]

DEFAULT_POLLING_INTERVAL: Final = 30
DEFAULT_COOLDOWN_PERIOD: Final = 300
DEFAULT_INITIAL_COOLDOWN_PERIOD: Final = 0
DEFAULT_MIN_REPLICA_COUNT: Final = 0
DEFAULT_MAX_REPLICA_COUNT: Final = 100
# The generated HPA never goes below 1: KEDA itself scales between 0 (or idle) and min.
_HPA_MIN_REPLICAS: Final = 1
AVERAGE_VALUE: Final = "AverageValue"
FALLBACK_BEHAVIORS: Final = (
    "static",
    "currentReplicas",
    "currentReplicasIfHigher",
    "currentReplicasIfLower",
    "scalingModifiers",
)

PAUSED_ANNOTATION: Final = "autoscaling.keda.sh/paused"
PAUSED_REPLICAS_ANNOTATION: Final = "autoscaling.keda.sh/paused-replicas"
TRANSFER_HPA_OWNERSHIP_ANNOTATION: Final = "scaledobject.keda.sh/transfer-hpa-ownership"
VALIDATE_HPA_OWNERSHIP_ANNOTATION: Final = "validations.keda.sh/hpa-ownership"


class ScaledObjectError(ValueError):
    """A ScaledObject field of the wrong JSON type; the message names the field."""


@dataclass(frozen=True)
class ScaleTarget:
    """``spec.scaleTargetRef`` with KEDA's defaults for the group/version and kind."""

    name: str
    api_version: str = "apps/v1"
    kind: str = "Deployment"
    env_source_container_name: str = ""

    @property
    def gvk_string(self) -> str:
        """KEDA's ``GVKString``: ``group/version.Kind`` (``apps/v1.Deployment``; a
        core-group kind reads ``/v1.Kind``), the key its webhook compares targets by."""
        group, _, version = self.api_version.rpartition("/")
        return f"{group}/{version}.{self.kind}"


@dataclass(frozen=True)
class Trigger:
    """One ``spec.triggers`` entry; ``metadata`` is the scaler's own (``triggers``)."""

    type: str
    metadata: Mapping[str, str]
    name: str = ""
    metric_type: str = ""
    use_cached_metrics: bool = False
    authentication_ref: str = ""
    authentication_kind: str = ""

    @property
    def target_type(self) -> str:
        """The metric target type KEDA uses: ``metricType``, ``AverageValue`` when empty."""
        return self.metric_type or AVERAGE_VALUE

    @property
    def is_resource(self) -> bool:
        """A cpu or memory trigger: a Resource metric of the HPA, not an External one."""
        return self.type in ("cpu", "memory")


@dataclass(frozen=True)
class ScalingModifiers:
    """``spec.advanced.scalingModifiers``: the composite metric's formula and targets."""

    formula: str = ""
    target: str = ""
    activation_target: str = ""
    metric_type: str = ""

    @property
    def in_use(self) -> bool:
        """KEDA's ``IsUsingModifiers``: any of the four fields written."""
        return bool(self.formula or self.target or self.activation_target or self.metric_type)


@dataclass(frozen=True)
class Advanced:
    """``spec.advanced``: the generated HPA's name and behavior, restore, modifiers."""

    hpa_name: str = ""
    behavior: Mapping[str, Any] | None = None
    restore_to_original_replica_count: bool = False
    scaling_modifiers: ScalingModifiers = field(default_factory=ScalingModifiers)


@dataclass(frozen=True)
class Fallback:
    """``spec.fallback``: replicas to fall back to after ``failure_threshold`` failures."""

    failure_threshold: int
    replicas: int
    behavior: str = "static"


@dataclass(frozen=True)
class ScaledObject:
    """A ScaledObject's name, annotations and spec, KEDA's defaults applied."""

    name: str
    namespace: str
    scale_target: ScaleTarget
    triggers: tuple[Trigger, ...]
    annotations: Mapping[str, str] = field(default_factory=dict)
    polling_interval: int = DEFAULT_POLLING_INTERVAL
    cooldown_period: int = DEFAULT_COOLDOWN_PERIOD
    initial_cooldown_period: int = DEFAULT_INITIAL_COOLDOWN_PERIOD
    idle_replica_count: int | None = None
    min_replica_count: int = DEFAULT_MIN_REPLICA_COUNT
    max_replica_count: int = DEFAULT_MAX_REPLICA_COUNT
    min_replica_count_set: bool = False
    advanced: Advanced = field(default_factory=Advanced)
    fallback: Fallback | None = None

    @property
    def hpa_min_replicas(self) -> int:
        """The generated HPA's ``minReplicas``: ``minReplicaCount`` when above 0, else 1."""
        return self.min_replica_count if self.min_replica_count > 0 else _HPA_MIN_REPLICAS

    @property
    def hpa_max_replicas(self) -> int:
        """The generated HPA's ``maxReplicas``: ``maxReplicaCount``."""
        return self.max_replica_count

    @property
    def hpa_name(self) -> str:
        """The generated HPA's name: the configured one, else ``keda-hpa-<name>``."""
        return self.advanced.hpa_name or f"keda-hpa-{self.name}"
