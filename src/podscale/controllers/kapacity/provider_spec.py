"""An IntelligentHorizontalPodAutoscaler's ``portraitProviders`` entries read into plain values.

``read_provider`` (used by ``types.parse_ihpa``) reads one entry: its ``type`` and
``priority`` and the part of each kind present, Static (a replica count), Cron (rules with
a per-rule ``timeZone`` that defaults to ``UTC``, and ``start``/``end`` cron specs) and
Dynamic (the portrait type, metrics and algorithm). A ``KubeHPA`` algorithm's durations
are Go durations and its tolerance a Go float text, with Kapacity's CRD defaults (15s,
0.1, 5m, 30s); text Go would not parse raises ``KapacityError`` with Go's message.
Metrics (autoscaling/v2 MetricSpecs plus Kapacity's ``name`` and ``operator``) are kept as
written. Helpers come from ``reading``; ``validation`` checks the Cron rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from podscale.controllers.kapacity.reading import KapacityError, integer, items, mapping, string
from podscale.cron import CronError
from podscale.cron.gotime import parse_duration

__all__ = [
    "DynamicProvider",
    "KubeHPAAlgorithm",
    "PortraitAlgorithm",
    "PortraitProvider",
    "ReplicaCron",
    "read_metrics",
    "read_provider",
]

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


def read_metrics(value: Any, path: str) -> tuple[Mapping[str, Any], ...]:
    return tuple(mapping(m, f"{path}[{i}]") for i, m in enumerate(items(value, path)))


def read_provider(raw: Any, path: str) -> PortraitProvider:
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
            metrics=read_metrics(body.get("metrics"), f"{at}.metrics"),
            algorithm=_algorithm(body.get("algorithm"), f"{at}.algorithm"),
        )
    return PortraitProvider(
        type=string(entry.get("type"), f"{path}.type"),
        priority=integer(entry.get("priority"), f"{path}.priority"),
        static_replicas=static,
        crons=crons,
        dynamic=dynamic,
    )
