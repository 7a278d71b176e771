"""One PHPA sync's prediction: ``predict``, called by the controller once per sync.

``controllers.phpa.controller`` calls ``predict`` from ``_decide`` before the HPA engine
decides. It remembers the target's pods' measured starts (``decisions.startup_durations``,
the latest 40 by creation, so a scale-down does not forget them), takes the lead time from
them (``decisions.lead_time``) unless ``leadTime`` is set, finds the active schedule window
(``schedules.active_bounds``), and for each forecastable metric
(``decisions.forecast_metrics``) asks ``models.SeriesModels`` for the series' model and its
demand over ``[now, now + lead]``, which becomes proactive replicas
(``decisions.proactive_replicas``, limited by ``decisions.limit_scale_down``). The result is a
``prediction.Prediction``; reshaping the engine's decision around it is ``prediction``'s job.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Any

from podscale.controllers.phpa.decisions import (
    REASON_NOT_FORECASTABLE,
    REASON_UNAVAILABLE,
    forecast_metrics,
    lead_time,
    limit_scale_down,
    proactive_replicas,
    startup_durations,
)
from podscale.controllers.phpa.models import SeriesModels
from podscale.controllers.phpa.prediction import Model, Prediction
from podscale.controllers.phpa.schedules import active_bounds
from podscale.controllers.phpa.types import AUTO, PhpaSpec
from podscale.history import SeriesKey

__all__ = ["predict"]

JSON = dict[str, Any]


def predict(
    fits: SeriesModels | None,
    seen: dict[str, tuple[datetime, timedelta]],
    key: str,
    obj: JSON,
    spec: PhpaSpec,
    pods: list[JSON],
    current: int,
    now: datetime,
    *,
    sync_period: timedelta,
    resolution: timedelta,
) -> Prediction:
    """The prediction of this sync for the PHPA ``key``; ``seen`` is its pods' measured
    starts by pod name, kept between syncs (updated here)."""
    settings = spec.prediction
    # Pods come and go: their measured starts are remembered (the latest 40 by creation;
    # ``lead_time`` reads the 20 most recent), so a scale-down does not forget them.
    for pod in pods:
        measured = startup_durations([pod])
        if measured:
            seen[str((pod.get("metadata") or {}).get("name") or "")] = measured[0]
    for stale in sorted(seen, key=lambda name: seen[name][0])[:-40]:
        del seen[stale]
    lead = (
        settings.lead_time
        if settings is not None and settings.lead_time != AUTO
        else lead_time(list(seen.values()), sync_period, resolution)
    )
    base = Prediction(now, spec, active_bounds(spec.schedules, now), lead)
    if settings is None:
        return base
    targets = forecast_metrics(spec.metrics, settings.metrics, pods)
    if not targets:
        message = "no metric of spec.metrics can be forecast as a workload total"
        return dataclasses.replace(base, reason=REASON_NOT_FORECASTABLE, message=message)
    if fits is None:
        message = "the controller has no history store"
        return dataclasses.replace(base, reason=REASON_UNAVAILABLE, message=message)
    namespace = str((obj.get("metadata") or {}).get("namespace") or "")
    replicas: list[int] = []
    first: tuple[Model, float | None] | None = None
    for target in targets:
        series_key = SeriesKey(namespace, spec.target.kind, spec.target.name, target.series)
        model = fits.model(key, series_key, settings, lead, now)
        demand = fits.demand(model, series_key, settings, lead, now)
        if demand is not None:
            replicas.append(proactive_replicas(demand, target.per_pod_target))
        if first is None or (first[0].fitted.forecast is None and demand is not None):
            first = (model, demand)
    assert first is not None
    model, demand = first
    proactive = None
    if replicas:
        proactive = limit_scale_down(max(replicas), current, settings.scale_down_limit)
    return dataclasses.replace(
        base,
        proactive=proactive,
        forecast=demand,
        model=model,
        reason=model.fitted.reason,
        message=model.fitted.message,
    )
