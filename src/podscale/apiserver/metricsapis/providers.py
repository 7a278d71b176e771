"""The custom and external metrics provider contract, and the errors providers raise.

``create_app(custom_metrics_provider=..., external_metrics_provider=...)`` serves
custom.metrics.k8s.io/v1beta2 (``metricsapis.custom``) and external.metrics.k8s.io/v1beta1
(``metricsapis.external``) from these protocols, shaped like sigs.k8s.io/custom-metrics-apiserver's
``provider.CustomMetricsProvider`` / ``ExternalMetricsProvider``: a cheap, synchronous listing
for discovery, and async reads (an adapter may query Prometheus over HTTP; the handlers await
them on the event loop). Reads return upstream JSON (``MetricValue`` / ``ExternalMetricValue``
dicts; ``metricsapis.samples`` renders them) and fail by raising ``ApiError``: the
``metric_not_found*`` constructors below carry the adapters' exact 404 texts.

A provider that also implements a ``*MetricsWriter`` protocol accepts podscale's push
extension (PUT/POST of a value list at the URL a GET reads, decoded by ``metricsapis.push``);
``podscale.metrics.push.PushMetricsProvider`` implements all four.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from podscale.api import Selector
from podscale.apiserver.errors import ApiError, status_body
from podscale.apiserver.metricsapis.samples import CustomSample, ExternalSample

__all__ = [
    "CustomMetricInfo",
    "CustomMetricsProvider",
    "CustomMetricsWriter",
    "CustomScope",
    "ExternalMetricInfo",
    "ExternalMetricsProvider",
    "ExternalMetricsWriter",
    "external_metric_not_found",
    "metric_not_found",
    "metric_not_found_for",
    "metric_not_found_for_selector",
]

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CustomMetricInfo:
    """One metric of one resource: ``group_resource`` is the GroupResource string
    (``pods``, ``deployments.apps``); ``namespaced`` says which URL shape serves it."""

    group_resource: str
    namespaced: bool
    metric: str


@dataclass(frozen=True, slots=True)
class ExternalMetricInfo:
    metric: str


@dataclass(frozen=True, slots=True)
class CustomScope:
    """What a push URL names: one metric of one object, or of every object (``name`` None,
    the ``*`` URL) of a resource in a namespace (``namespace`` None: root-scoped)."""

    info: CustomMetricInfo
    namespace: str | None
    name: str | None


class CustomMetricsProvider(Protocol):
    """A source of custom metrics (custom.metrics.k8s.io).

    ``list_custom_metrics`` must not fail or block (cache it): discovery calls it on every
    request. ``get_metric_by_name`` returns one ``MetricValue`` for a named object (namespace
    None for a root-scoped object); ``get_metric_by_selector`` the values of every object of
    the resource matching ``selector`` (an empty list is a valid answer). Both receive the
    request's ``metricLabelSelector`` and raise ``ApiError`` (404 for an unknown metric).
    """

    def list_custom_metrics(self) -> Sequence[CustomMetricInfo]: ...

    async def get_metric_by_name(
        self,
        namespace: str | None,
        name: str,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> JSON: ...

    async def get_metric_by_selector(
        self,
        namespace: str | None,
        selector: Selector,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> list[JSON]: ...


class ExternalMetricsProvider(Protocol):
    """A source of external metrics (external.metrics.k8s.io): every series of ``info``'s
    metric in ``namespace`` whose labels match ``metric_selector``, as
    ``ExternalMetricValue`` dicts (the HPA sums them). 404 ``ApiError`` for an unknown
    metric; ``list_external_metrics`` feeds discovery and must not fail or block."""

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]: ...

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]: ...


@runtime_checkable
class CustomMetricsWriter(Protocol):
    """Accepts pushed custom metric values. ``replace`` (PUT) first drops every value in
    ``scope``; otherwise (POST) the samples are upserted series by series."""

    def write_custom_samples(
        self, scope: CustomScope, samples: Sequence[CustomSample], *, replace: bool
    ) -> None: ...


@runtime_checkable
class ExternalMetricsWriter(Protocol):
    """Accepts pushed external metric values for one metric of one namespace; ``replace``
    as for ``CustomMetricsWriter``."""

    def write_external_samples(
        self, namespace: str, metric: str, samples: Sequence[ExternalSample], *, replace: bool
    ) -> None: ...


def _not_found(message: str) -> ApiError:
    # The adapters build this Status by hand: reason NotFound, no details.
    return ApiError(status_body(404, message, "NotFound"))


def metric_not_found(group_resource: str, metric: str) -> ApiError:
    """custom-metrics-apiserver's ``NewMetricNotFoundError``."""
    return _not_found(f"the server could not find the metric {metric} for {group_resource}")


def metric_not_found_for(group_resource: str, metric: str, name: str) -> ApiError:
    """custom-metrics-apiserver's ``NewMetricNotFoundForError`` (one named object)."""
    return _not_found(f"the server could not find the metric {metric} for {group_resource} {name}")


def metric_not_found_for_selector(
    group_resource: str, metric: str, name: str, selector: Selector
) -> ApiError:
    """custom-metrics-apiserver's ``NewMetricNotFoundForSelectorError``."""
    return _not_found(
        f"the server could not find the metric {metric} for {group_resource} {name} "
        f"with selector {selector}"
    )


def external_metric_not_found(metric: str) -> ApiError:
    """prometheus-adapter's external 404: ``NewMetricNotFoundError`` for the ``namespaces``
    resource (its choice for the default namespace; podscale uses it for every namespace)."""
    return metric_not_found("namespaces", metric)
