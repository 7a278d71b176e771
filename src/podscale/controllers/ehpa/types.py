"""An EffectiveHorizontalPodAutoscaler read into plain values.

``read_spec`` turns the object's JSON (admitted by the CRD's schema, which also applied
Crane's defaults: ``minReplicas`` 1, ``scaleStrategy`` Auto, ``predictionWindowSeconds``
3600) into frozen dataclasses for ``decisions``; ``metrics`` and ``behavior`` stay JSON,
as they are handed to the generated HPA as written. ``prediction_enabled`` is Crane's
rule: a ``prediction`` with a window and an algorithm; ``cron_enabled``: any ``crons``.
``validation`` checks what the schema cannot (cron syntax, zones, bounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

__all__ = [
    "DEFAULT_WINDOW_SECONDS",
    "Cron",
    "EhpaSpec",
    "Prediction",
    "Strategy",
    "TargetRef",
    "read_spec",
]

JSON = dict[str, Any]
DEFAULT_WINDOW_SECONDS: Final = 3600


class Strategy(StrEnum):
    AUTO = "Auto"
    PREVIEW = "Preview"


@dataclass(frozen=True, slots=True)
class TargetRef:
    api_version: str
    kind: str
    name: str

    def to_json(self) -> JSON:
        return {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class Prediction:
    window_seconds: int | None
    algorithm: str | None  # predictionAlgorithm.algorithmType; None: no predictionAlgorithm
    # The algorithm's own parameters as written (``dsp`` / ``percentile``).
    dsp: JSON = field(default_factory=dict, compare=False)
    percentile: JSON = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class Cron:
    name: str
    start: str
    end: str
    target_replicas: int
    timezone: str | None = None
    description: str = ""


@dataclass(frozen=True, slots=True)
class EhpaSpec:
    target: TargetRef
    min_replicas: int
    max_replicas: int
    strategy: Strategy
    specific_replicas: int | None
    metrics: tuple[JSON, ...] = field(compare=False)
    behavior: JSON | None = field(compare=False)
    prediction: Prediction | None
    crons: tuple[Cron, ...]

    @property
    def prediction_enabled(self) -> bool:
        p = self.prediction
        return p is not None and p.window_seconds is not None and p.algorithm is not None

    @property
    def cron_enabled(self) -> bool:
        return bool(self.crons)


def _int(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else default


def _prediction(raw: Mapping[str, Any] | None) -> Prediction | None:
    if raw is None:
        return None
    window = raw.get("predictionWindowSeconds")
    algorithm: Mapping[str, Any] | None = raw.get("predictionAlgorithm")
    return Prediction(
        window_seconds=_int(window, DEFAULT_WINDOW_SECONDS) if window is not None else None,
        algorithm=None if algorithm is None else str(algorithm.get("algorithmType") or ""),
        dsp=dict((algorithm or {}).get("dsp") or {}),
        percentile=dict((algorithm or {}).get("percentile") or {}),
    )


def _cron(raw: Mapping[str, Any]) -> Cron:
    zone = raw.get("timezone")
    return Cron(
        name=str(raw.get("name") or ""),
        start=str(raw.get("start") or ""),
        end=str(raw.get("end") or ""),
        target_replicas=_int(raw.get("targetReplicas"), 0),
        timezone=str(zone) if zone else None,
        description=str(raw.get("description") or ""),
    )


def read_spec(obj: Mapping[str, Any]) -> EhpaSpec:
    """The object's spec (missing values read as Crane's defaults or Go's zero values)."""
    spec: Mapping[str, Any] = obj.get("spec") or {}
    ref: Mapping[str, Any] = spec.get("scaleTargetRef") or {}
    specific = spec.get("specificReplicas")
    behavior = spec.get("behavior")
    return EhpaSpec(
        target=TargetRef(
            str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""), str(ref.get("name") or "")
        ),
        min_replicas=_int(spec.get("minReplicas"), 1),
        max_replicas=_int(spec.get("maxReplicas"), 0),
        strategy=Strategy.PREVIEW if spec.get("scaleStrategy") == "Preview" else Strategy.AUTO,
        specific_replicas=_int(specific, 0) if specific is not None else None,
        metrics=tuple(dict(m) for m in spec.get("metrics") or ()),
        behavior=dict(behavior) if isinstance(behavior, Mapping) else None,
        prediction=_prediction(spec.get("prediction")),
        crons=tuple(_cron(c) for c in spec.get("crons") or ()),
    )
