"""The explain-scale input document: one moment of one HPA, versioned and validated.

``podscale explain-scale FILE`` reads a YAML or JSON document of kind ``ScaleInput``
(``apiVersion: podscale.dev/v1alpha1``) and ``parse_scale_input`` turns its parsed
content into the arguments of ``decide``: the HPA, its target's Scale, the pods, a
``StaticMetricsSource`` built from the samples, the history and ``now``. Pods may be
full Pod JSON or a shorthand (``name``, ``phase``, ``ready``, ``startTime``,
``requests``). Every problem is reported with its path in the document, e.g.
``pods[1].requests.cpu: Invalid value: "1x": quantities must match ...``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from podscale.api.conversion import hpa_v1_to_v2
from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, parse_feature_gates
from podscale.api.quantity import QuantityError, parse_quantity
from podscale.hpa.conditions import format_time
from podscale.hpa.static_source import StaticMetricsSource
from podscale.hpa.types import Config, History, Recommendation, ScaleEvent

__all__ = [
    "API_VERSION",
    "KIND",
    "ScaleInput",
    "ScaleInputError",
    "parse_scale_input",
    "parse_time",
]

API_VERSION: Final = "podscale.dev/v1alpha1"
KIND: Final = "ScaleInput"


class ScaleInputError(ValueError):
    """The document is not a valid ScaleInput; the message names the field."""


@dataclass(frozen=True, slots=True)
class ScaleInput:
    hpa: dict[str, Any]
    scale: dict[str, Any]
    pods: list[dict[str, Any]]
    metrics: StaticMetricsSource
    history: History | None
    now: datetime
    config: Config


def parse_time(value: Any, path: str) -> datetime:
    """RFC 3339 (``2026-11-22T10:00:00Z``); naive times are taken as UTC."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ScaleInputError(
                f'{path}: Invalid value: "{value}": must be an RFC 3339 time'
            ) from None
    else:
        raise ScaleInputError(f"{path}: Invalid value: {value!r}: must be an RFC 3339 time")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _milli(value: Any, path: str) -> int:
    try:
        return parse_quantity(value).milli_value()
    except (QuantityError, TypeError, ValueError) as err:
        raise ScaleInputError(f'{path}: Invalid value: "{value}": {err}') from None


def _mapping(value: Any, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ScaleInputError(f"{path}: Invalid value: must be a mapping")
    return value


def _seconds(value: Any, path: str, default: timedelta) -> timedelta:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ScaleInputError(f"{path}: Invalid value: {value!r}: must be a number of seconds >= 0")
    return timedelta(seconds=value)


def _parse_config(doc: dict[str, Any]) -> Config:
    raw = _mapping(doc.get("config"), "config")
    base = Config()
    tolerance = raw.get("tolerance", base.tolerance)
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
        raise ScaleInputError(f"config.tolerance: Invalid value: {tolerance!r}: must be >= 0")
    try:
        gates = parse_feature_gates(str(raw.get("featureGates") or ""), DEFAULT_FEATURE_GATES)
    except ValueError as err:
        raise ScaleInputError(f"config.featureGates: Invalid value: {err}") from None
    return Config(
        tolerance=float(tolerance),
        cpu_initialization_period=_seconds(
            raw.get("cpuInitializationPeriodSeconds"),
            "config.cpuInitializationPeriodSeconds",
            base.cpu_initialization_period,
        ),
        initial_readiness_delay=_seconds(
            raw.get("initialReadinessDelaySeconds"),
            "config.initialReadinessDelaySeconds",
            base.initial_readiness_delay,
        ),
        downscale_stabilization=_seconds(
            raw.get("downscaleStabilizationSeconds"),
            "config.downscaleStabilizationSeconds",
            base.downscale_stabilization,
        ),
        feature_gates=gates,
    )


def _expand_pod(entry: Any, index: int, now: datetime) -> dict[str, Any]:
    """Full Pod JSON passes through; the shorthand becomes a running, ready Pod."""
    path = f"pods[{index}]"
    if not isinstance(entry, dict):
        raise ScaleInputError(f"{path}: Invalid value: must be a Pod or a pod shorthand mapping")
    if "metadata" in entry:
        if not (entry.get("metadata") or {}).get("name"):
            raise ScaleInputError(f"{path}.metadata.name: Required value")
        return entry
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ScaleInputError(f"{path}.name: Required value")
    started = parse_time(
        entry.get("startTime", format_time(now - timedelta(minutes=10))), f"{path}.startTime"
    )
    ready = bool(entry.get("ready", True))
    since = parse_time(entry.get("readySince", format_time(started)), f"{path}.readySince")
    requests = _mapping(entry.get("requests"), f"{path}.requests")
    for resource, quantity in requests.items():
        _milli(quantity, f"{path}.requests.{resource}")
    metadata: dict[str, Any] = {
        "name": name,
        "labels": _mapping(entry.get("labels"), f"{path}.labels"),
    }
    if entry.get("deleted"):
        metadata["deletionTimestamp"] = format_time(now)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [{"name": "app", "resources": {"requests": dict(requests)}}]},
        "status": {
            "phase": entry.get("phase", "Running"),
            "startTime": format_time(started),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "lastTransitionTime": format_time(since),
                }
            ],
        },
    }


def _parse_metrics(doc: dict[str, Any], now: datetime) -> StaticMetricsSource:
    raw = _mapping(doc.get("metrics"), "metrics")
    resources: dict[str, dict[str, dict[str, int]]] = {}
    for resource, by_pod in _mapping(raw.get("resource"), "metrics.resource").items():
        pods: dict[str, dict[str, int]] = {}
        for pod, value in _mapping(by_pod, f"metrics.resource.{resource}").items():
            where = f"metrics.resource.{resource}.{pod}"
            if isinstance(value, dict):
                pods[pod] = {ctr: _milli(v, f"{where}.{ctr}") for ctr, v in value.items()}
            else:
                pods[pod] = {"app": _milli(value, where)}
        resources[resource] = pods
    per_pod = {
        metric: {
            pod: _milli(v, f"metrics.pods.{metric}.{pod}")
            for pod, v in _mapping(values, f"metrics.pods.{metric}").items()
        }
        for metric, values in _mapping(raw.get("pods"), "metrics.pods").items()
    }
    objects: dict[tuple[str, str, str], int] = {}
    for i, item in enumerate(raw.get("object") or []):
        where = f"metrics.object[{i}]"
        item = _mapping(item, where)
        described = _mapping(item.get("describedObject"), f"{where}.describedObject")
        if not item.get("metric"):
            raise ScaleInputError(f"{where}.metric: Required value")
        key = (str(item["metric"]), str(described.get("kind", "")), str(described.get("name", "")))
        objects[key] = _milli(item.get("value"), f"{where}.value")
    externals: dict[str, list[int]] = {}
    for metric, values in _mapping(raw.get("external"), "metrics.external").items():
        series = values if isinstance(values, list) else [values]
        externals[metric] = [
            _milli(v, f"metrics.external.{metric}[{j}]") for j, v in enumerate(series)
        ]
    failures = {
        str(k): str(v) for k, v in _mapping(raw.get("unavailable"), "metrics.unavailable").items()
    }
    stamp = parse_time(raw["timestamp"], "metrics.timestamp") if "timestamp" in raw else now
    window = _seconds(raw.get("windowSeconds"), "metrics.windowSeconds", timedelta(seconds=30))
    return StaticMetricsSource(stamp, window, resources, per_pod, objects, externals, failures)


def _parse_history(doc: dict[str, Any]) -> History | None:
    if doc.get("history") is None:
        return None
    raw = _mapping(doc["history"], "history")

    def events(key: str) -> list[ScaleEvent]:
        out = []
        for i, item in enumerate(raw.get(key) or []):
            item = _mapping(item, f"history.{key}[{i}]")
            change = item.get("change")
            if not isinstance(change, int) or change <= 0:
                raise ScaleInputError(
                    f"history.{key}[{i}].change: Invalid value: {change!r}: "
                    "must be a positive integer"
                )
            out.append(ScaleEvent(change, parse_time(item.get("time"), f"history.{key}[{i}].time")))
        return out

    recommendations = []
    for i, item in enumerate(raw.get("recommendations") or []):
        item = _mapping(item, f"history.recommendations[{i}]")
        replicas = item.get("replicas")
        if not isinstance(replicas, int) or replicas < 0:
            raise ScaleInputError(
                f"history.recommendations[{i}].replicas: Invalid value: {replicas!r}: must be >= 0"
            )
        recommendations.append(
            Recommendation(
                replicas, parse_time(item.get("time"), f"history.recommendations[{i}].time")
            )
        )
    return History(recommendations, events("scaleUpEvents"), events("scaleDownEvents"))


def parse_scale_input(doc: Any) -> ScaleInput:
    """Validate a parsed ScaleInput document and build ``decide``'s arguments."""
    if not isinstance(doc, dict):
        raise ScaleInputError("the document must be a mapping with apiVersion and kind")
    if doc.get("apiVersion") != API_VERSION:
        raise ScaleInputError(
            f"apiVersion: Unsupported value: {doc.get('apiVersion')!r}: "
            f'supported values: "{API_VERSION}"'
        )
    if doc.get("kind") != KIND:
        raise ScaleInputError(
            f'kind: Unsupported value: {doc.get("kind")!r}: supported values: "{KIND}"'
        )
    if "now" not in doc:
        raise ScaleInputError("now: Required value: the moment of the decision (RFC 3339)")
    now = parse_time(doc["now"], "now")
    hpa = _mapping(doc.get("hpa"), "hpa")
    if hpa.get("kind") != "HorizontalPodAutoscaler":
        raise ScaleInputError("hpa: Required value: an autoscaling/v2 HorizontalPodAutoscaler")
    if hpa.get("apiVersion") == "autoscaling/v1":
        hpa = hpa_v1_to_v2(hpa)
    elif hpa.get("apiVersion") != "autoscaling/v2":
        raise ScaleInputError(
            f"hpa.apiVersion: Unsupported value: {hpa.get('apiVersion')!r}: "
            'supported values: "autoscaling/v1", "autoscaling/v2"'
        )
    scale = _mapping(doc.get("scale"), "scale")
    replicas = (scale.get("spec") or {}).get("replicas")
    if not isinstance(replicas, int) or replicas < 0:
        raise ScaleInputError(
            "scale.spec.replicas: Required value: the target's current replica count"
        )
    pods = [_expand_pod(entry, i, now) for i, entry in enumerate(doc.get("pods") or [])]
    return ScaleInput(
        hpa, scale, pods, _parse_metrics(doc, now), _parse_history(doc), now, _parse_config(doc)
    )
