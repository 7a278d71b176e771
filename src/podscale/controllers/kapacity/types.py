"""An IntelligentHorizontalPodAutoscaler read into frozen plain values, with Kapacity's defaults.

``parse_ihpa`` turns the object's JSON into an ``Ihpa``: the spec (scale target, ``paused``,
``minReplicas``/``maxReplicas`` (0 allowed), ``scaleMode`` (``Auto`` unless ``Preview``),
the portrait providers (Static, Cron rules with a per-rule ``timeZone`` defaulting to
``UTC``, Dynamic with its portrait type, metrics and algorithm; a ``KubeHPA`` algorithm's
sync period 15s, tolerance 0.1, CPU initialization period 5m and readiness delay 30s), the
per-direction behavior (a ``grayStrategy`` or none; none means no gray change) with the
ReplicaProfile's pod sorter and traffic controller (``WorkloadDefault``, ``ReadinessGate``),
and the stability checkers) and the status (previous and current portrait values, the gray
percent, the conditions). Fields hold Go's zero values where Kapacity's structs do; wrong
JSON types raise ``KapacityError``. Neighbours: ``reading`` (helpers), ``provider_spec``
(the portrait providers) and ``ihpa_status`` (the status), whose types this module
re-exports; ``replicaprofile`` (the ReplicaProfile and the behavior it shares);
``validation`` (what the schema cannot check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podscale.controllers.kapacity.ihpa_status import (
    GrayStatus,
    IhpaStatus,
    PortraitValue,
    read_status,
)
from podscale.controllers.kapacity.provider_spec import (
    DynamicProvider,
    KubeHPAAlgorithm,
    PortraitAlgorithm,
    PortraitProvider,
    ReplicaCron,
    read_metrics,
    read_provider,
)
from podscale.controllers.kapacity.reading import (
    External,
    TargetRef,
    boolean,
    choice,
    external,
    integer,
    items,
    mapping,
    string,
    target_ref,
)
from podscale.controllers.kapacity.replicaprofile import (
    ReplicaProfileBehavior,
    read_replica_profile_behavior,
)

__all__ = [
    "Behavior",
    "CheckerType",
    "DynamicProvider",
    "GrayStatus",
    "GrayStrategy",
    "Ihpa",
    "IhpaSpec",
    "IhpaStatus",
    "KubeHPAAlgorithm",
    "PodState",
    "PortraitAlgorithm",
    "PortraitProvider",
    "PortraitValue",
    "ProviderType",
    "ReplicaCron",
    "ScaleMode",
    "StabilityChecker",
    "StabilizationAction",
    "parse_ihpa",
]


class ScaleMode(StrEnum):
    AUTO = "Auto"
    PREVIEW = "Preview"


class ProviderType(StrEnum):
    STATIC = "Static"
    CRON = "Cron"
    DYNAMIC = "Dynamic"


class PodState(StrEnum):
    """A gray step's pod state: scale-ups are always Online, scale-downs one of the others."""

    ONLINE = "Online"
    CUTOFF = "Cutoff"
    STANDBY = "Standby"
    DELETED = "Deleted"


class CheckerType(StrEnum):
    METRICS = "Metrics"
    EXTERNAL = "External"


class StabilizationAction(StrEnum):
    PAUSE = "Pause"
    ROLLBACK = "Rollback"


@dataclass(frozen=True, slots=True)
class GrayStrategy:
    gray_state: PodState
    change_interval_seconds: int
    change_percent: int
    observation_seconds: int = 0


@dataclass(frozen=True, slots=True)
class Behavior:
    """``spec.behavior``: a direction without a gray strategy changes replicas at once; a
    ``disabled`` direction not at all."""

    scale_up: GrayStrategy | None = None
    scale_down: GrayStrategy | None = None
    replica_profile: ReplicaProfileBehavior | None = None
    scale_up_disabled: bool = False
    scale_down_disabled: bool = False


@dataclass(frozen=True, slots=True)
class StabilityChecker:
    type: str
    action: StabilizationAction
    cool_down_seconds: int = 0
    metrics: tuple[Mapping[str, Any], ...] = ()
    external: External | None = None


@dataclass(frozen=True, slots=True)
class IhpaSpec:
    target: TargetRef
    min_replicas: int
    max_replicas: int
    portrait_providers: tuple[PortraitProvider, ...]
    paused: bool = False
    scale_mode: ScaleMode = ScaleMode.AUTO
    behavior: Behavior = Behavior()
    stability_checkers: tuple[StabilityChecker, ...] = ()


@dataclass(frozen=True, slots=True)
class Ihpa:
    namespace: str
    name: str
    generation: int
    spec: IhpaSpec
    status: IhpaStatus


def _gray(raw: Any, path: str) -> GrayStrategy | None:
    strategy = mapping(raw, path).get("grayStrategy")
    if strategy is None:
        return None
    at = f"{path}.grayStrategy"
    body = mapping(strategy, at)
    return GrayStrategy(
        gray_state=choice(PodState, body.get("grayState"), f"{at}.grayState", PodState.ONLINE),
        change_interval_seconds=integer(
            body.get("changeIntervalSeconds"), f"{at}.changeIntervalSeconds"
        ),
        change_percent=integer(body.get("changePercent"), f"{at}.changePercent"),
        observation_seconds=integer(body.get("observationSeconds"), f"{at}.observationSeconds"),
    )


def _behavior(raw: Any, path: str) -> Behavior:
    body = mapping(raw, path)
    profile = body.get("replicaProfile")
    up, down = body.get("scaleUp"), body.get("scaleDown")
    return Behavior(
        scale_up=_gray(up, f"{path}.scaleUp"),
        scale_down=_gray(down, f"{path}.scaleDown"),
        scale_up_disabled=boolean(
            mapping(up, f"{path}.scaleUp").get("disabled"), f"{path}.scaleUp.disabled"
        ),
        scale_down_disabled=boolean(
            mapping(down, f"{path}.scaleDown").get("disabled"), f"{path}.scaleDown.disabled"
        ),
        replica_profile=None
        if profile is None
        else read_replica_profile_behavior(profile, f"{path}.replicaProfile"),
    )


def _checker(raw: Any, path: str) -> StabilityChecker:
    body = mapping(raw, path)
    metrics = body.get("metrics")
    return StabilityChecker(
        type=string(body.get("type"), f"{path}.type"),
        action=choice(
            StabilizationAction,
            body.get("stabilizationAction"),
            f"{path}.stabilizationAction",
            StabilizationAction.PAUSE,
        ),
        cool_down_seconds=integer(body.get("coolDownSeconds"), f"{path}.coolDownSeconds"),
        metrics=()
        if metrics is None
        else read_metrics(
            mapping(metrics, f"{path}.metrics").get("metrics"), f"{path}.metrics.metrics"
        ),
        external=external(body.get("external"), f"{path}.external"),
    )


def parse_ihpa(obj: Mapping[str, Any]) -> Ihpa:
    """``obj`` (an IntelligentHorizontalPodAutoscaler's JSON) as an ``Ihpa``."""
    meta = mapping(obj.get("metadata"), "metadata")
    spec = mapping(obj.get("spec"), "spec")
    providers = items(spec.get("portraitProviders"), "spec.portraitProviders")
    checkers = items(spec.get("stabilityCheckers"), "spec.stabilityCheckers")
    return Ihpa(
        namespace=string(meta.get("namespace"), "metadata.namespace"),
        name=string(meta.get("name"), "metadata.name"),
        generation=integer(meta.get("generation"), "metadata.generation"),
        spec=IhpaSpec(
            target=target_ref(spec.get("scaleTargetRef"), "spec.scaleTargetRef"),
            paused=boolean(spec.get("paused"), "spec.paused"),
            min_replicas=integer(spec.get("minReplicas"), "spec.minReplicas"),
            max_replicas=integer(spec.get("maxReplicas"), "spec.maxReplicas"),
            scale_mode=choice(ScaleMode, spec.get("scaleMode"), "spec.scaleMode", ScaleMode.AUTO),
            portrait_providers=tuple(
                read_provider(p, f"spec.portraitProviders[{i}]") for i, p in enumerate(providers)
            ),
            behavior=_behavior(spec.get("behavior"), "spec.behavior"),
            stability_checkers=tuple(
                _checker(c, f"spec.stabilityCheckers[{i}]") for i, c in enumerate(checkers)
            ),
        ),
        status=read_status(obj.get("status")),
    )
