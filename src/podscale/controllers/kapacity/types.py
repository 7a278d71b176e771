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
JSON types raise ``KapacityError``. Neighbours: ``reading`` (helpers), ``replicaprofile``
(the ReplicaProfile and the behavior it shares), ``validation`` (what the schema cannot
check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final

from podscale.controllers.kapacity.reading import (
    JSON,
    Condition,
    External,
    KapacityError,
    TargetRef,
    boolean,
    choice,
    conditions,
    external,
    format_time,
    integer,
    items,
    mapping,
    string,
    target_ref,
    timestamp,
)
from podscale.controllers.kapacity.replicaprofile import (
    ReplicaProfileBehavior,
    read_replica_profile_behavior,
)
from podscale.cron import CronError
from podscale.cron.gotime import parse_duration

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


# A KubeHPA algorithm's defaults, from Kapacity's CRD (the upstream HPA controller's own).
DEFAULT_SYNC_PERIOD: Final = "15s"
DEFAULT_TOLERANCE: Final = "0.1"
DEFAULT_CPU_INITIALIZATION_PERIOD: Final = "5m"
DEFAULT_INITIAL_READINESS_DELAY: Final = "30s"


@dataclass(frozen=True, slots=True)
class ReplicaCron:
    name: str
    start: str
    end: str
    replicas: int
    time_zone: str = "UTC"
    description: str = ""


@dataclass(frozen=True, slots=True)
class KubeHPAAlgorithm:
    sync_period: timedelta
    tolerance: float
    cpu_initialization_period: timedelta
    initial_readiness_delay: timedelta


@dataclass(frozen=True, slots=True)
class PortraitAlgorithm:
    type: str
    kube_hpa: KubeHPAAlgorithm | None = None
    external_job: Mapping[str, Any] | None = None
    config: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class DynamicProvider:
    portrait_type: str
    algorithm: PortraitAlgorithm
    metrics: tuple[Mapping[str, Any], ...] = ()
    external_generator_name: str = ""


@dataclass(frozen=True, slots=True)
class PortraitProvider:
    """One ``portraitProviders`` entry; the part matching ``type`` is the one used."""

    type: str
    priority: int
    static_replicas: int | None = None
    crons: tuple[ReplicaCron, ...] | None = None
    dynamic: DynamicProvider | None = None


@dataclass(frozen=True, slots=True)
class GrayStrategy:
    gray_state: PodState
    change_interval_seconds: int
    change_percent: int
    observation_seconds: int = 0


@dataclass(frozen=True, slots=True)
class Behavior:
    """``spec.behavior``: a direction without a gray strategy changes replicas at once."""

    scale_up: GrayStrategy | None = None
    scale_down: GrayStrategy | None = None
    replica_profile: ReplicaProfileBehavior | None = None


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
class PortraitValue:
    """A portrait's desired online replicas, the provider it came from and when it expires."""

    provider: str
    replicas: int
    expire_time: datetime | None = None

    def to_json(self) -> JSON:
        body: JSON = {"provider": self.provider, "replicas": self.replicas}
        if self.expire_time is not None:
            body["expireTime"] = format_time(self.expire_time)
        return body


@dataclass(frozen=True, slots=True)
class GrayStatus:
    gray_percent: int
    last_update_time: datetime | None

    def to_json(self) -> JSON:
        stamp = None if self.last_update_time is None else format_time(self.last_update_time)
        # metav1.Time writes a zero time as null; Kapacity's field has no omitempty.
        return {"grayPercent": self.gray_percent, "lastUpdateTime": stamp}


@dataclass(frozen=True, slots=True)
class IhpaStatus:
    previous: PortraitValue | None = None
    current: PortraitValue | None = None
    gray: GrayStatus | None = None
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True, slots=True)
class Ihpa:
    namespace: str
    name: str
    generation: int
    spec: IhpaSpec
    status: IhpaStatus


def _duration(value: Any, path: str, default: str) -> timedelta:
    text = string(value, path, default) or default
    try:
        nanoseconds = parse_duration(text, path)
    except CronError as error:
        raise KapacityError(f"{path}: {error.message}") from None
    return timedelta(microseconds=nanoseconds // 1000)


def _tolerance(value: Any, path: str) -> float:
    text = string(value, path, DEFAULT_TOLERANCE) or DEFAULT_TOLERANCE
    # Go's strconv.ParseFloat takes no spaces and no digit separators, unlike float().
    try:
        if text != text.strip() or "_" in text:
            raise ValueError(text)
        return float(text)
    except ValueError:
        raise KapacityError(
            f'{path}: strconv.ParseFloat: parsing "{text}": invalid syntax'
        ) from None


def _cron(raw: Any, path: str) -> ReplicaCron:
    entry = mapping(raw, path)
    return ReplicaCron(
        name=string(entry.get("name"), f"{path}.name"),
        description=string(entry.get("description"), f"{path}.description"),
        # An explicit "" loads as UTC in Go's time.LoadLocation, like the default.
        time_zone=string(entry.get("timeZone"), f"{path}.timeZone", "UTC"),
        start=string(entry.get("start"), f"{path}.start"),
        end=string(entry.get("end"), f"{path}.end"),
        replicas=integer(entry.get("replicas"), f"{path}.replicas"),
    )


def _algorithm(raw: Any, path: str) -> PortraitAlgorithm:
    entry = mapping(raw, path)
    kube = None
    if entry.get("kubeHPA") is not None:
        at = f"{path}.kubeHPA"
        hpa = mapping(entry["kubeHPA"], at)
        kube = KubeHPAAlgorithm(
            sync_period=_duration(hpa.get("syncPeriod"), f"{at}.syncPeriod", DEFAULT_SYNC_PERIOD),
            tolerance=_tolerance(hpa.get("tolerance"), f"{at}.tolerance"),
            cpu_initialization_period=_duration(
                hpa.get("cpuInitializationPeriod"),
                f"{at}.cpuInitializationPeriod",
                DEFAULT_CPU_INITIALIZATION_PERIOD,
            ),
            initial_readiness_delay=_duration(
                hpa.get("initialReadinessDelay"),
                f"{at}.initialReadinessDelay",
                DEFAULT_INITIAL_READINESS_DELAY,
            ),
        )
    job, config = entry.get("externalJob"), entry.get("config")
    return PortraitAlgorithm(
        type=string(entry.get("type"), f"{path}.type"),
        kube_hpa=kube,
        external_job=None if job is None else mapping(job, f"{path}.externalJob"),
        config=None if config is None else mapping(config, f"{path}.config"),
    )


def _metrics(value: Any, path: str) -> tuple[Mapping[str, Any], ...]:
    return tuple(mapping(m, f"{path}[{i}]") for i, m in enumerate(items(value, path)))


def _provider(raw: Any, path: str) -> PortraitProvider:
    entry = mapping(raw, path)
    static = crons = dynamic = None
    if entry.get("static") is not None:
        at = f"{path}.static"
        static = integer(mapping(entry["static"], at).get("replicas"), f"{at}.replicas")
    if entry.get("cron") is not None:
        at = f"{path}.cron.crons"
        listed = items(mapping(entry["cron"], f"{path}.cron").get("crons"), at)
        crons = tuple(_cron(rule, f"{at}[{i}]") for i, rule in enumerate(listed))
    if entry.get("dynamic") is not None:
        at = f"{path}.dynamic"
        body = mapping(entry["dynamic"], at)
        dynamic = DynamicProvider(
            portrait_type=string(body.get("portraitType"), f"{at}.portraitType"),
            external_generator_name=string(
                body.get("externalGeneratorName"), f"{at}.externalGeneratorName"
            ),
            metrics=_metrics(body.get("metrics"), f"{at}.metrics"),
            algorithm=_algorithm(body.get("algorithm"), f"{at}.algorithm"),
        )
    return PortraitProvider(
        type=string(entry.get("type"), f"{path}.type"),
        priority=integer(entry.get("priority"), f"{path}.priority"),
        static_replicas=static,
        crons=crons,
        dynamic=dynamic,
    )


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
    return Behavior(
        scale_up=_gray(body.get("scaleUp"), f"{path}.scaleUp"),
        scale_down=_gray(body.get("scaleDown"), f"{path}.scaleDown"),
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
        else _metrics(
            mapping(metrics, f"{path}.metrics").get("metrics"), f"{path}.metrics.metrics"
        ),
        external=external(body.get("external"), f"{path}.external"),
    )


def _value(raw: Any, path: str) -> PortraitValue | None:
    if raw is None:
        return None
    body = mapping(raw, path)
    return PortraitValue(
        provider=string(body.get("provider"), f"{path}.provider"),
        replicas=integer(body.get("replicas"), f"{path}.replicas"),
        expire_time=timestamp(body.get("expireTime"), f"{path}.expireTime"),
    )


def _status(raw: Any) -> IhpaStatus:
    body = mapping(raw, "status")
    gray = body.get("gray")
    gray_status = None
    if gray is not None:
        at = mapping(gray, "status.gray")
        gray_status = GrayStatus(
            gray_percent=integer(at.get("grayPercent"), "status.gray.grayPercent"),
            last_update_time=timestamp(at.get("lastUpdateTime"), "status.gray.lastUpdateTime"),
        )
    return IhpaStatus(
        previous=_value(body.get("previousPortraitValue"), "status.previousPortraitValue"),
        current=_value(body.get("currentPortraitValue"), "status.currentPortraitValue"),
        gray=gray_status,
        conditions=conditions(body.get("conditions"), "status.conditions"),
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
                _provider(p, f"spec.portraitProviders[{i}]") for i, p in enumerate(providers)
            ),
            behavior=_behavior(spec.get("behavior"), "spec.behavior"),
            stability_checkers=tuple(
                _checker(c, f"spec.stabilityCheckers[{i}]") for i, c in enumerate(checkers)
            ),
        ),
        status=_status(obj.get("status")),
    )
