"""One PHPA sync's prediction as plain values, and the pure reshaping of decisions around it.

``controllers.phpa.predict`` builds a ``Prediction`` per sync from the fitted ``Model`` of
each forecast series (``forecasting.fit_series``) and the active schedule window
(``schedules.active_bounds``); ``controllers.phpa.controller`` (the shell) hands it to the
HPA engine (``podscale.hpa.decide``), and then shapes the engine's ``Decision`` here:
``status_block`` is ``status.prediction`` (``decisions.prediction_status``),
``invalid_decision`` turns a spec the controller refuses into ScalingActive False /
InvalidSpec as the HPA reports a spec it cannot act on, ``previewed_decision`` keeps a
Preview-mode decision from writing ``/scale``, and ``model_document`` is the ``MODEL_STATE``
document stored beside the HPA controller's state. Everything here is pure: no clock, no
API, no store.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.controllers.phpa.decisions import prediction_status
from podscale.controllers.phpa.forecasting import Fitted
from podscale.controllers.phpa.types import PhpaSpec
from podscale.hpa import Decision
from podscale.hpa.conditions import format_time
from podscale.hpa.types import Event

__all__ = [
    "Model",
    "Prediction",
    "Window",
    "invalid_decision",
    "minute",
    "model_document",
    "previewed_decision",
    "status_block",
]

JSON = dict[str, Any]
_PREVIEW_REASON: Final = "PreviewMode"
_INVALID: Final = "InvalidSpec"


@dataclass(frozen=True, slots=True)
class Model:
    """A series' last fit: the fit, when it was made, what it was fitted on, the next refit."""

    fitted: Fitted
    at: datetime
    signature: tuple[str, str, timedelta]
    next_fit: datetime


# ``schedules.active_bounds``: the active window's name, minReplicas and maxReplicas.
Window = tuple[str, int | None, int | None]


@dataclass(frozen=True, slots=True)
class Prediction:
    """One sync's prediction: what ``decide`` gets and what the status reports."""

    at: datetime
    spec: PhpaSpec
    window: Window | None
    lead: timedelta
    proactive: int | None = None
    forecast: float | None = None
    model: Model | None = None
    reason: str | None = None
    message: str = ""


def model_document(models: Mapping[str, Model]) -> JSON:
    """The ``MODEL_STATE`` document: per series, its last fit (without the forecast)."""
    series: JSON = {}
    for name, model in sorted(models.items()):
        fitted = model.fitted
        entry: JSON = {
            "fittedAt": format_time(model.at),
            "reason": fitted.reason,
            "message": fitted.message,
        }
        if fitted.forecast is not None and fitted.model is not None:
            entry["model"] = fitted.model
        if fitted.backtest_error is not None and math.isfinite(fitted.backtest_error):
            entry["backtestError"] = fitted.backtest_error
        series[name] = entry
    return {"series": series}


def minute(at: datetime) -> datetime:
    """The start of ``at``'s minute (the history store's step)."""
    return at.replace(second=0, microsecond=0)


def status_block(prediction: Prediction, decision: Decision) -> JSON:
    """``status.prediction`` for this sync's prediction and the engine's decision."""
    fitted = None if prediction.model is None else prediction.model.fitted
    window = prediction.window
    trace = decision.trace
    return prediction_status(
        model=None if fitted is None or fitted.forecast is None else fitted.model,
        backtest_error=None if fitted is None else fitted.backtest_error,
        fitted_at=None if prediction.model is None else prediction.model.at,
        lead=prediction.lead,
        forecast=prediction.forecast,
        proactive=prediction.proactive,
        passive=decision.passive_replicas,
        window=None if window is None else window[0],
        bounds=(trace.min_replicas, trace.max_replicas),
        final=decision.desired_replicas,
        decided_by=decision.decided_by,
    )


def invalid_decision(decision: Decision, obj: JSON, text: str, now: datetime) -> Decision:
    """A decision that scales nothing because the spec is invalid: ScalingActive False,
    reason InvalidSpec, as the HPA reports a spec it cannot act on."""
    status = dict(decision.status)
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "ScalingActive"]
    previous = (obj.get("status") or {}).get("conditions") or ()
    old = next((c for c in previous if c.get("type") == "ScalingActive"), None) or {}
    same = old.get("status") == "False" and old.get("reason") == _INVALID
    conditions.append(
        {
            "type": "ScalingActive",
            "status": "False",
            "lastTransitionTime": old.get("lastTransitionTime")
            if same and old
            else format_time(now),
            "reason": _INVALID,
            "message": f"the PredictiveHorizontalPodAutoscaler's spec is invalid: {text}",
        }
    )
    status["conditions"] = conditions
    status["desiredReplicas"] = decision.current_replicas
    return dataclasses.replace(
        decision,
        rescale=False,
        desired_replicas=decision.current_replicas,
        status=status,
        events=(Event("Warning", _INVALID, text),),
        history=decision.history_without_rescale or decision.history,
    )


def previewed_decision(decision: Decision, obj: JSON) -> Decision:
    """A decision that reports the count it would scale to but never writes ``/scale``:
    no rescale, no rescale event, the last scale time and the engine's memory of scale
    events as if nothing happened (nothing did)."""
    status = dict(decision.status)
    last = (obj.get("status") or {}).get("lastScaleTime")
    if last is None:
        status.pop("lastScaleTime", None)
    else:
        status["lastScaleTime"] = last
    message = (
        f"preview mode: the target would be scaled to {decision.desired_replicas}; "
        "/scale is not written"
    )
    status["conditions"] = [
        {**c, "reason": _PREVIEW_REASON, "message": message}
        if c.get("type") == "AbleToScale" and c.get("reason") == "SucceededRescale"
        else c
        for c in status.get("conditions") or ()
    ]
    return dataclasses.replace(
        decision,
        rescale=False,
        status=status,
        events=tuple(e for e in decision.events if e.reason != "SuccessfulRescale"),
        history=decision.history_without_rescale or decision.history,
    )
