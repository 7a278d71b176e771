"""The HPA controller's own metrics, under upstream's names, as Prometheus text.

Upstream's ``pkg/controller/podautoscaler/monitor/metrics.go`` registers, under the
subsystem ``horizontal_pod_autoscaler_controller``:

- ``reconciliations_total{action,error}`` and ``reconciliation_duration_seconds{action,error}``
  (one per sync of one HPA);
- ``metric_computation_total{action,error,metric_type}`` and
  ``metric_computation_duration_seconds{action,error,metric_type}`` (one per metric per sync).

``action`` is ``scale_up``, ``scale_down`` or ``none``; ``error`` is ``spec``, ``internal``
or ``none``; ``metric_type`` a ``spec.metrics[*].type``. Histograms use upstream's buckets
(``ExponentialBuckets(0.001, 2, 15)``). ``ControllerMetrics.render`` gives the text
exposition format (version 0.0.4) with component-base's ``[ALPHA]`` help prefix; the lead
serves it on ``/metrics``. Not thread-safe by design: controllers run on one event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "ACTION_NONE",
    "ACTION_SCALE_DOWN",
    "ACTION_SCALE_UP",
    "BUCKETS",
    "ERROR_INTERNAL",
    "ERROR_NONE",
    "ERROR_SPEC",
    "ControllerMetrics",
]

ACTION_SCALE_UP: Final = "scale_up"
ACTION_SCALE_DOWN: Final = "scale_down"
ACTION_NONE: Final = "none"
ERROR_SPEC: Final = "spec"
ERROR_INTERNAL: Final = "internal"
ERROR_NONE: Final = "none"
BUCKETS: Final = tuple(0.001 * 2**i for i in range(15))

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


def format_value(value: float) -> str:
    """A sample value as Go's ``strconv.FormatFloat(v, 'g', -1, 64)`` prints it."""
    if value == float("inf"):
        return "+Inf"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _labels(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    pairs = [f'{n}="{v}"' for n, v in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


@dataclass(slots=True)
class _Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * len(BUCKETS))
    total: int = 0
    sum: float = 0.0

    def observe(self, seconds: float) -> None:
        for index, bound in enumerate(BUCKETS):
            if seconds <= bound:
                self.counts[index] += 1
        self.total += 1
        self.sum += seconds


@dataclass(slots=True)
class _Family:
    name: str
    label_names: tuple[str, ...]
    counters: dict[tuple[str, ...], int] = field(default_factory=dict)
    histograms: dict[tuple[str, ...], _Histogram] = field(default_factory=dict)

    def render_counter(self) -> list[str]:
        full = _PREFIX + self.name
        lines = [f"# HELP {full} [ALPHA] {_HELP[self.name]}", f"# TYPE {full} counter"]
        for values, count in sorted(self.counters.items()):
            lines.append(f"{full}{_labels(self.label_names, values)} {count}")
        return lines

    def render_histogram(self) -> list[str]:
        full = _PREFIX + self.name
        lines = [f"# HELP {full} [ALPHA] {_HELP[self.name]}", f"# TYPE {full} histogram"]
        for values, histogram in sorted(self.histograms.items()):
            for bound, count in zip(BUCKETS, histogram.counts, strict=True):
                labels = _labels(self.label_names, values, f'le="{format_value(bound)}"')
                lines.append(f"{full}_bucket{labels} {count}")
            labels = _labels(self.label_names, values, 'le="+Inf"')
            lines.append(f"{full}_bucket{labels} {histogram.total}")
            lines.append(
                f"{full}_sum{_labels(self.label_names, values)} {format_value(histogram.sum)}"
            )
            lines.append(f"{full}_count{_labels(self.label_names, values)} {histogram.total}")
        return lines


class ControllerMetrics:
    """The four upstream metric families; ``observe_*`` record, ``render`` exposes."""

    def __init__(self) -> None:
        self._reconciliations = _Family("reconciliations_total", ("action", "error"))
        self._reconciliation_seconds = _Family(
            "reconciliation_duration_seconds", ("action", "error")
        )
        self._computations = _Family("metric_computation_total", ("action", "error", "metric_type"))
        self._computation_seconds = _Family(
            "metric_computation_duration_seconds", ("action", "error", "metric_type")
        )

    def observe_reconciliation(self, action: str, error: str, seconds: float) -> None:
        labels = (action, error)
        counters = self._reconciliations.counters
        counters[labels] = counters.get(labels, 0) + 1
        self._reconciliation_seconds.histograms.setdefault(labels, _Histogram()).observe(seconds)

    def observe_metric_computation(
        self, action: str, error: str, metric_type: str, seconds: float
    ) -> None:
        labels = (action, error, metric_type)
        counters = self._computations.counters
        counters[labels] = counters.get(labels, 0) + 1
        self._computation_seconds.histograms.setdefault(labels, _Histogram()).observe(seconds)

    def reconciliations(self, action: str, error: str) -> int:
        """How many reconciliations were recorded with these labels."""
        return self._reconciliations.counters.get((action, error), 0)

    def metric_computations(self, action: str, error: str, metric_type: str) -> int:
        return self._computations.counters.get((action, error, metric_type), 0)

    def render(self) -> str:
        """Every family with at least one sample, sorted by name as Prometheus gathers
        them, in the text exposition format."""
        families = [
            (self._computation_seconds, self._computation_seconds.render_histogram),
            (self._computations, self._computations.render_counter),
            (self._reconciliation_seconds, self._reconciliation_seconds.render_histogram),
            (self._reconciliations, self._reconciliations.render_counter),
        ]
        lines: list[str] = []
        for family, render in sorted(families, key=lambda pair: pair[0].name):
            if family.counters or family.histograms:
                lines.extend(render())
        return "\n".join(lines) + "\n" if lines else ""
