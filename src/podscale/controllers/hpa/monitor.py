"""The HPA controller's own metrics, under upstream's names, as Prometheus text.

Upstream's ``pkg/controller/podautoscaler/monitor/metrics.go`` registers, under the
subsystem ``horizontal_pod_autoscaler_controller``:

- ``reconciliations_total{action,error}`` and ``reconciliation_duration_seconds{action,error}``
  (one per sync of one HPA);
- ``metric_computation_total{action,error,metric_type}`` and
  ``metric_computation_duration_seconds{action,error,metric_type}`` (one per metric per sync).

``action`` is ``scale_up``, ``scale_down`` or ``none``; ``error`` is ``spec``, ``internal``
or ``none``; ``metric_type`` a ``spec.metrics[*].type``. Histograms use upstream's buckets
(``ExponentialBuckets(0.001, 2, 15)``). The families are ``prometheus_client`` metrics;
``ControllerMetrics`` is a collector the plane registers on its server's registry for
``/metrics``, and ``render`` gives its own text exposition (version 0.0.4, Go's order via
``podscale.api.exposition``) with component-base's ``[ALPHA]`` help prefix.
``observe_metrics`` labels one decision's metrics as upstream does (a metric whose error
starts with ``unknown metric source type`` is a fault of the spec), and ``decision_error`` the
sync whose decision failed; the HPA controller (``controller``) calls them once per sync,
the first with the ``prefetch.RecordedMetrics`` timings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from prometheus_client import Counter, Histogram
from prometheus_client.metrics_core import Metric

from podscale.api.exposition import render_text
from podscale.controllers.hpa.prefetch import RecordedMetrics
from podscale.hpa.decision import Decision

__all__ = [
    "ACTION_NONE",
    "ACTION_SCALE_DOWN",
    "ACTION_SCALE_UP",
    "BUCKETS",
    "ERROR_INTERNAL",
    "ERROR_NONE",
    "ERROR_SPEC",
    "ControllerMetrics",
    "decision_error",
]

ACTION_SCALE_UP: Final = "scale_up"
ACTION_SCALE_DOWN: Final = "scale_down"
ACTION_NONE: Final = "none"
ERROR_SPEC: Final = "spec"
ERROR_INTERNAL: Final = "internal"
ERROR_NONE: Final = "none"
BUCKETS: Final = tuple(0.001 * 2**i for i in range(15))
# Upstream marks this metric failure as a fault of the spec (errSpec).
_SPEC_METRIC_ERROR: Final = "unknown metric source type"

_PREFIX: Final = "horizontal_pod_autoscaler_controller_"
_LABEL_HELP: Final = (
    "The label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label "
    "'error' should be either 'spec', 'internal', or 'none'."
)
_FIRST_ERROR: Final = (
    " Note that if both spec and internal errors happen during a reconciliation, the first "
    "one to occur is reported in `error` label."
)
_METRIC_TYPE_HELP: Final = " The label 'metric_type' corresponds to HPA.spec.metrics[*].type"
_HELP: Final = {
    "reconciliations_total": "Number of reconciliations of HPA controller. "
    + _LABEL_HELP
    + _FIRST_ERROR,
    "reconciliation_duration_seconds": "The time(seconds) that the HPA controller takes to "
    "reconcile once. " + _LABEL_HELP + _FIRST_ERROR,
    "metric_computation_total": "Number of metric computations. " + _LABEL_HELP + _METRIC_TYPE_HELP,
    "metric_computation_duration_seconds": "The time(seconds) that the HPA controller takes to "
    "calculate one metric. "
    + _LABEL_HELP.replace(" Also, the label", " The label")
    + _METRIC_TYPE_HELP,
}


class ControllerMetrics:
    """The four upstream metric families; ``observe_*`` record, ``render`` exposes.

    A ``prometheus_client`` collector: the embedded plane registers it on its server's
    registry (``ServerState.metrics_registry``). The metrics themselves belong to no
    registry, so several controllers (and tests) in one process never collide."""

    def __init__(self) -> None:
        action_error = ("action", "error")
        with_type = ("action", "error", "metric_type")
        self._reconciliations = _counter("reconciliations_total", action_error)
        self._reconciliation_seconds = _histogram("reconciliation_duration_seconds", action_error)
        self._computations = _counter("metric_computation_total", with_type)
        self._computation_seconds = _histogram("metric_computation_duration_seconds", with_type)
        self._families = (
            self._reconciliations,
            self._reconciliation_seconds,
            self._computations,
            self._computation_seconds,
        )
        # The labelled children by label values: ``labels()`` hands out the same child for
        # the same values as long as none is removed, and these families are private and
        # never remove one; looking them up here spares its checks on every sync.
        self._reconciliation_children: dict[tuple[str, str], tuple[Counter, Histogram]] = {}
        self._computation_children: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}

    def observe_reconciliation(self, action: str, error: str, seconds: float) -> None:
        key = (action, error)
        children = self._reconciliation_children.get(key)
        if children is None:
            children = (
                self._reconciliations.labels(*key),
                self._reconciliation_seconds.labels(*key),
            )
            self._reconciliation_children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def observe_metric_computation(
        self, action: str, error: str, metric_type: str, seconds: float
    ) -> None:
        key = (action, error, metric_type)
        children = self._computation_children.get(key)
        if children is None:
            children = (self._computations.labels(*key), self._computation_seconds.labels(*key))
            self._computation_children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def observe_metrics(
        self, hpa: Mapping[str, Any], decision: Decision, recorded: RecordedMetrics
    ) -> None:
        """``metric_computation_*`` per metric, against the status' old currentReplicas."""
        metrics = decision.trace.metrics
        old_current = int((hpa.get("status") or {}).get("currentReplicas") or 0)
        durations = list(recorded.seconds.values())
        if len(durations) != len(metrics):
            durations = [0.0] * len(metrics)
        for metric, seconds in zip(metrics, durations, strict=True):
            action, error = ACTION_NONE, ERROR_NONE
            if metric.error is not None or metric.replicas is None:
                spec = (metric.error or "").startswith(_SPEC_METRIC_ERROR)
                error = ERROR_SPEC if spec else ERROR_INTERNAL
            elif metric.replicas > old_current:
                action = ACTION_SCALE_UP
            elif metric.replicas < old_current:
                action = ACTION_SCALE_DOWN
            self.observe_metric_computation(action, error, metric.type, seconds)

    def reconciliations(self, action: str, error: str) -> int:
        """How many reconciliations were recorded with these labels."""
        return self._count("reconciliations_total", {"action": action, "error": error})

    def metric_computations(self, action: str, error: str, metric_type: str) -> int:
        labels = {"action": action, "error": error, "metric_type": metric_type}
        return self._count("metric_computation_total", labels)

    def collect(self) -> Iterable[Metric]:
        for family in self._families:
            yield from family.collect()

    def render(self) -> str:
        """Every family with at least one sample, in the text exposition format."""
        return render_text(self)

    def _count(self, name: str, labels: dict[str, str]) -> int:
        for family in self.collect():
            for sample in family.samples:
                if sample.name == _PREFIX + name and sample.labels == labels:
                    return int(sample.value)
        return 0


def decision_error(decision: Decision) -> str:
    """The ``error`` label of a sync whose decision failed: ``spec`` when a metric's error
    is a fault of the spec, ``internal`` otherwise."""
    spec_error = any((m.error or "").startswith(_SPEC_METRIC_ERROR) for m in decision.trace.metrics)
    return ERROR_SPEC if spec_error else ERROR_INTERNAL


def _help(name: str) -> str:
    # component-base prefixes the help of every metric by its stability level.
    return "[ALPHA] " + _HELP[name]


def _counter(name: str, labels: tuple[str, ...]) -> Counter:
    return Counter(_PREFIX + name, _help(name), labels, registry=None)


def _histogram(name: str, labels: tuple[str, ...]) -> Histogram:
    return Histogram(_PREFIX + name, _help(name), labels, registry=None, buckets=BUCKETS)
