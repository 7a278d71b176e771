"""Discovery: which metrics the rules expose, from the series Prometheus actually has.

For each distinct ``seriesQuery`` the adapter asks ``/api/v1/series`` once (rules sharing a
query share the answer, as upstream), over ``[now - lookback, now]``. Each rule then keeps the
series its filters accept, names them with ``name``, and, for custom rules, attaches them to
every group-resource their labels name; a series with the namespace label is namespaced
(namespaces and nodes themselves never are). External rules expose one metric per name.

``build_registry`` is the pure part (series in, ``MetricRegistry`` out); ``discover`` adds the
HTTP calls. When two series produce the same metric, the later rule (then the later series in
name order) wins, as upstream's map overwrite does, but deterministically.
Neighbours: ``config.Rule`` in, ``provider`` looks metrics up here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from podscale.metrics.prometheus.client import PrometheusClient
from podscale.metrics.prometheus.config import AdapterConfig, Rule
from podscale.metrics.prometheus.errors import PrometheusError
from podscale.metrics.prometheus.naming import keeps_series
from podscale.metrics.prometheus.resources import NAMESPACES, GroupResource

__all__ = [
    "CustomMetricInfo",
    "ExternalMetricInfo",
    "MetricRegistry",
    "SeriesBinding",
    "build_registry",
    "discover",
]

_ROOT_SCOPED: Final = frozenset({NAMESPACES, GroupResource("", "nodes")})


@dataclass(frozen=True, slots=True, order=True)
class CustomMetricInfo:
    """A custom metric as discovery lists it: ``pods/http_requests``, namespaced or not."""

    group_resource: GroupResource
    namespaced: bool
    metric: str


@dataclass(frozen=True, slots=True, order=True)
class ExternalMetricInfo:
    metric: str


@dataclass(frozen=True, slots=True)
class SeriesBinding:
    """The Prometheus series behind a metric and the rule that renders its queries."""

    series: str
    rule: Rule


@dataclass(frozen=True)
class MetricRegistry:
    custom: Mapping[CustomMetricInfo, SeriesBinding] = field(default_factory=dict)
    external: Mapping[str, SeriesBinding] = field(default_factory=dict)

    def custom_metrics(self) -> list[CustomMetricInfo]:
        return sorted(self.custom)

    def external_metrics(self) -> list[ExternalMetricInfo]:
        return [ExternalMetricInfo(name) for name in sorted(self.external)]


def _series_names(label_sets: Sequence[Mapping[str, str]]) -> list[tuple[str, list[str]]]:
    """(series name, label names) per distinct series name, in name order."""
    by_name: dict[str, set[str]] = {}
    for labels in label_sets:
        name = labels.get("__name__")
        if name:
            by_name.setdefault(name, set()).update(k for k in labels if k != "__name__")
    return [(name, sorted(by_name[name])) for name in sorted(by_name)]


def build_registry(
    config: AdapterConfig, series_by_query: Mapping[str, Sequence[Mapping[str, str]]]
) -> MetricRegistry:
    """The registry the rules derive from ``series_by_query`` (``seriesQuery`` -> label sets)."""
    custom: dict[CustomMetricInfo, SeriesBinding] = {}
    for rule in config.rules:
        for series, labels in _kept(rule, series_by_query):
            metric = rule.name.metric_name(series)
            if metric is None:
                continue
            resources, namespaced = rule.resources.resources_for_labels(labels)
            for resource in resources:
                scoped = namespaced and resource not in _ROOT_SCOPED
                custom[CustomMetricInfo(resource, scoped, metric)] = SeriesBinding(series, rule)
    external: dict[str, SeriesBinding] = {}
    for rule in config.external_rules:
        for series, _labels in _kept(rule, series_by_query):
            metric = rule.name.metric_name(series)
            if metric is not None:
                external[metric] = SeriesBinding(series, rule)
    return MetricRegistry(custom, external)


def _kept(
    rule: Rule, series_by_query: Mapping[str, Sequence[Mapping[str, str]]]
) -> list[tuple[str, list[str]]]:
    found = _series_names(series_by_query.get(rule.series_query, ()))
    return [(name, labels) for name, labels in found if keeps_series(rule.series_filters, name)]


async def discover(
    client: PrometheusClient, config: AdapterConfig, now: datetime, lookback: timedelta
) -> MetricRegistry:
    """Ask Prometheus for every distinct ``seriesQuery`` concurrently and build the registry.

    Any failed query fails the whole discovery (``PrometheusError`` naming the query): a
    partial registry would make metrics vanish and reappear between relists.
    """
    queries = sorted({rule.series_query for rule in (*config.rules, *config.external_rules)})

    async def fetch(query: str) -> Sequence[Mapping[str, str]]:
        try:
            return await client.series([query], now - lookback, now)
        except PrometheusError as err:
            raise PrometheusError(f"unable to fetch metrics for query {query!r}: {err}") from err

    answers = await asyncio.gather(*(fetch(query) for query in queries))
    return build_registry(config, dict(zip(queries, answers, strict=True)))
