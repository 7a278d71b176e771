"""Each metric of an HPA as a number next to its target: what the demo and replay show.

``read_metrics`` pairs every entry of ``spec.metrics`` with the ``status.currentMetrics``
entry at the same index (as upstream's printer does: by position, not by name) and turns
both into a ``MetricReading``: a label naming the metric (``cpu``, ``cpu (container app)``,
``queue_messages_ready``), the current value and the target as floats in one unit
(percent of the request for a Utilization target, else the quantity), and whether the
value is an average per pod. ``targets_cell`` is the same pair as kubectl's TARGETS column
(``podscale.apiserver.printing.hpa``). ``podscale.scenario.snapshot`` reads both for every
HPA; ``podscale.demo`` (view, summary, plot) and ``podscale.replay.plot`` show them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.quantity import parse_quantity
from podscale.apiserver.printing.hpa import format_hpa_metrics

__all__ = ["MetricReading", "read_metrics", "targets_cell"]

JSON = Mapping[str, Any]

# The v2 MetricSpec field holding each metric type's source.
_SOURCE_FIELD: Final = {
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "Pods": "pods",
    "Object": "object",
    "External": "external",
}


@dataclass(frozen=True, slots=True)
class MetricReading:
    """One metric of an HPA at one instant.

    ``current`` is ``None`` while the HPA has no value for it (kubectl's ``<unknown>``);
    ``unit`` is ``"%"`` for a Utilization target and ``""`` for a quantity;
    ``average`` tells a per-pod average (``AverageValue``, Utilization) from a total.
    """

    label: str
    current: float | None
    target: float
    unit: str
    average: bool

    @property
    def ratio(self) -> float | None:
        """``current / target`` (what the engine scales by), ``None`` when unknown."""
        if self.current is None or self.target <= 0:
            return None
        return self.current / self.target

    def format_value(self, value: float | None) -> str:
        """``75%``, ``600``, ``250m``-like text of a value in this reading's unit."""
        if value is None:
            return "<unknown>"
        if self.unit == "%":
            return f"{value:.0f}%"
        return f"{value:.4g}"


def _number(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return parse_quantity(value).as_approximate_float()
    except (TypeError, ValueError):
        return None


def _label(metric_type: str, source: JSON) -> str:
    if metric_type == "Resource":
        return str(source.get("name") or "")
    if metric_type == "ContainerResource":
        return f"{source.get('name') or ''} (container {source.get('container') or ''})"
    metric = source.get("metric") or {}
    name = str(metric.get("name") or "")
    if metric_type == "Object":
        described = source.get("describedObject") or {}
        return f"{name} ({described.get('kind') or ''}/{described.get('name') or ''})"
    return name


def _reading(spec: JSON, status: JSON | None) -> MetricReading | None:
    metric_type = str(spec.get("type") or "")
    field = _SOURCE_FIELD.get(metric_type)
    if field is None:
        return None
    source = spec.get(field) or {}
    target = source.get("target") or {}
    current = ((status or {}).get(field) or {}).get("current") or {}
    label = _label(metric_type, source)
    if target.get("averageUtilization") is not None or target.get("type") == "Utilization":
        value = current.get("averageUtilization")
        wanted = float(target.get("averageUtilization") or 0)
        return MetricReading(label, None if value is None else float(value), wanted, "%", True)
    if target.get("averageValue") is not None:
        wanted = _number(target.get("averageValue")) or 0.0
        return MetricReading(label, _number(current.get("averageValue")), wanted, "", True)
    wanted = _number(target.get("value")) or 0.0
    return MetricReading(label, _number(current.get("value")), wanted, "", False)


def read_metrics(spec: JSON, status: JSON) -> tuple[MetricReading, ...]:
    """The readings of a v2 HPA's ``spec`` against its ``status``, in spec order (a metric
    of an unknown type is left out)."""
    currents: Sequence[JSON] = status.get("currentMetrics") or []
    readings = []
    for index, metric in enumerate(spec.get("metrics") or []):
        reading = _reading(metric, currents[index] if index < len(currents) else None)
        if reading is not None:
            readings.append(reading)
    return tuple(readings)


def targets_cell(spec: JSON, status: JSON) -> str:
    """kubectl's TARGETS cell for the HPA (``<none>`` without metrics)."""
    return format_hpa_metrics(
        list(spec.get("metrics") or []), list(status.get("currentMetrics") or [])
    )
