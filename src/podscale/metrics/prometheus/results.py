"""Reading Prometheus query answers into samples in milli-units.

``/api/v1/query`` answers ``{"resultType": ..., "result": ...}``. A ``vector`` is a list of
``{"metric": {labels}, "value": [unix_seconds, "text"]}``; a ``scalar`` is one
``[unix_seconds, "text"]``. Values travel as text (Go ``FormatFloat``), so they are read with
``Decimal`` and converted to milli-units exactly; like prometheus-adapter's
``NewMilliQuantity(int64(v*1000))`` the fraction below a milli-unit is truncated toward zero.

Refused, never read as a number: ``NaN``, ``±Inf`` (a rate over no data, a division by zero),
text that is not a number, values beyond int64 milli-units, and ``matrix``/``string`` results.
An empty vector is ``EmptyResult``: a metric with no series is unknown, not zero.
Neighbours: ``client`` hands over the decoded ``data``; ``provider`` consumes ``Sample``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Any, Final

from podscale.metrics.prometheus.errors import BadSample, EmptyResult, PrometheusError

__all__ = ["Sample", "parse_query_data", "parse_sample_value"]

_MAX_MILLI: Final = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class Sample:
    """One series' value: ``labels`` as returned, ``value`` in milli-units."""

    labels: Mapping[str, str]
    value: int
    timestamp: datetime


def parse_sample_value(text: Any, where: str = "") -> int:
    """Milli-units of a sample's value text; ``BadSample`` for anything unusable."""
    suffix = f" for {where}" if where else ""
    if not isinstance(text, str):
        raise BadSample(f"sample value {text!r}{suffix} is not a number")
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise BadSample(f"sample value {text!r}{suffix} is not a number") from None
    if number.is_nan():
        raise BadSample(f"sample value NaN{suffix} is not a usable metric value")
    if number.is_infinite():
        raise BadSample(f"sample value {text}{suffix} is not a usable metric value")
    milli = int((number * 1000).to_integral_value(rounding=ROUND_DOWN))
    if abs(milli) > _MAX_MILLI:
        raise BadSample(f"sample value {text}{suffix} is out of range")
    return milli


def _timestamp(raw: Any) -> datetime:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise PrometheusError(f"malformed sample timestamp {raw!r}")
    return datetime.fromtimestamp(raw, tz=UTC)


def _pair(raw: Any) -> tuple[Any, Any]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise PrometheusError(f"malformed sample {raw!r}: expected [timestamp, value]")
    return raw[0], raw[1]


def _describe(labels: Mapping[str, str]) -> str:
    inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return "{" + inner + "}"


def parse_query_data(data: Any, query: str = "") -> list[Sample]:
    """Samples of a successful query's ``data``; scalars become one label-less sample."""
    if not isinstance(data, Mapping):
        raise PrometheusError("malformed query response: data is not an object")
    result_type = data.get("resultType")
    result = data.get("result")
    if result_type == "scalar":
        at, text = _pair(result)
        return [Sample({}, parse_sample_value(text, "scalar result"), _timestamp(at))]
    if result_type != "vector":
        raise PrometheusError(
            f"unexpected result type {result_type!r} (want vector or scalar) for query {query}"
        )
    if not isinstance(result, list):
        raise PrometheusError("malformed query response: vector result is not a list")
    if not result:
        raise EmptyResult(f"no series returned for query {query}")
    samples = []
    for item in result:
        if not isinstance(item, Mapping) or not isinstance(item.get("metric", {}), Mapping):
            raise PrometheusError(f"malformed vector sample {item!r}")
        labels = {str(k): str(v) for k, v in (item.get("metric") or {}).items()}
        at, text = _pair(item.get("value"))
        value = parse_sample_value(text, _describe(labels))
        samples.append(Sample(labels, value, _timestamp(at)))
    return samples
