"""Read one entry of a ScaledObject's `spec.triggers` into a `TriggerSpec`.

`parse_trigger(index, trigger)` dispatches on `trigger["type"]` to the module for that
type (`cpu_memory`, `cron`, `prometheus`, `metrics_api`, `kubernetes_workload`, and
podscale's own `push` for `podscale-push`), in the order KEDA's scaler constructors
check things: the target type first (external scalers refuse `Utilization`), then the
metadata. `index` is the trigger's position, which prefixes the metric name;
`namespace` is the ScaledObject's, which the kubernetes-workload metric is named after.
Every refusal is a `TriggerError` whose text is KEDA's, ready for the ScaledObject's
`Ready=False` condition. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.controllers.keda.triggers.cpu_memory import parse_resource
from podscale.controllers.keda.triggers.cron import parse_cron
from podscale.controllers.keda.triggers.kubernetes_workload import parse_kubernetes_workload
from podscale.controllers.keda.triggers.metrics_api import parse_metrics_api
from podscale.controllers.keda.triggers.prometheus import parse_prometheus
from podscale.controllers.keda.triggers.push import TRIGGER_TYPE as PUSH_TYPE
from podscale.controllers.keda.triggers.push import parse_push
from podscale.controllers.keda.triggers.spec import (
    TriggerError,
    TriggerSpec,
    external_metric_type,
)

TRIGGER_TYPES = (
    "cpu",
    "memory",
    "cron",
    "prometheus",
    "metrics-api",
    "kubernetes-workload",
    PUSH_TYPE,
)


def _metadata(trigger: Mapping[str, Any]) -> dict[str, str]:
    raw = trigger.get("metadata") or {}
    if not isinstance(raw, Mapping):
        raise TriggerError("trigger metadata must be a map of strings")
    metadata: dict[str, str] = {}
    for key, value in raw.items():
        # The CRD types metadata as map[string]string; the API server refuses other
        # values before KEDA sees them.
        if not isinstance(value, str):
            raise TriggerError(f"trigger metadata {key!r} must be a string")
        metadata[str(key)] = value
    return metadata


def parse_trigger(
    index: int, trigger: Mapping[str, Any], *, namespace: str = "default"
) -> TriggerSpec:
    """The trigger at position `index` of a ScaledObject in `namespace`."""
    kind = str(trigger.get("type") or "")
    name = str(trigger.get("name") or "")
    metric_type_text = str(trigger.get("metricType") or "")
    cached = bool(trigger.get("useCachedMetrics", False))
    metadata = _metadata(trigger)

    def spec(
        metric: str, metric_type: Any, target: float, activation: float | None, details: object
    ) -> TriggerSpec:
        return TriggerSpec(
            kind, name, index, metric, metric_type, target, activation, cached, details
        )

    if kind in ("cpu", "memory"):
        res = parse_resource("cpu" if kind == "cpu" else "memory", metadata, metric_type_text)
        if res.metric_type == "Utilization":
            target = float(res.average_utilization or 0)
            activation = float(res.activation_average_utilization or 0)
        else:
            assert res.average_value is not None
            assert res.activation_average_value is not None
            target = res.average_value.as_approximate_float()
            activation = res.activation_average_value.as_approximate_float()
        return spec(kind, res.metric_type, target, activation, res)
    if kind not in TRIGGER_TYPES:
        raise TriggerError(f"no scaler found for type: {kind}")
    metric_type = external_metric_type(metric_type_text)
    if kind == "cron":
        metric, cron = parse_cron(index, metadata)
        return spec(metric, metric_type, 1.0, None, cron)
    if kind == "prometheus":
        metric, prom = parse_prometheus(index, metadata)
        return spec(metric, metric_type, prom.threshold, prom.activation_threshold, prom)
    if kind == "metrics-api":
        metric, api = parse_metrics_api(index, metadata)
        return spec(metric, metric_type, api.target_value, api.activation_target_value, api)
    if kind == PUSH_TYPE:
        metric, push = parse_push(index, metadata)
        return spec(metric, metric_type, push.value, push.activation_value, push)
    metric, workload = parse_kubernetes_workload(index, metadata, namespace)
    return spec(metric, metric_type, workload.value, workload.activation_value, workload)
