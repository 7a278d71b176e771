"""One external.metrics.k8s.io provider out of several: routing reads by a selector label.

A cluster has one APIService for external.metrics.k8s.io; KEDA's metrics server claims it
and answers the reads of the HPAs it generates, which carry the label selector
``scaledobject.keda.sh/name=<so>``. podscale's plane also serves pushed (or Prometheus
adapter) external metrics there. ``ExternalMetricsRouter`` lets both live side by side:
``route(label_key, provider)`` sends every read whose label selector has a requirement on
``label_key`` to ``provider``; any other read goes to the ``fallback`` (a 404 as
``metricsapis.providers.external_metric_not_found`` words it when there is none).
Discovery lists the union of the providers' metrics. When the fallback accepts pushed
values (``ExternalMetricsWriter``), so does the router, by handing them on; otherwise it
is no writer, and a PUT is the 405 it was before.

``serving(provider)`` is what ``metricsapis.apis`` and the HPA's in-process metrics client
consult: a router with no route and no fallback serves nothing, as if absent. The plane
(``plane.embedded``) installs the router as ``state.external_metrics_provider`` and hands
it to the controllers (``ControllerContext.external_metrics_routes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from podscale.api import Selector
from podscale.apiserver.metricsapis.providers import (
    ExternalMetricInfo,
    ExternalMetricsProvider,
    ExternalMetricsWriter,
    external_metric_not_found,
)

__all__ = ["ExternalMetricsRouter", "serving"]

JSON = dict[str, Any]


class ExternalMetricsRouter:
    """Routes external metric reads by label key; see the module docstring."""

    def __init__(self, fallback: ExternalMetricsProvider | None) -> None:
        self._fallback = fallback
        self._routes: dict[str, ExternalMetricsProvider] = {}
        candidate: object = fallback
        if isinstance(candidate, ExternalMetricsWriter):
            # An instance attribute, not a method: ``ExternalMetricsWriter`` is checked
            # with isinstance, and the router must pass it exactly when its fallback does.
            self.__dict__["write_external_samples"] = candidate.write_external_samples

    def route(self, label_key: str, provider: ExternalMetricsProvider) -> None:
        """Send reads whose selector has a requirement on ``label_key`` to ``provider``
        (replacing an earlier route for that key)."""
        self._routes[label_key] = provider

    @property
    def fallback(self) -> ExternalMetricsProvider | None:
        """Where reads no route claims go."""
        return self._fallback

    @property
    def routes(self) -> dict[str, ExternalMetricsProvider]:
        """The routes, by label key (a copy)."""
        return dict(self._routes)

    def provider_for(self, metric_selector: Selector) -> ExternalMetricsProvider | None:
        """Where a read with ``metric_selector`` goes (None: nowhere)."""
        for requirement in metric_selector.requirements:
            routed = self._routes.get(requirement.key)
            if routed is not None:
                return routed
        return self.fallback

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        providers = [*self._routes.values()]
        if self.fallback is not None:
            providers.insert(0, self.fallback)
        seen: dict[str, ExternalMetricInfo] = {}
        for provider in providers:
            for info in provider.list_external_metrics():
                seen.setdefault(info.metric, info)
        return list(seen.values())

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        provider = self.provider_for(metric_selector)
        if provider is None:
            raise external_metric_not_found(info.metric)
        return await provider.get_external_metric(namespace, metric_selector, info)


def serving(provider: ExternalMetricsProvider | None) -> ExternalMetricsProvider | None:
    """``provider``, or None when it is a router with nothing to route to: the external
    metrics API is then not served, as without a provider."""
    if isinstance(provider, ExternalMetricsRouter) and (
        provider.fallback is None and not provider.routes
    ):
        return None
    return provider
