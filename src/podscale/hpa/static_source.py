"""A ``MetricsSource`` over fixed samples: for explain-scale inputs, tests and simulations.

It answers like the real metrics APIs would for one moment in time: resource metrics
per pod (summed over containers, or one container for ContainerResource), custom
per-pod metrics, object metrics and external metric series. A source can be told to
fail for a query (``failures``), which it reports as ``MetricsUnavailable`` with the
given message, the way an unreachable metrics API does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = ["NO_RESOURCE_METRICS", "StaticMetricsSource"]

NO_RESOURCE_METRICS = "no metrics returned from resource metrics API"


@dataclass(frozen=True, slots=True)
class StaticMetricsSource:
    """Fixed samples, all milli-units, all stamped ``timestamp`` over ``window``.

    - ``resources[resource][pod][container]``: container usage (cpu in millicores,
      memory in milli-bytes as upstream's MilliValue gives).
    - ``pods[metric][pod]``: a custom per-pod metric.
    - ``objects[(metric, kind, name)]``: an object metric value.
    - ``externals[metric]``: the values of an external metric's series.
    - ``failures[key]``: a message to fail with; keys ``resource/<name>``,
      ``pods/<metric>``, ``object/<metric>``, ``external/<metric>``.
    """

    timestamp: datetime
    window: timedelta = timedelta(seconds=30)
    resources: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    pods: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    objects: Mapping[tuple[str, str, str], int] = field(default_factory=dict)
    externals: Mapping[str, list[int]] = field(default_factory=dict)
    failures: Mapping[str, str] = field(default_factory=dict)
    # Answers are fixed, so each (resource, container) answer is built once and reused;
    # callers get a fresh dict each time (the calculator may add entries to it).
    _answers: dict[tuple[str, str | None], dict[str, PodMetric]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _fail_if_told(self, key: str) -> None:
        message = self.failures.get(key)
        if message is not None:
            raise MetricsUnavailable(message)

    def _sample(self, value: int) -> PodMetric:
        return PodMetric(value=value, timestamp=self.timestamp, window=self.window)

    def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        self._fail_if_told(f"resource/{resource}")
        answer = self._answers.get((resource, container))
        if answer is None:
            answer = {}
            for pod, containers in (self.resources.get(resource) or {}).items():
                if container is None:
                    answer[pod] = self._sample(sum(containers.values()))
                elif container in containers:
                    answer[pod] = self._sample(containers[container])
            self._answers[(resource, container)] = answer
        if not answer:
            raise MetricsUnavailable(NO_RESOURCE_METRICS)
        return dict(answer), self.timestamp

    def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        self._fail_if_told(f"pods/{metric_name}")
        values = self.pods.get(metric_name)
        if values is None:
            raise MetricsUnavailable(f"the server could not find the metric {metric_name} for pods")
        return {pod: self._sample(v) for pod, v in values.items()}, self.timestamp

    def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        self._fail_if_told(f"object/{metric_name}")
        kind = str(described_object.get("kind", ""))
        name = str(described_object.get("name", ""))
        value = self.objects.get((metric_name, kind, name))
        if value is None:
            raise MetricsUnavailable(
                f"the server could not find the metric {metric_name} for {kind.lower()} {name}"
            )
        return value, self.timestamp

    def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        self._fail_if_told(f"external/{metric_name}")
        values = self.externals.get(metric_name)
        if values is None:
            raise MetricsUnavailable(
                "the server could not find the requested resource "
                f"(get {metric_name}.external.metrics.k8s.io)"
            )
        return list(values), self.timestamp
