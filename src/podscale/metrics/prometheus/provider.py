"""The Prometheus adapter behind the API server's custom and external metrics groups.

``PrometheusMetricsProvider`` implements ``podscale.apiserver.metricsapis.providers``'
``CustomMetricsProvider`` and ``ExternalMetricsProvider`` on top of ``PrometheusAdapter``: listings
come from the last discovery (never blocking), reads query Prometheus at ``clock.now()`` and return
``MetricValue`` / ``ExternalMetricValue`` JSON rendered by
``podscale.apiserver.metricsapis.samples``. Errors become what custom-metrics-apiserver adapters
answer: unknown metric or object -> 404 with the adapters' texts; anything else (Prometheus down,
timeout, oversized body, NaN, a selector PromQL cannot express) -> 500 ``Internal error occurred:
unable to fetch metrics`` as prometheus-adapter says, with the precise cause kept in
``details.causes`` instead of being dropped.

A label-selector read (``*``, how the HPA reads a Pods metric) needs the names of matching
objects: an ``ObjectLister`` supplies them (``ApiObjectLister`` lists through a podscale
client). Neighbours: ``adapter`` (the core), ``podscale.apiserver.metricsapis`` (the routes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from podscale.api import Quantity, Selector
from podscale.api.kinds import all_kinds
from podscale.apiserver.errors import ApiError, status_body
from podscale.apiserver.metricsapis.providers import (
    CustomMetricInfo,
    ExternalMetricInfo,
    metric_not_found,
)
from podscale.apiserver.metricsapis.samples import (
    CustomSample,
    ExternalSample,
    described_kind,
    render_custom,
    render_external,
    sorted_labels,
    split_group_resource,
)
from podscale.client.listwatch import ResourceApi
from podscale.metrics.prometheus.adapter import ObjectMetricValue, PrometheusAdapter
from podscale.metrics.prometheus.errors import (
    EmptyResult,
    MetricNotFound,
    PrometheusError,
    QueryBuildError,
)
from podscale.metrics.prometheus.registry import CustomMetricInfo as DiscoveredMetric
from podscale.metrics.prometheus.resources import GroupResource, normalize_group_resource
from podscale.store.interface import Clock

__all__ = ["ApiObjectLister", "ObjectLister", "PrometheusMetricsProvider"]

JSON = dict[str, Any]


class ObjectLister(Protocol):
    """Names of the objects of ``resource`` in ``namespace`` (None: root-scoped or all)
    matching ``selector``."""

    async def list_object_names(
        self, resource: GroupResource, namespace: str | None, selector: Selector
    ) -> list[str]: ...


class ApiObjectLister:
    """``ObjectLister`` over a podscale client (``InProcessApi`` or ``HttpApi``)."""

    def __init__(self, api: ResourceApi) -> None:
        self.api = api

    async def list_object_names(
        self, resource: GroupResource, namespace: str | None, selector: Selector
    ) -> list[str]:
        kind = next(
            (
                info
                for info in all_kinds()
                if info.top_level
                and info.preferred
                and (info.group, info.plural) == (resource.group, resource.resource)
            ),
            None,
        )
        if kind is None:
            raise LookupError(f"the server doesn't have a resource type {resource}")
        body = await self.api.list(kind, namespace, label_selector=str(selector) or None)
        return [str(item.get("metadata", {}).get("name", "")) for item in body.get("items", [])]


def _fetch_failed(cause: Exception, what: str = "unable to fetch metrics") -> ApiError:
    body = status_body(500, f"Internal error occurred: {what}", "InternalError")
    body["details"] = {"causes": [{"message": str(cause)}]}
    return ApiError(body)


def _group_resource(text: str) -> GroupResource:
    group, resource = split_group_resource(text)
    return normalize_group_resource(group, resource)


class PrometheusMetricsProvider:
    """custom.metrics.k8s.io and external.metrics.k8s.io answered from Prometheus."""

    def __init__(
        self, adapter: PrometheusAdapter, clock: Clock, lister: ObjectLister | None = None
    ) -> None:
        self.adapter = adapter
        self.clock = clock
        self.lister = lister
        self.last_relist_error: PrometheusError | None = None

    async def refresh(self) -> None:
        """Re-run discovery now; a failure propagates and keeps the previous listing."""
        await self.adapter.refresh(self.clock.now())

    async def relist_until(self, stop: asyncio.Event, interval: float | None = None) -> None:
        """Refresh now and then every ``interval`` seconds (default: the adapter's relist
        interval) until ``stop`` is set, as prometheus-adapter's relist loop. A failed relist
        keeps the previous listing and is kept in ``last_relist_error`` (None after a
        success), so one Prometheus hiccup neither empties discovery nor ends the loop.
        Waiting is on the event loop's clock, so it runs on virtual time too."""
        period = self.adapter.relist_interval.total_seconds() if interval is None else interval
        while True:
            try:
                await self.refresh()
                self.last_relist_error = None
            except PrometheusError as err:
                self.last_relist_error = err
            try:
                await asyncio.wait_for(stop.wait(), timeout=period)
            except TimeoutError:
                continue
            return

    def list_custom_metrics(self) -> Sequence[CustomMetricInfo]:
        return [
            CustomMetricInfo(str(info.group_resource), info.namespaced, info.metric)
            for info in self.adapter.custom_metrics()
        ]

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return [ExternalMetricInfo(info.metric) for info in self.adapter.external_metrics()]

    async def get_metric_by_name(
        self, namespace: str | None, name: str, info: CustomMetricInfo, metric_selector: Selector
    ) -> JSON:
        resource = _group_resource(info.group_resource)
        try:
            value = await self.adapter.object_metric(
                resource, namespace, name, info.metric, metric_selector, self.clock.now()
            )
        except MetricNotFound as err:
            raise ApiError(status_body(404, str(err), "NotFound")) from None
        except (PrometheusError, QueryBuildError) as err:
            raise _fetch_failed(err) from None
        return self._render(info, value, metric_selector)

    async def get_metric_by_selector(
        self,
        namespace: str | None,
        selector: Selector,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> list[JSON]:
        resource = _group_resource(info.group_resource)
        # Unknown metric: 404 before listing objects, as the adapters answer.
        if DiscoveredMetric(resource, namespace is not None, info.metric) not in (
            self.adapter.registry.custom
        ):
            raise metric_not_found(info.group_resource, info.metric)
        if self.lister is None:
            raise _fetch_failed(
                LookupError("no object lister configured"), "unable to list matching resources"
            )
        try:
            names = await self.lister.list_object_names(resource, namespace, selector)
        except Exception as err:  # any transport failure: upstream hides it the same way
            raise _fetch_failed(err, "unable to list matching resources") from None
        if not names:
            return []
        try:
            values = await self.adapter.object_metrics(
                resource, namespace, names, info.metric, metric_selector, self.clock.now()
            )
        except MetricNotFound:
            raise metric_not_found(info.group_resource, info.metric) from None
        except EmptyResult:
            return []
        except (PrometheusError, QueryBuildError) as err:
            raise _fetch_failed(err) from None
        return [self._render(info, value, metric_selector) for value in values]

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        try:
            values = await self.adapter.external_metric(
                namespace, info.metric, metric_selector, self.clock.now()
            )
        except MetricNotFound as err:
            raise ApiError(status_body(404, str(err), "NotFound")) from None
        except (PrometheusError, QueryBuildError) as err:
            raise _fetch_failed(err) from None
        return [
            render_external(
                ExternalSample(
                    namespace=namespace,
                    metric=value.metric,
                    value=Quantity.from_milli(value.value),
                    labels=sorted_labels(value.labels),
                    timestamp=value.timestamp,
                )
            )
            for value in values
        ]

    @staticmethod
    def _render(
        info: CustomMetricInfo, value: ObjectMetricValue, metric_selector: Selector
    ) -> JSON:
        api_version, kind = described_kind(str(value.resource))
        sample = CustomSample(
            group_resource=str(value.resource),
            namespace=value.namespace,
            name=value.name,
            metric=info.metric,
            value=Quantity.from_milli(value.value),
            timestamp=value.timestamp,
            kind=kind,
            api_version=api_version,
        )
        return render_custom(sample, metric_selector)
