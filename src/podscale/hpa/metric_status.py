"""One metric, as the controller sees it: proposal, ``MetricStatus`` and failure condition.

Upstream's ``computeReplicasForMetric`` and the ``computeStatusFor*Metric`` helpers wrap
the replica calculator (``podscale.hpa.calculator``): they name the metric for the
rescale reason, build the ``status.currentMetrics`` entry, and on failure produce the
``ScalingActive=False`` condition (``FailedGet<Source>Metric``) plus the error text that
ends up in the ``FailedComputeMetricsReplicas`` event. ``podscale.hpa.decide`` combines
the outcomes of all metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final, NamedTuple

from podscale.api.quantity import format_milli
from podscale.hpa.calculator import propose_replicas
from podscale.hpa.conditions import INVALID_METRIC_SOURCE_TYPE
from podscale.hpa.types import MetricError, MetricInputs, MetricProposal

__all__ = ["UNABLE_TO_COMPUTE", "MetricOutcome", "compute_metric"]

UNABLE_TO_COMPUTE: Final = "the HPA was unable to compute the replica count: {}"

# The deferred calculator call handed to each per-source handler.
_Propose = Callable[[], MetricProposal]

# Upstream leaves a failed metric's slot in status.currentMetrics as a zero MetricStatus,
# which serializes as {"type": ""}.
_EMPTY_STATUS: Final[dict[str, Any]] = {"type": ""}


class MetricOutcome(NamedTuple):
    """The controller-level result for one ``spec.metrics[i]``.

    On success ``replicas`` is set and ``error`` is ``None``; on failure ``replicas`` is
    ``None`` and ``error`` / ``condition_reason`` / ``condition_message`` carry upstream's
    texts (``failure_detail`` is the event message, ``condition_message`` the condition's).
    ``name`` is the description used in "<name> above target".
    """

    replicas: int | None
    name: str
    timestamp: datetime | None
    status: dict[str, Any]
    proposal: MetricProposal | None = None
    error: str | None = None
    condition_reason: str | None = None
    condition_message: str | None = None
    failure_detail: str | None = None


def _failure(reason: str, inner: str, error: str) -> MetricOutcome:
    return MetricOutcome(
        replicas=None,
        name="",
        timestamp=None,
        status=dict(_EMPTY_STATUS),
        error=error,
        condition_reason=reason,
        condition_message=UNABLE_TO_COMPUTE.format(inner),
        failure_detail=inner,
    )


def _success(proposal: MetricProposal, status: dict[str, Any]) -> MetricOutcome:
    # The calculator names the metric as upstream's "<name> above target" reason does.
    return MetricOutcome(
        proposal.replicas, proposal.trace.metric, proposal.timestamp, status, proposal
    )


def _identifier(metric: dict[str, Any]) -> dict[str, Any]:
    ident: dict[str, Any] = {"name": metric.get("name", "")}
    if metric.get("selector") is not None:
        ident["selector"] = metric["selector"]
    return ident


def _value_status(proposal: MetricProposal, key: str) -> dict[str, Any]:
    return {key: format_milli(proposal.raw_value)}


def compute_metric(spec: dict[str, Any], inputs: MetricInputs) -> MetricOutcome:
    """Compute one metric's outcome; never raises for metric failures."""
    metric_type = spec.get("type", "")
    handler = _HANDLERS.get(metric_type)
    if handler is None:
        inner = f'unknown metric source type "{metric_type}"'
        return _failure(INVALID_METRIC_SOURCE_TYPE, inner, inner)

    def propose() -> MetricProposal:
        return propose_replicas(spec, inputs)

    return handler(spec, propose)


def _resource(spec: dict[str, Any], propose: _Propose) -> MetricOutcome:
    return _resource_like(spec, propose, container=False)


def _container_resource(spec: dict[str, Any], propose: _Propose) -> MetricOutcome:
    return _resource_like(spec, propose, container=True)


def _resource_like(spec: dict[str, Any], propose: _Propose, *, container: bool) -> MetricOutcome:
    key = "containerResource" if container else "resource"
    source = spec.get(key) or {}
    name = source.get("name", "")
    target = source.get("target") or {}
    by_value = target.get("averageValue") is not None
    try:
        proposal = propose()
    except MetricError as err:
        # The failure's texts, made only on failure (every sync succeeds, mostly).
        reason = "FailedGetContainerResourceMetric" if container else "FailedGetResourceMetric"
        wrap = (
            f"failed to get {source.get('container', '')} container metric value: {{}}"
            if container
            else f"failed to get {name} resource metric value: {{}}"
        )
        if by_value:
            inner = f"failed to get {name} usage: {err}"
        elif target.get("averageUtilization") is not None:
            inner = f"failed to get {name} utilization: {err}"
        else:
            inner = str(err)
        return _failure(reason, inner, wrap.format(inner))
    current: dict[str, Any] = {}
    if not by_value:
        current["averageUtilization"] = proposal.utilization
    current.update(_value_status(proposal, "averageValue"))
    body: dict[str, Any] = {"name": name}
    if container:
        body["container"] = source.get("container", "")
    body["current"] = current
    status = {"type": spec["type"], key: body}
    return _success(proposal, status)


def _pods(spec: dict[str, Any], propose: _Propose) -> MetricOutcome:
    source = spec.get("pods") or {}
    metric = source.get("metric") or {}
    try:
        proposal = propose()
    except MetricError as err:
        return _failure("FailedGetPodsMetric", str(err), f"failed to get pods metric value: {err}")
    status = {
        "type": "Pods",
        "pods": {"metric": _identifier(metric), "current": _value_status(proposal, "averageValue")},
    }
    return _success(proposal, status)


def _object(spec: dict[str, Any], propose: _Propose) -> MetricOutcome:
    source = spec.get("object") or {}
    metric = source.get("metric") or {}
    target = source.get("target") or {}
    metric_name = metric.get("name", "")
    reason = "FailedGetObjectMetric"
    # Upstream picks the Value path only for type Value, then AverageValue.
    by_value = target.get("type") == "Value" and target.get("value") is not None
    by_average = target.get("type") == "AverageValue" and target.get("averageValue") is not None
    try:
        proposal = propose()
    except MetricError as err:
        if by_value or not by_average:
            inner = str(err)
            return _failure(reason, inner, f"failed to get object metric value: {inner}")
        outer = f"failed to get {metric_name} object metric: {err}"
        return _failure(reason, str(err), f"failed to get object metric value: {outer}")
    key = "value" if by_value else "averageValue"
    status = {
        "type": "Object",
        "object": {
            "describedObject": source.get("describedObject") or {},
            "metric": _identifier(metric),
            "current": _value_status(proposal, key),
        },
    }
    return _success(proposal, status)


def _external(spec: dict[str, Any], propose: _Propose) -> MetricOutcome:
    source = spec.get("external") or {}
    metric = source.get("metric") or {}
    target = source.get("target") or {}
    metric_name = metric.get("name", "")
    reason = "FailedGetExternalMetric"
    # Upstream tries the per-pod (AverageValue) path before the Value path.
    by_average = target.get("averageValue") is not None
    by_value = not by_average and target.get("value") is not None
    wrap = f"failed to get {metric_name} external metric value: {{}}"
    try:
        proposal = propose()
    except MetricError as err:
        if by_average:
            outer = f"failed to get {metric_name} external metric: {err}"
        elif by_value:
            outer = f"failed to get external metric {metric_name}: {err}"
        else:
            outer = str(err)
        return _failure(reason, str(err), wrap.format(outer))
    key = "averageValue" if by_average else "value"
    status = {
        "type": "External",
        "external": {"metric": _identifier(metric), "current": _value_status(proposal, key)},
    }
    return _success(proposal, status)


_HANDLERS: Final = {
    "Resource": _resource,
    "ContainerResource": _container_resource,
    "Pods": _pods,
    "Object": _object,
    "External": _external,
}
