"""``spec.mode`` and ``spec.prediction`` of a PredictiveHorizontalPodAutoscaler, read for the
controller (``controller``) with their documented defaults.

Read leniently from the object's JSON: admission validates the fields; a value that still
does not read (an object written around validation) falls back to its default rather than
stopping the autoscaler. Durations are Go durations with a ``d`` (24 h) unit as well.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from podscale.api.durations import DurationError, parse_go_duration

__all__ = ["PredictionSettings", "read_settings", "span"]

_DAYS: Final = re.compile(r"^(\d+)d(.*)$")
_PERCENT: Final = re.compile(r"^(\d+)%$")


@dataclass(frozen=True, slots=True)
class PredictionSettings:
    """``enabled`` False: no ``spec.prediction``, the object decides as an HPA (with its
    windows). ``lead_time`` None: ``auto``, measured from the target's pods."""

    enabled: bool = False
    preview: bool = False
    history: timedelta = timedelta(days=7)
    algorithm: str = "auto"
    quantile: float = 0.9
    lead_time: timedelta | None = None
    refresh_interval: timedelta = timedelta(hours=1)
    scale_down_limit: int = 100


def span(text: str) -> timedelta:
    """``7d``, ``1d12h``, ``90s``: a Go duration with days; ``DurationError`` if not."""
    match = _DAYS.match(text)
    if match is None:
        return parse_go_duration(text)
    rest = match.group(2)
    return timedelta(days=int(match.group(1))) + (parse_go_duration(rest) if rest else timedelta())


def _span_or(value: Any, default: timedelta) -> timedelta:
    try:
        found = span(str(value)) if value else default
    except DurationError:
        return default
    return found if found > timedelta(0) else default


def _quantile(value: Any) -> float:
    try:
        number = float(str(value))
    except ValueError:
        return 0.9
    return number if 0.0 < number < 1.0 else 0.9


def _percent(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    match = _PERCENT.match(str(value))
    return int(match.group(1)) if match else 100


def read_settings(obj: Mapping[str, Any]) -> PredictionSettings:
    spec = obj.get("spec") or {}
    preview = spec.get("mode") == "Preview"
    raw = spec.get("prediction")
    if not isinstance(raw, Mapping):
        return PredictionSettings(preview=preview)
    lead = raw.get("leadTime")
    return PredictionSettings(
        enabled=True,
        preview=preview,
        history=_span_or(raw.get("history"), timedelta(days=7)),
        algorithm=str(raw.get("algorithm") or "auto"),
        quantile=_quantile(raw.get("quantile", "0.9")),
        lead_time=None if not lead or lead == "auto" else _span_or(lead, timedelta(0)) or None,
        refresh_interval=_span_or(raw.get("refreshInterval"), timedelta(hours=1)),
        scale_down_limit=_percent(raw.get("scaleDownLimit", "100%")),
    )
