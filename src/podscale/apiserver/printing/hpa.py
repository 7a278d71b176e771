"""The HorizontalPodAutoscaler row, TARGETS above all: upstream's ``formatHPAMetrics``.

Each spec metric prints as ``current/target``, paired with the status entry at the same
index (upstream pairs by position, not by name): ``cpu: 75%/50%``, ``memory: 100Mi/200Mi``,
``500m/1 (avg)`` for an External or Object average, ``<unknown>`` when there is no current
value yet. Two metrics at most, then ``+ N more...``. Quantities print canonicalised, as
upstream's ``Quantity.String()`` would. autoscaling/v1 objects are converted to v2 first with
``podscale.api.conversion.hpa_v1_to_v2``, just as upstream prints from its internal (v2-shaped)
type whatever version was requested. Columns are ``printing.columns.HPA_COLUMNS``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from podscale.api.conversion import hpa_v1_to_v2
from podscale.apiserver.printing.format import (
    age_since,
    as_int,
    as_str,
    dicts_at,
    format_quantity,
    value_at,
)

__all__ = ["format_hpa_metrics", "print_hpa"]

JSON = dict[str, Any]

# How many metrics TARGETS spells out before summarising the rest.
_MAX_SHOWN: Final = 2
_UNKNOWN: Final = "<unknown>"


def print_hpa(hpa: JSON, now: datetime) -> JSON:
    """The TableRow (without ``object``) for an HPA in autoscaling/v2 or autoscaling/v1."""
    hpa = _as_v2(hpa)
    spec, status = value_at(hpa, "spec"), value_at(hpa, "status")
    target_ref = value_at(spec, "scaleTargetRef")
    reference = f"{as_str(value_at(target_ref, 'kind'))}/{as_str(value_at(target_ref, 'name'))}"
    min_replicas = value_at(spec, "minReplicas")
    min_pods = "<unset>" if min_replicas is None else str(as_int(min_replicas))
    cells: list[Any] = [
        as_str(value_at(hpa, "metadata", "name")),
        reference,
        format_hpa_metrics(dicts_at(spec, "metrics"), dicts_at(status, "currentMetrics")),
        min_pods,
        as_int(value_at(spec, "maxReplicas")),
        as_int(value_at(status, "currentReplicas")),
        age_since(value_at(hpa, "metadata", "creationTimestamp"), now),
    ]
    return {"cells": cells}


def _as_v2(hpa: JSON) -> JSON:
    """The v2 form of a v1 HPA; a malformed one is printed from what can be read of it."""
    if hpa.get("apiVersion") != "autoscaling/v1":
        return hpa
    readable = {key: value for key, value in hpa.items() if key not in ("spec", "status")}
    for key in ("spec", "status"):
        if isinstance(hpa.get(key), dict):
            readable[key] = hpa[key]
    try:
        return hpa_v1_to_v2(readable)
    except (AttributeError, TypeError, ValueError):
        return readable


def format_hpa_metrics(specs: list[JSON], statuses: list[JSON]) -> str:
    """The TARGETS cell for v2 ``spec.metrics`` against ``status.currentMetrics``."""
    if not specs:
        return "<none>"
    shown = []
    for index, spec in enumerate(specs):
        status = statuses[index] if index < len(statuses) else None
        shown.append(_format_metric(spec, status))
    if len(shown) > _MAX_SHOWN:
        return f"{', '.join(shown[:_MAX_SHOWN])} + {len(shown) - _MAX_SHOWN} more..."
    return ", ".join(shown)


def _format_metric(spec: JSON, status: JSON | None) -> str:
    metric_type = spec.get("type")
    if metric_type in ("External", "Object"):
        field = metric_type.lower()
        return _format_value_metric(spec.get(field), value_at(status, field))
    if metric_type == "Pods":
        pods_status = value_at(status, "pods")
        current = _UNKNOWN
        if pods_status is not None:
            current = format_quantity(value_at(pods_status, "current", "averageValue"))
        return f"{current}/{format_quantity(value_at(spec, 'pods', 'target', 'averageValue'))}"
    if metric_type in ("Resource", "ContainerResource"):
        field = "resource" if metric_type == "Resource" else "containerResource"
        return _format_resource_metric(spec.get(field), value_at(status, field))
    return "<unknown type>"


def _format_value_metric(source: Any, current: Any) -> str:
    """External and Object metrics: an average target gets ``(avg)``, else the total value."""
    target = value_at(source, "target")
    target_average = value_at(target, "averageValue")
    if target_average is not None:
        current_average = value_at(current, "current", "averageValue")
        shown = _UNKNOWN if current_average is None else format_quantity(current_average)
        return f"{shown}/{format_quantity(target_average)} (avg)"
    shown = _UNKNOWN
    if current is not None:
        shown = format_quantity(value_at(current, "current", "value"))
    return f"{shown}/{format_quantity(value_at(target, 'value'))}"


def _format_resource_metric(source: Any, current: Any) -> str:
    """Resource and ContainerResource metrics, prefixed with the resource name."""
    name = as_str(value_at(source, "name"))
    target = value_at(source, "target")
    target_average = value_at(target, "averageValue")
    if target_average is not None:
        shown = _UNKNOWN
        if current is not None:
            shown = format_quantity(value_at(current, "current", "averageValue"))
        return f"{name}: {shown}/{format_quantity(target_average)}"
    current_utilization = value_at(current, "current", "averageUtilization")
    shown = _UNKNOWN if current_utilization is None else f"{as_int(current_utilization)}%"
    target_utilization = value_at(target, "averageUtilization")
    wanted = "<auto>" if target_utilization is None else f"{as_int(target_utilization)}%"
    return f"{name}: {shown}/{wanted}"
