"""``describe phpa``: a PredictiveHorizontalPodAutoscaler, as an HPA plus its predictive parts.

The HPA part (name, labels, reference, one ``( current / target )`` row per metric, replica
bounds, behavior, ``<Kind> pods:``) is ``podscale.cli.describe_hpa`` on the object's HPA view
(``podscale.controllers.phpa.types.hpa_view``), so both kinds read alike. Then the PHPA's
own sections: ``Mode``, ``Prediction`` (the spec with its defaults), ``Schedules``, and
``Prediction status`` (model, backtest error, lead time, forecast, the proactive, passive,
bound and final replicas, the active window and which part decided), then the conditions
(``PredictionReady`` among the HPA's) and events. Pure: ``podscale.cli.describe`` fetches
the object and its events and passes ``now``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_text import DescribeWriter, format_timestamp
from podscale.controllers.phpa.kind import KIND, PHPA
from podscale.controllers.phpa.types import hpa_view

__all__ = ["PHPA", "describe_phpa", "is_phpa"]

JSON = dict[str, Any]
_UNSET: Final = "<unset>"
_NAMES: Final = frozenset(
    {PHPA.plural, PHPA.singular, KIND.lower(), *PHPA.short_names}
    | {f"{name}.{PHPA.group}" for name in (PHPA.plural, PHPA.singular, KIND.lower())}
    | {f"{name}.{PHPA.version}.{PHPA.group}" for name in (PHPA.plural, PHPA.singular)}
)
# The prediction spec fields, in the CRD's order, with their labels.
_PREDICTION_FIELDS: Final = (
    ("history", "History"),
    ("algorithm", "Algorithm"),
    ("quantile", "Quantile"),
    ("leadTime", "Lead time"),
    ("refreshInterval", "Refresh interval"),
    ("scaleDownLimit", "Scale down limit"),
)


def is_phpa(resource: str) -> bool:
    """Whether a typed resource name (``phpa``, ``predictivehorizontalpodautoscalers``,
    ``phpa``'s plural qualified by its group) names the PHPA kind."""
    return resource.strip().lower() in _NAMES


def _shown(value: Any) -> str:
    return _UNSET if value is None else str(value)


def _write_prediction_spec(out: DescribeWriter, prediction: Any) -> None:
    if not isinstance(prediction, dict):
        out.write(0, "Prediction:\t<none> (decides as an HPA)\n")
        return
    out.write(0, "Prediction:\n")
    metrics = prediction.get("metrics") or []
    shown = ", ".join(str(m) for m in metrics) if metrics else "<every forecastable metric>"
    out.write(1, f"Metrics:\t{shown}\n")
    for key, label in _PREDICTION_FIELDS:
        out.write(1, f"{label}:\t{_shown(prediction.get(key))}\n")


def _write_schedules(out: DescribeWriter, schedules: Any) -> None:
    windows = [w for w in schedules or [] if isinstance(w, dict)]
    if not windows:
        out.write(0, "Schedules:\t<none>\n")
        return
    out.write(0, "Schedules:\n")
    out.write(1, "Name\tCron\tTime Zone\tMin\tMax\n")
    out.write(1, "----\t----\t---------\t---\t---\n")
    for window in windows:
        out.write(
            1,
            f"{window.get('name', '')}\t{window.get('cron', '')}\t"
            f"{window.get('timeZone') or 'UTC'}\t{_shown(window.get('minReplicas'))}\t"
            f"{_shown(window.get('maxReplicas'))}\n",
        )


def _write_prediction_status(out: DescribeWriter, status: Any) -> None:
    if not isinstance(status, dict) or not status:
        out.write(0, "Prediction status:\t<none>\n")
        return
    out.write(0, "Prediction status:\n")
    model = status.get("model")
    out.write(1, f"Model:\t{model if model else '<none>'}\n")
    if status.get("backtestError") is not None:
        out.write(1, f"Backtest error:\t{status['backtestError']}\n")
    if status.get("fittedAt") is not None:
        out.write(1, f"Fitted at:\t{format_timestamp(status['fittedAt'])}\n")
    lead = status.get("leadTimeSeconds")
    out.write(1, f"Lead time:\t{_UNSET if lead is None else f'{lead}s'}\n")
    out.write(1, f"Forecast:\t{_shown(status.get('forecast'))}\n")
    out.write(1, f"Proactive replicas:\t{_shown(status.get('proactiveReplicas'))}\n")
    out.write(1, f"Passive replicas:\t{_shown(status.get('passiveReplicas'))}\n")
    window = status.get("schedule")
    out.write(1, f"Schedule:\t{window if window else '<none>'}\n")
    low, high = status.get("boundMinReplicas"), status.get("boundMaxReplicas")
    out.write(1, f"Bounds:\t{_shown(low)} - {_shown(high)}\n")
    out.write(1, f"Final replicas:\t{_shown(status.get('finalReplicas'))}\n")
    out.write(1, f"Decided by:\t{_shown(status.get('decidedBy'))}\n")


def describe_phpa(obj: JSON, events: list[JSON], now: datetime) -> str:
    """The description of a PHPA with its events."""
    raw_spec, raw_status = obj.get("spec"), obj.get("status")
    spec: JSON = raw_spec if isinstance(raw_spec, dict) else {}
    status: JSON = raw_status if isinstance(raw_status, dict) else {}
    # The HPA's describer ends with its events (and podscale's HPA-only sections after
    # them): keep what comes before, and give the conditions their place after the PHPA's.
    hpa_text = describe_hpa(hpa_view(obj), [], now)
    hpa_text = hpa_text[: hpa_text.rfind("Events:")]
    head, marker, conditions = hpa_text.partition("Conditions:\n")
    out = DescribeWriter()
    out.write(0, f"Mode:\t{spec.get('mode') or 'Auto'}\n")
    _write_prediction_spec(out, spec.get("prediction"))
    _write_schedules(out, spec.get("schedules"))
    _write_prediction_status(out, status.get("prediction"))
    middle = out.render()
    tail = DescribeWriter()
    tail.write_events(events, now)
    return head + middle + marker + conditions + tail.render()
