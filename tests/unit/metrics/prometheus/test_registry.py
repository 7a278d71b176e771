"""Discovery: series label sets + rules -> the metrics each rule exposes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from podscale.metrics.prometheus.config import load_config
from podscale.metrics.prometheus.registry import (
    CustomMetricInfo,
    ExternalMetricInfo,
    build_registry,
)
from podscale.metrics.prometheus.resources import NAMESPACES, GroupResource

PODS = GroupResource("", "pods")
NODES = GroupResource("", "nodes")
CONFIG = load_config(
    """
rules:
- seriesQuery: '{__name__=~"^container_.*",namespace!="",pod!=""}'
  seriesFilters: [{isNot: "_seconds_total$"}]
  resources:
    overrides: {namespace: {resource: namespace}, pod: {resource: pod}, node: {resource: node}}
  name: {matches: "^container_(.*)_total$"}
  metricsQuery: '<<.Series>>'
- seriesQuery: '{__name__="node_load1"}'
  resources: {overrides: {node: {resource: node}}}
  metricsQuery: '<<.Series>>'
externalRules:
- seriesQuery: '{__name__=~"^queue_.*"}'
  name: {matches: "^queue_(.*)$", as: "${1}_messages"}
  metricsQuery: '<<.Series>>'
"""
)
CONTAINERS, NODE_LOAD = (rule.series_query for rule in CONFIG.rules)
QUEUES = CONFIG.external_rules[0].series_query
SERIES: Mapping[str, Sequence[Mapping[str, str]]] = {
    CONTAINERS: [
        {"__name__": "container_network_bytes_total", "namespace": "a", "pod": "p1", "node": "n"},
        {"__name__": "container_network_bytes_total", "namespace": "b", "pod": "p2"},
        {"__name__": "container_cpu_seconds_total", "namespace": "a", "pod": "p1"},
        {"__name__": "container_memory_working_set", "namespace": "a", "pod": "p1"},
    ],
    NODE_LOAD: [{"__name__": "node_load1", "node": "n1"}],
    QUEUES: [{"__name__": "queue_depth", "queue": "jobs"}, {"__name__": "queue_lag"}],
}


def test_custom_metrics_per_resource_and_scope() -> None:
    registry = build_registry(CONFIG, SERIES)
    assert registry.custom_metrics() == [
        CustomMetricInfo(NAMESPACES, False, "network_bytes"),
        CustomMetricInfo(NODES, False, "network_bytes"),
        CustomMetricInfo(NODES, False, "node_load1"),
        CustomMetricInfo(PODS, True, "network_bytes"),
    ]
    binding = registry.custom[CustomMetricInfo(PODS, True, "network_bytes")]
    assert (binding.series, binding.rule) == ("container_network_bytes_total", CONFIG.rules[0])


def test_external_metrics_are_renamed() -> None:
    registry = build_registry(CONFIG, SERIES)
    assert registry.external_metrics() == [
        ExternalMetricInfo("depth_messages"),
        ExternalMetricInfo("lag_messages"),
    ]
    assert registry.external["lag_messages"].series == "queue_lag"


def test_no_series_no_metrics() -> None:
    registry = build_registry(CONFIG, {})
    assert (registry.custom_metrics(), registry.external_metrics()) == ([], [])
