"""The HPA status a sync writes: upstream's ``setStatus``, with Go's field order and omitempty.

``decide`` and ``scale_failures`` build every status through ``build_status`` so the
JSON is always shaped the same way (``currentReplicas`` omitted when 0, ``desiredReplicas``
always present, ``observedGeneration`` never set, as upstream's controller leaves it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["build_status", "target_reference"]


def build_status(
    *,
    current_replicas: int,
    desired_replicas: int,
    metric_statuses: Sequence[dict[str, Any]] | None,
    last_scale_time: str | None,
    conditions: list[dict[str, Any]],
) -> dict[str, Any]:
    """setStatus: fields in Go's order, with Go's omitempty rules."""
    status: dict[str, Any] = {}
    if last_scale_time:
        status["lastScaleTime"] = last_scale_time
    if current_replicas:
        status["currentReplicas"] = current_replicas
    status["desiredReplicas"] = desired_replicas
    if metric_statuses:
        status["currentMetrics"] = list(metric_statuses)
    if conditions:
        status["conditions"] = conditions
    return status


def target_reference(hpa: dict[str, Any]) -> str:
    """``Kind/namespace/name`` of the scale target, as upstream names it in errors."""
    meta = hpa.get("metadata") or {}
    ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
    return f"{ref.get('kind', '')}/{meta.get('namespace') or 'default'}/{ref.get('name', '')}"
