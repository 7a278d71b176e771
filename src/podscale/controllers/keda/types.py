"""A ScaledObject read into plain values, with KEDA's defaults.

``parse_scaled_object`` turns the object's JSON into a ``ScaledObject``: the scale target
(``apiVersion`` ``apps/v1`` and ``kind`` ``Deployment`` when left out, as KEDA resolves
them), ``pollingInterval`` 30 s, ``cooldownPeriod`` 300 s, ``initialCooldownPeriod`` 0,
``minReplicaCount`` 0, ``maxReplicaCount`` 100, ``fallback.behavior`` ``static``, and the
triggers in order. Whether ``minReplicaCount`` was written at all is kept
(``min_replica_count_set``): KEDA's replica-bound and scale-to-zero rules tell an absent
value from an explicit 0 (``validation``). A trigger's empty ``metricType`` reads as
``AverageValue``, as KEDA's scalers take it. ``hpa_min_replicas``/``hpa_max_replicas``
and ``hpa_name`` are what KEDA gives the HPA it generates. It expects an object that passed
the CRD's schema (``kind.definition``) and raises ``ScaledObjectError`` on a field of the
wrong JSON type. Pure.
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
    "parse_scaled_object",
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


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ScaledObjectError(f"{path}: must be an object")
    return value


def _int(value: Any, path: str, default: int) -> int:
    if value is None:
        return default
    # JSON booleans are ints to Python; a schema-checked object never has one here.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScaledObjectError(f"{path}: must be an integer")
    return value


def _str(value: Any, path: str, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise ScaledObjectError(f"{path}: must be a string")
    return value


def _bool(value: Any, path: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ScaledObjectError(f"{path}: must be a boolean")
    return value


def _strings(value: Any, path: str) -> dict[str, str]:
    return {key: _str(item, f"{path}.{key}") for key, item in _mapping(value, path).items()}


def _target(raw: Mapping[str, Any]) -> ScaleTarget:
    path = "spec.scaleTargetRef"
    return ScaleTarget(
        name=_str(raw.get("name"), f"{path}.name"),
        api_version=_str(raw.get("apiVersion"), f"{path}.apiVersion") or "apps/v1",
        kind=_str(raw.get("kind"), f"{path}.kind") or "Deployment",
        env_source_container_name=_str(
            raw.get("envSourceContainerName"), f"{path}.envSourceContainerName"
        ),
    )


def _trigger(raw: Any, index: int) -> Trigger:
    path = f"spec.triggers[{index}]"
    item = _mapping(raw, path)
    auth = _mapping(item.get("authenticationRef"), f"{path}.authenticationRef")
    return Trigger(
        type=_str(item.get("type"), f"{path}.type"),
        metadata=_strings(item.get("metadata"), f"{path}.metadata"),
        name=_str(item.get("name"), f"{path}.name"),
        metric_type=_str(item.get("metricType"), f"{path}.metricType"),
        use_cached_metrics=_bool(item.get("useCachedMetrics"), f"{path}.useCachedMetrics"),
        authentication_ref=_str(auth.get("name"), f"{path}.authenticationRef.name"),
        authentication_kind=_str(auth.get("kind"), f"{path}.authenticationRef.kind"),
    )


def _advanced(raw: Mapping[str, Any]) -> Advanced:
    path = "spec.advanced"
    hpa = _mapping(
        raw.get("horizontalPodAutoscalerConfig"), f"{path}.horizontalPodAutoscalerConfig"
    )
    behavior = hpa.get("behavior")
    mods = _mapping(raw.get("scalingModifiers"), f"{path}.scalingModifiers")
    mods_path = f"{path}.scalingModifiers"
    return Advanced(
        hpa_name=_str(hpa.get("name"), f"{path}.horizontalPodAutoscalerConfig.name"),
        behavior=None
        if behavior is None
        else _mapping(behavior, f"{path}.horizontalPodAutoscalerConfig.behavior"),
        restore_to_original_replica_count=_bool(
            raw.get("restoreToOriginalReplicaCount"), f"{path}.restoreToOriginalReplicaCount"
        ),
        scaling_modifiers=ScalingModifiers(
            formula=_str(mods.get("formula"), f"{mods_path}.formula"),
            target=_str(mods.get("target"), f"{mods_path}.target"),
            activation_target=_str(mods.get("activationTarget"), f"{mods_path}.activationTarget"),
            metric_type=_str(mods.get("metricType"), f"{mods_path}.metricType"),
        ),
    )


def _fallback(raw: Any) -> Fallback | None:
    if raw is None:
        return None
    path = "spec.fallback"
    item = _mapping(raw, path)
    return Fallback(
        failure_threshold=_int(item.get("failureThreshold"), f"{path}.failureThreshold", 0),
        replicas=_int(item.get("replicas"), f"{path}.replicas", 0),
        behavior=_str(item.get("behavior"), f"{path}.behavior") or "static",
    )


def parse_scaled_object(obj: Mapping[str, Any]) -> ScaledObject:
    """The ScaledObject ``obj`` (its JSON) with KEDA's defaults applied."""
    meta = _mapping(obj.get("metadata"), "metadata")
    spec = _mapping(obj.get("spec"), "spec")
    triggers = spec.get("triggers")
    if triggers is not None and not isinstance(triggers, list):
        raise ScaledObjectError("spec.triggers: must be an array")
    min_count = spec.get("minReplicaCount")
    return ScaledObject(
        name=_str(meta.get("name"), "metadata.name"),
        namespace=_str(meta.get("namespace"), "metadata.namespace"),
        annotations=_strings(meta.get("annotations"), "metadata.annotations"),
        scale_target=_target(_mapping(spec.get("scaleTargetRef"), "spec.scaleTargetRef")),
        triggers=tuple(_trigger(item, index) for index, item in enumerate(triggers or ())),
        polling_interval=_int(
            spec.get("pollingInterval"), "spec.pollingInterval", DEFAULT_POLLING_INTERVAL
        ),
        cooldown_period=_int(
            spec.get("cooldownPeriod"), "spec.cooldownPeriod", DEFAULT_COOLDOWN_PERIOD
        ),
        initial_cooldown_period=_int(
            spec.get("initialCooldownPeriod"),
            "spec.initialCooldownPeriod",
            DEFAULT_INITIAL_COOLDOWN_PERIOD,
        ),
        idle_replica_count=None
        if spec.get("idleReplicaCount") is None
        else _int(spec.get("idleReplicaCount"), "spec.idleReplicaCount", 0),
        min_replica_count=_int(min_count, "spec.minReplicaCount", DEFAULT_MIN_REPLICA_COUNT),
        max_replica_count=_int(
            spec.get("maxReplicaCount"), "spec.maxReplicaCount", DEFAULT_MAX_REPLICA_COUNT
        ),
        min_replica_count_set=min_count is not None,
        advanced=_advanced(_mapping(spec.get("advanced"), "spec.advanced")),
        fallback=_fallback(spec.get("fallback")),
    )
