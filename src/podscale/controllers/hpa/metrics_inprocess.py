"""``InProcessMetricsClient``: the metrics APIs' answers taken from a ``ServerState``.

What ``RestMetricsClient`` would read through the API server, without HTTP: PodMetrics
from ``state.metrics_provider`` (filtered by label selector as the metrics.k8s.io
handler does), custom values from ``state.custom_metrics_provider`` and external values
from ``state.external_metrics_provider``, with the same selectors the URLs would carry.
A metrics provider that can select by label itself (``pod_metrics_selected``, as
``podscale.metrics.server.MetricsServer`` does through its pod index) is asked for just the
selected pods, the same items the filter would keep, without rendering the whole namespace.
A provider the state lacks reads as the 404 the server gives for an unserved group; a
provider's ``ApiError`` reads as its Status message; any other provider failure as the
server's generic 500, so both clients report the same text for the same situation.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final, Protocol, runtime_checkable

from podscale.api.selectors import Selector, SelectorError, parse_selector
from podscale.apiserver import errors as server_errors
from podscale.apiserver.metricsapis.pod_usage import PodUsage, PodUsageReader
from podscale.apiserver.metricsapis.providers import CustomMetricInfo, ExternalMetricInfo
from podscale.apiserver.metricsapis.router import serving
from podscale.apiserver.state import ServerState
from podscale.controllers.hpa.metrics_values import (
    CUSTOM_API,
    EXTERNAL_API,
    RESOURCE_API,
    custom_group_resource,
    external_values,
    fetch_failed,
    metric_selector_text,
    object_value,
    pod_custom_values,
    pod_resource_values,
    pod_usage_total,
    pod_usage_values,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = ["InProcessMetricsClient"]

JSON = dict[str, Any]
_NOT_SERVED: Final = "the server could not find the requested resource"
# Queries whose last values are kept (``_usage_values``); beyond it they start afresh.
_VALUES_LIMIT: Final = 256

_Values = tuple[dict[str, PodMetric], datetime]


@runtime_checkable
class _SelectingProvider(Protocol):
    def pod_metrics_selected(self, namespace: str, selector: Selector) -> list[JSON] | None: ...


def _usage_reader(provider: object) -> PodUsageReader | None:
    """``provider`` when it is a ``PodUsageReader``, else None: what ``isinstance`` against
    the runtime-checkable protocol answers for its one method (present and not None),
    without the protocol machinery's per-call cost on every HPA sync."""
    if getattr(provider, "pod_usage_selected", None) is None:
        return None
    return provider  # type: ignore[return-value]


def _selector(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as err:
        raise MetricsUnavailable(str(err)) from None


def _failure_text(err: Exception) -> str:
    if isinstance(err, server_errors.ApiError):
        return str(err.status.get("message") or "")
    return str(server_errors.internal_error().status["message"])


class InProcessMetricsClient:
    """A ``MetricsClient`` answering from ``state``'s metrics providers."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        # Per (namespace, selector, resource, container): the records last read and the
        # values ``pod_usage_values`` made of them (see ``_usage_values``).
        self._values: dict[
            tuple[str, str, str, str | None], tuple[tuple[PodUsage, ...], _Values]
        ] = {}

    def _usage_values(
        self,
        records: list[PodUsage],
        namespace: str,
        selector: str,
        resource: str,
        container: str | None,
    ) -> _Values:
        """``pod_usage_values(records, resource, container)``, kept per query while the
        same record objects come back: the usage history and the HPA read the same pods
        from one metrics snapshot, whose records are the same objects. The function is
        pure, and each record is an immutable tuple compared by identity, so the kept
        values are exactly what it would return; callers get their own dict."""
        key = (namespace, selector, resource, container)
        kept = self._values.get(key)
        if (
            kept is not None
            and len(kept[0]) == len(records)
            and all(map(operator.is_, kept[0], records))
        ):
            samples, stamp = kept[1]
            return dict(samples), stamp
        samples, stamp = pod_usage_values(records, resource, container)
        if len(self._values) >= _VALUES_LIMIT:
            self._values.clear()
        self._values[key] = (tuple(records), (samples, stamp))  # a copy: the list may change
        return dict(samples), stamp

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        provider = self._state.metrics_provider
        if provider is None:
            raise fetch_failed(RESOURCE_API, _NOT_SERVED)
        wanted = _selector(selector)
        try:
            records = None
            reader = _usage_reader(provider)
            if reader is not None:
                records = reader.pod_usage_selected(namespace, wanted)
        except Exception as err:
            raise fetch_failed(RESOURCE_API, _failure_text(err)) from None
        if records is not None:
            return self._usage_values(records, namespace, selector, resource, container)
        try:
            selected = None
            if isinstance(provider, _SelectingProvider):
                selected = provider.pod_metrics_selected(namespace, wanted)
            items = provider.pod_metrics(namespace) if selected is None else selected
        except Exception as err:
            raise fetch_failed(RESOURCE_API, _failure_text(err)) from None
        if selected is not None:
            return pod_resource_values(selected, resource, container)
        matching = [
            item
            for item in items
            if wanted.empty() or wanted.matches((item.get("metadata") or {}).get("labels") or {})
        ]
        return pod_resource_values(matching, resource, container)

    async def pod_metrics(self, namespace: str, label_selector: str) -> list[JSON]:
        """The PodMetrics items (metrics.k8s.io) of the pods ``label_selector`` matches in
        ``namespace``, as a LIST with that selector answers: what KEDA's cpu and memory
        scalers read for their activation (``controllers.keda.scalers.base.PodMetricsReader``)."""
        provider = self._state.metrics_provider
        if provider is None:
            raise fetch_failed(RESOURCE_API, _NOT_SERVED)
        wanted = _selector(label_selector)
        try:
            selected = None
            if isinstance(provider, _SelectingProvider):
                selected = provider.pod_metrics_selected(namespace, wanted)
            items = provider.pod_metrics(namespace) if selected is None else selected
        except Exception as err:
            raise fetch_failed(RESOURCE_API, _failure_text(err)) from None
        labels = [(item, (item.get("metadata") or {}).get("labels") or {}) for item in items]
        return [item for item, have in labels if wanted.empty() or wanted.matches(have)]

    async def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        provider = self._state.custom_metrics_provider
        if provider is None:
            raise fetch_failed(CUSTOM_API, _NOT_SERVED)
        wanted = _selector(selector)
        metric_wanted = _selector(metric_selector_text(metric_selector))
        info = CustomMetricInfo("pods", True, metric_name)
        try:
            items = await provider.get_metric_by_selector(namespace, wanted, info, metric_wanted)
        except Exception as err:
            raise fetch_failed(CUSTOM_API, _failure_text(err)) from None
        return pod_custom_values(list(items))

    async def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        provider = self._state.custom_metrics_provider
        if provider is None:
            raise fetch_failed(CUSTOM_API, _NOT_SERVED)
        metric_wanted = _selector(metric_selector_text(metric_selector))
        api_version = str(described_object.get("apiVersion") or "")
        kind = str(described_object.get("kind") or "")
        try:
            if kind == "Namespace" and "/" not in api_version:
                info = CustomMetricInfo("namespaces", False, metric_name)
                value = await provider.get_metric_by_name(None, namespace, info, metric_wanted)
            else:
                group_resource = custom_group_resource(api_version, kind)
                info = CustomMetricInfo(group_resource, True, metric_name)
                name = str(described_object.get("name") or "")
                value = await provider.get_metric_by_name(namespace, name, info, metric_wanted)
        except Exception as err:
            raise fetch_failed(CUSTOM_API, _failure_text(err)) from None
        return object_value([value])

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        provider = serving(self._state.external_metrics_provider)
        if provider is None:
            raise fetch_failed(EXTERNAL_API, _NOT_SERVED)
        wanted = _selector(metric_selector_text(metric_selector))
        try:
            items = await provider.get_external_metric(
                namespace, wanted, ExternalMetricInfo(metric_name)
            )
        except Exception as err:
            raise fetch_failed(EXTERNAL_API, _failure_text(err)) from None
        return external_values(list(items))

    async def resource_metrics(
        self, resources: Sequence[str], namespace: str, selector: str, container: str | None
    ) -> dict[str, tuple[dict[str, PodMetric], datetime] | MetricsUnavailable]:
        """``resource_metric`` of each of ``resources``, over ONE read of the pods' usage
        (the usage history sums the CPU and the memory of the same pods every minute):
        each resource's answer, or the ``MetricsUnavailable`` its call would raise. Nothing
        waits between the reads it replaces, so they saw the same usage; a provider that is
        not a ``PodUsageReader`` is asked once per resource, as ``resource_metric`` asks."""
        answers: dict[str, tuple[dict[str, PodMetric], datetime] | MetricsUnavailable] = {}
        try:
            records = self._records(namespace, selector)
        except MetricsUnavailable as err:
            return dict.fromkeys(resources, err)
        for resource in resources:
            try:
                if records is None:
                    answers[resource] = await self.resource_metric(
                        resource, namespace, selector, container
                    )
                else:
                    answers[resource] = self._usage_values(
                        records, namespace, selector, resource, container
                    )
            except MetricsUnavailable as err:
                answers[resource] = err
        return answers

    def _records(self, namespace: str, selector: str) -> list[PodUsage] | None:
        """One read of the selected pods' usage records (None: the provider is no
        ``PodUsageReader`` or declined), or the ``MetricsUnavailable`` it fails with."""
        provider = self._state.metrics_provider
        reader = None if provider is None else _usage_reader(provider)
        if reader is None:
            return None
        wanted = _selector(selector)
        try:
            return reader.pod_usage_selected(namespace, wanted)
        except Exception as err:
            raise fetch_failed(RESOURCE_API, _failure_text(err)) from None

    async def resource_totals(
        self, resources: Sequence[str], namespace: str, selector: str
    ) -> dict[str, int | MetricsUnavailable]:
        """Each of ``resources``' ``resource_metrics`` answer (no container) summed over
        its pods, or its error: the usage history's sums. Over usage records, a memory
        total comes from the records' own sums (``pod_usage_total``) without one sample
        per pod made to be dropped; CPU is summed over the values ``_usage_values`` keeps,
        which an HPA reading the same pods from the same scrape takes as they are."""
        try:
            records = self._records(namespace, selector)
        except MetricsUnavailable as err:
            return dict.fromkeys(resources, err)
        totals: dict[str, int | MetricsUnavailable] = {}
        for resource in resources:
            try:
                if records is not None and resource == "memory":
                    totals[resource] = pod_usage_total(records, resource)
                    continue
                if records is None:
                    answer = await self.resource_metric(resource, namespace, selector, None)
                else:
                    answer = self._usage_values(records, namespace, selector, resource, None)
                totals[resource] = sum(sample.value for sample in answer[0].values())
            except MetricsUnavailable as err:
                totals[resource] = err
        return totals
