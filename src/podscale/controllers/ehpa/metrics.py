"""The generated HPA's metrics: the EHPA's own, plus Crane's prediction and cron metrics.

Pure functions over plain values, as Crane's EHPA controller builds them:
- ``prediction_identifier`` names a metric the way Crane's TimeSeriesPrediction does
  (``resource.cpu``, ``container-resource.memory``, ``pods.<name>``, ``external.<name>``).
- ``prediction_target`` is the per-pod target of its prediction metric: the metric's own
  ``averageValue``, or for a ``Utilization`` target of a resource the pods' summed request
  (milli units, the named container's only for ContainerResource) times the utilization
  over 100, divided by the number of pods, in milli units: Crane converts the percentage
  once, from the available pods when the HPA is (re)generated.
- ``hpa_metrics``: the EHPA's metrics as written, then one External
  ``crane_autoscaling_prediction`` per metric that has a forecast (selected by the target's
  kind, name, namespace and the metric's identifier; ``AverageValue`` target), then one
  External ``crane_autoscaling_cron`` when crons are set (``resourceIdentifier: cron``,
  ``AverageValue`` 1, so the HPA's replicas are the served value).
- ``FORECAST_SERIES`` maps the identifiers podscale can forecast to the history series
  the usage recorder writes (a workload's total CPU cores and memory bytes: what Crane's
  default queries sum over the workload's pods).
``controller`` calls these; ``served`` computes the values the two metrics serve.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from podscale.api import QuantityError, parse_quantity
from podscale.controllers.ehpa.kind import CRON_METRIC, PREDICTION_METRIC
from podscale.controllers.ehpa.types import EhpaSpec

__all__ = [
    "CRON_IDENTIFIER",
    "FORECAST_SERIES",
    "cron_metric",
    "hpa_metrics",
    "metric_name",
    "pod_requests_milli",
    "prediction_identifier",
    "prediction_metric",
    "prediction_target",
    "selector_labels",
]

JSON = dict[str, Any]
CRON_IDENTIFIER: Final = "cron"
# Crane's cron metric target (its DefaultCronTargetMetricValue).
CRON_TARGET: Final = 1
FORECAST_SERIES: Final[Mapping[str, str]] = {
    "resource.cpu": "cpu_usage",
    "resource.memory": "memory_usage",
}
_PREFIXES: Final = {
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "container-resource",
    "External": "external",
}
_SOURCES: Final = {
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
    "Object": "object",
}


def _source(metric: Mapping[str, Any]) -> Mapping[str, Any]:
    key = _SOURCES.get(str(metric.get("type") or ""))
    return (metric.get(key) or {}) if key else {}


def metric_name(metric: Mapping[str, Any]) -> str:
    source = _source(metric)
    if metric.get("type") in ("Resource", "ContainerResource"):
        return str(source.get("name") or "")
    if metric.get("type") in ("Pods", "External"):
        return str((source.get("metric") or {}).get("name") or "")
    return ""


def prediction_identifier(metric: Mapping[str, Any]) -> str | None:
    """Crane's ``<prefix>.<name>``; None for a type Crane does not predict (Object)."""
    prefix = _PREFIXES.get(str(metric.get("type") or ""))
    return None if prefix is None else f"{prefix}.{metric_name(metric)}"


def pod_requests_milli(pods: Iterable[Mapping[str, Any]], resource: str, container: str) -> int:
    """The pods' summed request of ``resource`` in milli units (``container``: only that
    container's; empty: every container's). A missing request counts as zero."""
    total = 0
    for pod in pods:
        for c in (pod.get("spec") or {}).get("containers") or ():
            if container and c.get("name") != container:
                continue
            request = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            if request is None:
                continue
            try:
                total += parse_quantity(str(request)).milli_value()
            except QuantityError:
                continue
    return total


def prediction_target(metric: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> str | None:
    """The ``averageValue`` of the metric's prediction metric (a quantity string); None
    when there is none (a Value target, or a Utilization target with no available pod,
    which Crane reports as an error: ``controller`` does)."""
    target: Mapping[str, Any] = _source(metric).get("target") or {}
    average = target.get("averageValue")
    utilization = target.get("averageUtilization")
    if metric.get("type") in ("Resource", "ContainerResource") and utilization is not None:
        if not pods:
            return None
        container = str(_source(metric).get("container") or "")
        requests = pod_requests_milli(pods, metric_name(metric), container)
        return f"{int(requests * int(utilization) / 100 / len(pods))}m"
    return None if average is None else str(average)


def selector_labels(spec: EhpaSpec, namespace: str, identifier: str) -> dict[str, str]:
    """The labels Crane selects its two metrics' series by."""
    return {
        "targetKind": spec.target.kind,
        "targetName": spec.target.name,
        "targetNamespace": namespace,
        "resourceIdentifier": identifier,
    }


def prediction_metric(spec: EhpaSpec, namespace: str, identifier: str, average: str) -> JSON:
    return {
        "type": "External",
        "external": {
            "metric": {
                "name": PREDICTION_METRIC,
                "selector": {"matchLabels": selector_labels(spec, namespace, identifier)},
            },
            "target": {"type": "AverageValue", "averageValue": average},
        },
    }


def cron_metric(spec: EhpaSpec, namespace: str) -> JSON:
    return {
        "type": "External",
        "external": {
            "metric": {
                "name": CRON_METRIC,
                "selector": {"matchLabels": selector_labels(spec, namespace, CRON_IDENTIFIER)},
            },
            "target": {"type": "AverageValue", "averageValue": str(CRON_TARGET)},
        },
    }


def hpa_metrics(spec: EhpaSpec, namespace: str, predicted: Mapping[str, str]) -> list[JSON]:
    """The generated HPA's ``spec.metrics``. ``predicted``: the ``averageValue`` of each
    identifier whose forecast is ready (the others get no prediction metric yet)."""
    metrics = [dict(m) for m in spec.metrics]
    if spec.prediction_enabled:
        for metric in spec.metrics:
            identifier = prediction_identifier(metric)
            if identifier is not None and identifier in predicted:
                metrics.append(
                    prediction_metric(spec, namespace, identifier, predicted[identifier])
                )
    if spec.cron_enabled:
        metrics.append(cron_metric(spec, namespace))
    return metrics
