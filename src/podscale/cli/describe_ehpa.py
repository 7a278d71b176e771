"""``describe ehpa``: a Crane EffectiveHorizontalPodAutoscaler, as an HPA plus Crane's parts.

The HPA part (name, labels, reference, one row per metric, replica bounds, behavior,
``<Kind> pods:`` with the expected replicas as desired) is ``podscale.cli.describe_hpa`` on
the object's HPA view, so the two read alike; an EHPA carries no current metric values (its
generated HPA ``ehpa-<name>`` does: ``describe hpa ehpa-<name>``). Then Crane's sections:
``Scale strategy`` (and ``Specific replicas`` in Preview), the generated HPA's name,
``Prediction`` (window, algorithm and the model's parameters with the defaults the
controller applies, ``podscale.controllers.ehpa.forecasting``), ``Crons`` (each window and
whether it is active now, ``decisions.cron_active``; ``Local`` is the controller's zone,
UTC), ``Status`` (expectReplicas, currentReplicas, lastScaleTime), then the conditions
(``Ready``, ``PredictionReady`` and the HPA's three) and events. Pure:
``podscale.cli.describe`` fetches the object and its events and passes ``now``; this module
(and the controller's it reads) loads only when an EHPA is described.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_text import DescribeWriter, format_timestamp
from podscale.controllers.ehpa.decisions import cron_active, generated_name
from podscale.controllers.ehpa.forecasting import parameters
from podscale.controllers.ehpa.kind import EHPA, KIND
from podscale.controllers.ehpa.types import EhpaSpec, Strategy, read_spec

__all__ = ["EHPA", "describe_ehpa", "is_ehpa"]

JSON = dict[str, Any]
_UNSET: Final = "<unset>"
# The controller runs in UTC (``controllers.registry`` gives it no other zone).
_CONTROLLER_ZONE: Final = ZoneInfo("UTC")
_NAMES: Final = frozenset(
    {EHPA.plural, EHPA.singular, KIND.lower(), *EHPA.short_names}
    | {f"{name}.{EHPA.group}" for name in (EHPA.plural, EHPA.singular, KIND.lower())}
    | {f"{name}.{EHPA.version}.{EHPA.group}" for name in (EHPA.plural, EHPA.singular)}
)
# The percentile model's parameters and the defaults the controller applies (Crane's).
_PERCENTILE_FIELDS: Final = (
    ("percentile", "Percentile", "0.99"),
    ("marginFraction", "Margin fraction", "0"),
    ("targetUtilization", "Target utilization", "1"),
    ("minSampleWeight", "Min sample weight", "1e-05"),
)


def is_ehpa(resource: str) -> bool:
    """Whether a typed resource name (``ehpa``, ``effectivehorizontalpodautoscalers``, the
    plural qualified by its group) names the EHPA kind."""
    return resource.strip().lower() in _NAMES


def _hpa_view(obj: JSON) -> JSON:
    """The HPA an EHPA reads as: its HPA fields, ``expectReplicas`` as desired."""
    spec: Mapping[str, Any] = obj.get("spec") or {}
    status: Mapping[str, Any] = obj.get("status") or {}
    hpa_spec = {
        key: spec[key]
        for key in ("scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior")
        if key in spec
    }
    hpa_status = {
        "currentReplicas": status.get("currentReplicas", 0),
        "desiredReplicas": status.get("expectReplicas", 0),
        "conditions": status.get("conditions") or [],
    }
    return {"metadata": obj.get("metadata") or {}, "spec": hpa_spec, "status": hpa_status}


def _given(params: Mapping[str, Any], key: str, default: str) -> str:
    value = params.get(key)
    return f"{default} (default)" if value in (None, "") else str(value)


def _histogram(histogram: Mapping[str, Any]) -> str:
    if not isinstance(histogram, Mapping) or not histogram:
        return "linear, 0.1 wide up to 100 (default; memory: exponential, 1e7 first, 5% growth)"
    if histogram.get("firstBucketSize") and histogram.get("bucketSizeGrowthRatio"):
        return (
            f"exponential, {histogram['firstBucketSize']} first, growth "
            f"{histogram['bucketSizeGrowthRatio']}, up to {histogram.get('maxValue', _UNSET)}"
        )
    size, maximum = histogram.get("bucketSize", _UNSET), histogram.get("maxValue", _UNSET)
    return f"linear, {size} wide up to {maximum}"


def _write_prediction(out: DescribeWriter, spec: EhpaSpec) -> None:
    prediction = spec.prediction
    if prediction is None or not spec.prediction_enabled:
        out.write(0, "Prediction:\t<none>\n")
        return
    algorithm, params, _, _ = parameters(prediction)
    out.write(0, "Prediction:\n")
    out.write(1, f"Window:\t{prediction.window_seconds}s\n")
    out.write(1, f"Algorithm:\t{prediction.algorithm or algorithm}\n")
    out.write(1, f"Sample interval:\t{_given(params, 'sampleInterval', '60s')}\n")
    out.write(1, f"History length:\t{_given(params, 'historyLength', '7d')}\n")
    if algorithm == "percentile":
        for key, label, default in _PERCENTILE_FIELDS:
            out.write(1, f"{label}:\t{_given(params, key, default)}\n")
        histogram = params.get("histogram") or {}
        out.write(1, f"Histogram:\t{_histogram(histogram)}\n")
        half_life = histogram.get("halfLife") if isinstance(histogram, Mapping) else None
        out.write(1, f"Half-life:\t{half_life or '24h (default)'}\n")


def _write_crons(out: DescribeWriter, spec: EhpaSpec, now: datetime) -> None:
    if not spec.crons:
        out.write(0, "Crons:\t<none>\n")
        return
    out.write(0, "Crons:\n")
    out.write(1, "Name\tTime Zone\tStart\tEnd\tTarget Replicas\tActive\n")
    out.write(1, "----\t---------\t-----\t---\t---------------\t------\n")
    for cron in spec.crons:
        try:
            active = "yes" if cron_active(cron, now, _CONTROLLER_ZONE) else "no"
        except ValueError as err:  # CronError is a ValueError: the adapter's error
            active = f"<invalid: {err}>"
        out.write(
            1,
            f"{cron.name}\t{cron.timezone or 'UTC'}\t{cron.start}\t{cron.end}\t"
            f"{cron.target_replicas}\t{active}\n",
        )


def _write_status(out: DescribeWriter, status: Mapping[str, Any]) -> None:
    out.write(0, "Status:\n")
    for key, label in (("expectReplicas", "Expect"), ("currentReplicas", "Current")):
        value = status.get(key)
        out.write(1, f"{label} replicas:\t{_UNSET if value is None else value}\n")
    last = status.get("lastScaleTime")
    out.write(1, f"Last scale time:\t{format_timestamp(last) if last else '<none>'}\n")


def describe_ehpa(obj: JSON, events: list[JSON], now: datetime) -> str:
    """The description of an EHPA with its events."""
    spec = read_spec(obj)
    raw_status = obj.get("status")
    status: Mapping[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    # The HPA's describer ends with its events: keep what comes before, and give the
    # conditions their place after the EHPA's own sections.
    hpa_text = describe_hpa(_hpa_view(obj), [], now)
    hpa_text = hpa_text[: hpa_text.rfind("Events:")]
    head, marker, conditions = hpa_text.partition("Conditions:\n")
    out = DescribeWriter()
    out.write(0, f"Scale strategy:\t{spec.strategy.value}\n")
    if spec.strategy == Strategy.PREVIEW:
        specific = spec.specific_replicas
        out.write(0, f"Specific replicas:\t{_UNSET if specific is None else specific}\n")
    name = str((obj.get("metadata") or {}).get("name") or "")
    out.write(0, f"Generated HPA:\t{generated_name(name)}\n")
    _write_prediction(out, spec)
    _write_crons(out, spec, now)
    _write_status(out, status)
    middle = out.render()
    tail = DescribeWriter()
    tail.write_events(events, now)
    return head + middle + marker + conditions + tail.render()
