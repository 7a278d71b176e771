"""The Prometheus adapter's core: answer metric requests from the rules and Prometheus.

``PrometheusAdapter`` holds the loaded rules, a ``PrometheusClient`` and the last discovery
(``MetricRegistry``). ``refresh(now)`` re-lists series (prometheus-adapter's
``metricsRelistInterval`` loop calls it); reads then work from that snapshot, so listing
metrics never waits on Prometheus. Requests return plain values in milli-units:

- ``object_metrics``: one metric of named objects of one group-resource (pods by name for a
  Pods metric, a Deployment or Service for an Object metric). One query for all names; objects
  Prometheus has no value for are left out, and if none has one it is ``EmptyResult``;
- ``external_metric``: every series the external rule's query returns, with its labels.

Failures are exceptions from ``errors``: ``MetricNotFound`` (no rule exposes it; upstream's
404 texts), ``QueryBuildError``, ``PrometheusError`` and subclasses. ``now`` is always a
parameter (the instant queried). Neighbours: ``provider`` wraps this for the API server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from podscale.api.selectors import Selector
from podscale.metrics.prometheus.client import PrometheusClient
from podscale.metrics.prometheus.config import AdapterConfig
from podscale.metrics.prometheus.errors import EmptyResult, MetricNotFound
from podscale.metrics.prometheus.queries import build_external_query, build_object_query
from podscale.metrics.prometheus.registry import (
    CustomMetricInfo,
    ExternalMetricInfo,
    MetricRegistry,
    discover,
)
from podscale.metrics.prometheus.resources import GroupResource

__all__ = [
    "DEFAULT_RELIST_INTERVAL",
    "ExternalMetricValue",
    "ObjectMetricValue",
    "PrometheusAdapter",
]

# prometheus-adapter's --metrics-relist-interval default; discovery looks back this far.
DEFAULT_RELIST_INTERVAL: Final = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class ObjectMetricValue:
    """``metric`` of the object ``name`` (``namespace`` None: root-scoped), in milli-units."""

    resource: GroupResource
    namespace: str | None
    name: str
    metric: str
    value: int
    timestamp: datetime


@dataclass(frozen=True, slots=True)
class ExternalMetricValue:
    """One series of an external metric: its labels as Prometheus returned them."""

    metric: str
    labels: Mapping[str, str]
    value: int
    timestamp: datetime


class PrometheusAdapter:
    """Rules + Prometheus -> custom and external metric values."""

    def __init__(
        self,
        config: AdapterConfig,
        client: PrometheusClient,
        *,
        relist_interval: timedelta = DEFAULT_RELIST_INTERVAL,
    ) -> None:
        self.config = config
        self.client = client
        self.relist_interval = relist_interval
        self.registry = MetricRegistry()
        self.refreshed_at: datetime | None = None

    async def refresh(self, now: datetime) -> MetricRegistry:
        """Re-discover metrics over ``[now - relist_interval, now]``; on failure the previous
        registry stays in place and the ``PrometheusError`` propagates."""
        self.registry = await discover(self.client, self.config, now, self.relist_interval)
        self.refreshed_at = now
        return self.registry

    def custom_metrics(self) -> list[CustomMetricInfo]:
        return self.registry.custom_metrics()

    def external_metrics(self) -> list[ExternalMetricInfo]:
        return self.registry.external_metrics()

    async def object_metrics(
        self,
        resource: GroupResource,
        namespace: str | None,
        names: Sequence[str],
        metric: str,
        metric_selector: Selector,
        now: datetime,
    ) -> list[ObjectMetricValue]:
        """Values for ``names`` (deduplicated, in request order) that Prometheus has."""
        info = CustomMetricInfo(resource, namespace is not None, metric)
        binding = self.registry.custom.get(info)
        if binding is None:
            raise MetricNotFound(f"the server could not find the metric {metric} for {resource}")
        wanted = list(dict.fromkeys(names))
        query = build_object_query(
            binding.rule, binding.series, resource, namespace, wanted, metric_selector
        )
        samples = await self.client.query(query, now)
        label = binding.rule.resources.label_for_resource(resource)
        by_name = {sample.labels.get(label, ""): sample for sample in samples}
        found = [
            ObjectMetricValue(resource, namespace, name, metric, s.value, s.timestamp)
            for name in wanted
            if (s := by_name.get(name)) is not None
        ]
        if not found:
            raise EmptyResult(
                f"no values for {resource} {', '.join(wanted)} in the result of query {query} "
                f"(is the result grouped by {label}?)"
            )
        return found

    async def object_metric(
        self,
        resource: GroupResource,
        namespace: str | None,
        name: str,
        metric: str,
        metric_selector: Selector,
        now: datetime,
    ) -> ObjectMetricValue:
        """The value for one object; ``MetricNotFound`` (upstream's text) when it has none."""
        try:
            return (
                await self.object_metrics(resource, namespace, [name], metric, metric_selector, now)
            )[0]
        except EmptyResult:
            raise MetricNotFound(
                f"the server could not find the metric {metric} for {resource} {name}"
            ) from None

    async def external_metric(
        self, namespace: str | None, metric: str, metric_selector: Selector, now: datetime
    ) -> list[ExternalMetricValue]:
        binding = self.registry.external.get(metric)
        if binding is None:
            raise MetricNotFound(
                f"the server could not find the metric {metric} for provided labels"
            )
        query = build_external_query(binding.rule, binding.series, namespace, metric_selector)
        samples = await self.client.query(query, now)
        return [ExternalMetricValue(metric, s.labels, s.value, s.timestamp) for s in samples]
