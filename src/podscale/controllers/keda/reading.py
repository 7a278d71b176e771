"""Reading a ScaledObject's JSON into ``keda.types.ScaledObject``, with KEDA's defaults.

``parse_scaled_object`` turns the object's JSON into a ``ScaledObject``: the scale target
(``apiVersion`` ``apps/v1`` and ``kind`` ``Deployment`` when left out, as KEDA resolves
them), the defaults of ``keda.types`` for what is left out, and the triggers in order;
whether ``minReplicaCount`` was written at all is kept (``min_replica_count_set``). It
expects an object that passed the CRD's schema (``kind.definition``) and raises
``ScaledObjectError`` on a field of the wrong JSON type. Used by the controller, reconciler,
metrics_server and webhook of this package. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.controllers.keda.types import (
    DEFAULT_COOLDOWN_PERIOD,
    DEFAULT_INITIAL_COOLDOWN_PERIOD,
    DEFAULT_MAX_REPLICA_COUNT,
    DEFAULT_MIN_REPLICA_COUNT,
    DEFAULT_POLLING_INTERVAL,
    Advanced,
    Fallback,
    ScaledObject,
    ScaledObjectError,
    ScaleTarget,
    ScalingModifiers,
    Trigger,
)

__all__ = ["parse_scaled_object"]


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
