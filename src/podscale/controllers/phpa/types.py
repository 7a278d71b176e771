"""A PredictiveHorizontalPodAutoscaler read into plain values, and its HPA view.

``parse_phpa`` turns the object's JSON into a ``PhpaSpec`` with every default applied (the
CRD's schema defaults, and the HPA's: ``minReplicas`` 1, CPU at 80% when ``metrics`` is
empty), so an object that never went through admission (a replay file, a test) reads the
same as a stored one. It expects a valid object (``validation.validate_phpa`` first) and
raises ``PhpaSpecError`` on a value it cannot read. ``hpa_view`` is the object as the
autoscaling/v2 HorizontalPodAutoscaler the HPA engine decides on (``podscale.hpa``): the
same metadata, the spec without ``mode``/``prediction``/``schedules``, the status without
``prediction``, defaulted as the API server defaults an HPA. ``metric_name`` and
``forecastable`` name and classify ``spec.metrics`` entries for ``prediction.metrics``.

Durations (``history``, ``leadTime``, ``refreshInterval``) are Go durations, plus a ``d``
unit of 24 hours (``7d``, ``1d12h``) since histories are counted in days.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal

from podscale.api.defaults import apply_defaults
from podscale.api.durations import DurationError, parse_go_duration
from podscale.api.json_copy import copy_json

__all__ = [
    "ALGORITHMS",
    "AUTO",
    "DEFAULT_HISTORY",
    "DEFAULT_QUANTILE",
    "DEFAULT_REFRESH_INTERVAL",
    "DEFAULT_SCALE_DOWN_LIMIT",
    "MODES",
    "Algorithm",
    "Mode",
    "PhpaSpec",
    "PhpaSpecError",
    "PredictionSpec",
    "Schedule",
    "TargetRef",
    "forecastable",
    "hpa_view",
    "metric_name",
    "parse_percent",
    "parse_phpa",
    "parse_quantile",
    "parse_span",
]

JSON = dict[str, Any]
Algorithm = Literal["auto", "holtWinters", "mstl", "dsp", "percentile"]
Mode = Literal["Auto", "Preview"]

ALGORITHMS: Final[tuple[Algorithm, ...]] = ("auto", "holtWinters", "mstl", "dsp", "percentile")
MODES: Final[tuple[Mode, ...]] = ("Auto", "Preview")
AUTO: Final = "auto"
DEFAULT_HISTORY: Final = timedelta(days=7)
DEFAULT_QUANTILE: Final = 0.95
DEFAULT_REFRESH_INTERVAL: Final = timedelta(hours=1)
DEFAULT_SCALE_DOWN_LIMIT: Final = 100  # percent of the current replicas
DEFAULT_TIME_ZONE: Final = "UTC"
# The fields a PHPA spec has beyond an autoscaling/v2 HPA spec.
PHPA_SPEC_FIELDS: Final = ("mode", "prediction", "schedules")
_HPA_API_VERSION: Final = "autoscaling/v2"
_HPA_KIND: Final = "HorizontalPodAutoscaler"
# A number followed by the unit ``d`` (and then another part or the end): the day unit.
_DAYS: Final = re.compile(r"(\d+\.?\d*|\.\d+)d(?=[\d.]|$)")
_PERCENT: Final = re.compile(r"^(\d+)%$")


class PhpaSpecError(ValueError):
    """A spec value ``parse_phpa`` cannot read (validation would have refused it)."""


@dataclass(frozen=True, slots=True)
class TargetRef:
    api_version: str
    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Schedule:
    """One ``spec.schedules[]`` window: the minutes ``cron`` matches in ``time_zone``;
    ``min_replicas``/``max_replicas`` replace the spec's while it is active (None: kept)."""

    name: str
    cron: str
    time_zone: str = DEFAULT_TIME_ZONE
    min_replicas: int | None = None
    max_replicas: int | None = None


@dataclass(frozen=True, slots=True)
class PredictionSpec:
    """``spec.prediction`` with its defaults. ``metrics`` empty: every forecastable metric;
    ``lead_time`` ``"auto"``: measured (pod creation to Ready, plus a sync and a metrics
    resolution); ``scale_down_limit`` in percent of the current replicas."""

    metrics: tuple[str, ...] = ()
    history: timedelta = DEFAULT_HISTORY
    algorithm: Algorithm = "auto"
    quantile: float = DEFAULT_QUANTILE
    lead_time: timedelta | Literal["auto"] = "auto"
    refresh_interval: timedelta = DEFAULT_REFRESH_INTERVAL
    scale_down_limit: int = DEFAULT_SCALE_DOWN_LIMIT


@dataclass(frozen=True, slots=True)
class PhpaSpec:
    """The whole spec; ``metrics`` and ``behavior`` are the HPA's JSON (defaulted).
    ``prediction`` None: the object forecasts nothing and decides as an HPA."""

    target: TargetRef
    min_replicas: int
    max_replicas: int
    metrics: tuple[JSON, ...]
    behavior: JSON | None = None
    mode: Mode = "Auto"
    prediction: PredictionSpec | None = None
    schedules: tuple[Schedule, ...] = field(default=())

    @property
    def preview(self) -> bool:
        """Preview mode: everything is computed and reported, ``/scale`` is never written."""
        return self.mode == "Preview"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_span(text: str) -> timedelta:
    """A Go duration with a ``d`` (24h) unit too; ``DurationError`` (Go's message) if not."""
    if not isinstance(text, str):
        raise DurationError(f"time: invalid duration {text!r}")

    def hours(match: re.Match[str]) -> str:
        return f"{Decimal(match.group(1)) * 24}h"

    rewritten = _DAYS.sub(hours, text)
    try:
        return parse_go_duration(rewritten)
    except DurationError as err:
        # Go's message, quoting the text as written rather than its rewriting in hours.
        quoted = (f'"{rewritten}"', f'"{text}"')
        raise DurationError(str(err).replace(*quoted)) from None


def parse_quantile(text: Any) -> float:
    """The quantile string (``"0.9"``) as a float; ``ValueError`` if not a decimal."""
    if not isinstance(text, str | int | float) or isinstance(text, bool):
        raise ValueError(f"not a decimal: {text!r}")
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        raise ValueError(f"not a decimal: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not a decimal: {text!r}")
    return float(value)


def parse_percent(value: Any) -> int:
    """``scaleDownLimit``: ``"N%"`` or an integer N, both meaning N percent."""
    number = _int(value)
    if number is not None:
        return number
    match = _PERCENT.match(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"not a percentage: {value!r}")
    return int(match.group(1))


def _prediction(raw: Mapping[str, Any]) -> PredictionSpec:
    try:
        algorithm = str(raw.get("algorithm") or AUTO)
        if algorithm not in ALGORITHMS:
            raise PhpaSpecError(f"unknown algorithm {algorithm!r}")
        lead = raw.get("leadTime") or AUTO
        return PredictionSpec(
            metrics=tuple(str(name) for name in raw.get("metrics") or ()),
            history=parse_span(raw["history"]) if raw.get("history") else DEFAULT_HISTORY,
            algorithm=algorithm,
            quantile=(
                parse_quantile(raw["quantile"])
                if raw.get("quantile") is not None
                else DEFAULT_QUANTILE
            ),
            lead_time=AUTO if lead == AUTO else parse_span(lead),
            refresh_interval=(
                parse_span(raw["refreshInterval"])
                if raw.get("refreshInterval")
                else DEFAULT_REFRESH_INTERVAL
            ),
            scale_down_limit=(
                parse_percent(raw["scaleDownLimit"])
                if raw.get("scaleDownLimit") is not None
                else DEFAULT_SCALE_DOWN_LIMIT
            ),
        )
    except ValueError as err:
        raise PhpaSpecError(str(err)) from None


def _schedule(raw: Mapping[str, Any]) -> Schedule:
    return Schedule(
        name=str(raw.get("name") or ""),
        cron=str(raw.get("cron") or ""),
        time_zone=str(raw.get("timeZone") or DEFAULT_TIME_ZONE),
        min_replicas=_int(raw.get("minReplicas")),
        max_replicas=_int(raw.get("maxReplicas")),
    )


def parse_phpa(obj: Mapping[str, Any]) -> PhpaSpec:
    """The spec of a (valid) PHPA with every default applied."""
    spec = _mapping(obj.get("spec"))
    hpa_spec = _mapping(hpa_view(obj).get("spec"))
    ref = _mapping(spec.get("scaleTargetRef"))
    mode = str(spec.get("mode") or "Auto")
    if mode not in MODES:
        raise PhpaSpecError(f"unknown mode {mode!r}")
    raw_prediction = spec.get("prediction")
    behavior = hpa_spec.get("behavior")
    return PhpaSpec(
        target=TargetRef(
            str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""), str(ref.get("name") or "")
        ),
        min_replicas=_int(hpa_spec.get("minReplicas")) or 0,
        max_replicas=_int(hpa_spec.get("maxReplicas")) or 0,
        metrics=tuple(m for m in hpa_spec.get("metrics") or () if isinstance(m, dict)),
        behavior=behavior if isinstance(behavior, dict) else None,
        mode=mode,
        prediction=(_prediction(raw_prediction) if isinstance(raw_prediction, Mapping) else None),
        schedules=tuple(
            _schedule(s) for s in spec.get("schedules") or () if isinstance(s, Mapping)
        ),
    )


def hpa_view(obj: Mapping[str, Any]) -> JSON:
    """The object as a defaulted autoscaling/v2 HPA (a deep copy; ``obj`` is untouched)."""
    spec = {k: v for k, v in _mapping(obj.get("spec")).items() if k not in PHPA_SPEC_FIELDS}
    view: JSON = {
        "apiVersion": _HPA_API_VERSION,
        "kind": _HPA_KIND,
        "metadata": copy_json(dict(_mapping(obj.get("metadata")))),
        "spec": copy_json(spec),
    }
    status = obj.get("status")
    if isinstance(status, Mapping):
        view["status"] = copy_json({k: v for k, v in status.items() if k != "prediction"})
    return apply_defaults(view)


def metric_name(metric: Mapping[str, Any]) -> str:
    """The name ``prediction.metrics`` calls a ``spec.metrics`` entry by: the resource name
    (``cpu``, ``memory``) for Resource/ContainerResource, else the metric's ``name``."""
    kind = str(metric.get("type") or "")
    if kind in ("Resource", "ContainerResource"):
        source = _mapping(metric.get("resource" if kind == "Resource" else "containerResource"))
        return str(source.get("name") or "")
    source = _mapping(metric.get(kind[:1].lower() + kind[1:]))
    return str(_mapping(source.get("metric")).get("name") or "")


def forecastable(metric: Mapping[str, Any]) -> bool:
    """Whether a metric's demand can be forecast as a workload total and turned back into
    replicas: Resource/ContainerResource Utilization or AverageValue, and Pods, Object or
    External AverageValue (a per-pod average; an Object/External Value is not per pod)."""
    kind = str(metric.get("type") or "")
    source = _mapping(metric.get(kind[:1].lower() + kind[1:]))
    target_type = str(_mapping(source.get("target")).get("type") or "")
    if kind in ("Resource", "ContainerResource"):
        return target_type in ("Utilization", "AverageValue")
    return kind in ("Pods", "Object", "External") and target_type == "AverageValue"
