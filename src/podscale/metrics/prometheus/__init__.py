"""A Prometheus adapter for custom.metrics.k8s.io and external.metrics.k8s.io.

Configured like kubernetes-sigs/prometheus-adapter (``rules`` / ``externalRules`` with
``seriesQuery``, ``seriesFilters``, ``resources``, ``name``, ``metricsQuery``) and querying a
real Prometheus over its HTTP API. Modules, bottom up: ``errors``; ``template`` (the ``<< >>``
Go-template subset), ``promql`` (escaping), ``resources`` and ``naming`` (rule parts);
``config`` (YAML loading); ``results`` and ``client`` (the HTTP API); ``registry``
(discovery), ``queries`` (query rendering); ``adapter`` (the core) and ``provider`` (the API
server's provider protocols).
"""

from podscale.metrics.prometheus.adapter import (
    DEFAULT_RELIST_INTERVAL,
    ExternalMetricValue,
    ObjectMetricValue,
    PrometheusAdapter,
)
from podscale.metrics.prometheus.client import PrometheusClient
from podscale.metrics.prometheus.config import AdapterConfig, Rule, load_config, load_config_file
from podscale.metrics.prometheus.errors import (
    BadSample,
    ConfigError,
    EmptyResult,
    MetricNotFound,
    PrometheusError,
    PrometheusTimeout,
    QueryBuildError,
    ResponseTooLarge,
)
from podscale.metrics.prometheus.provider import (
    ApiObjectLister,
    ObjectLister,
    PrometheusMetricsProvider,
)
from podscale.metrics.prometheus.registry import CustomMetricInfo, ExternalMetricInfo
from podscale.metrics.prometheus.resources import GroupResource

__all__ = [
    "DEFAULT_RELIST_INTERVAL",
    "AdapterConfig",
    "ApiObjectLister",
    "BadSample",
    "ConfigError",
    "CustomMetricInfo",
    "EmptyResult",
    "ExternalMetricInfo",
    "ExternalMetricValue",
    "GroupResource",
    "MetricNotFound",
    "ObjectLister",
    "ObjectMetricValue",
    "PrometheusAdapter",
    "PrometheusClient",
    "PrometheusError",
    "PrometheusMetricsProvider",
    "PrometheusTimeout",
    "QueryBuildError",
    "ResponseTooLarge",
    "Rule",
    "load_config",
    "load_config_file",
]
