"""The embedded plane's metrics pipeline, installed on its API server's ``ServerState``.

With ``metrics=True`` (the default with the simulated cluster), ``plane.embedded``'s
``EmbeddedControlPlane`` builds a ``PushMetricsProvider`` the simulated usage pushes request
rates into, and ``install_metrics`` adds a ``MetricsServer`` scraping the kubelets' stats
(``SimulatedUsage``, driven by the loads ``plane.usage.set_load`` sets) every
``metric_resolution``; both are installed on the state (metrics.k8s.io,
custom.metrics.k8s.io and external.metrics.k8s.io), also when the plane runs over a server's
own API (``podscale up``), so ``kubectl top`` and the HPA controller (through an
``InProcessMetricsClient`` on that state) read them. Externally supplied custom or external
metrics providers (``podscale up --prometheus-url``: the Prometheus adapter) take the push
provider's place on the state for their group; the caller runs their loops.
external.metrics.k8s.io is served through ``external_routes``' router, which controllers
that serve external metrics themselves (KEDA's metrics server) route their reads through.
"""

from __future__ import annotations

from datetime import timedelta

from podscale.apiserver.metricsapis.providers import CustomMetricsProvider, ExternalMetricsProvider
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.apiserver.state import ServerState
from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.server import MetricsServer
from podscale.runtime.simulated.cluster import SimulatedCluster
from podscale.store.interface import Clock, Store

__all__ = ["external_routes", "install_metrics"]


def external_routes(
    supplied: ExternalMetricsProvider | None,
    push: PushMetricsProvider | None,
    state: ServerState,
) -> ExternalMetricsRouter:
    """The router external.metrics.k8s.io goes through: controllers that serve external
    metrics themselves (KEDA's metrics server) route their reads; every other read goes
    where it went without one (``supplied``, the push provider, or what ``state`` already
    had)."""
    fallback = supplied
    if fallback is None:
        fallback = push if push is not None else state.external_metrics_provider
    return ExternalMetricsRouter(fallback)


def install_metrics(
    state: ServerState,
    store: Store,
    clock: Clock,
    cluster: SimulatedCluster | None,
    push: PushMetricsProvider | None,
    *,
    resolution: timedelta,
    custom_provider: CustomMetricsProvider | None,
    routes: ExternalMetricsRouter,
) -> MetricsServer | None:
    """Install the metrics providers on ``state``: with a simulated ``cluster`` (None: no
    metrics pipeline) and ``push``, a new ``MetricsServer`` on its usage (returned) and the
    push provider; then ``custom_provider`` over the push provider, and ``routes`` for
    external.metrics.k8s.io (their fallback is the supplied provider or the push one)."""
    metrics_server = None
    if cluster is not None and push is not None:
        metrics_server = MetricsServer(
            cluster.usage,
            clock,
            resolution=resolution,
            objects=StoreObjectLabels(store),
        )
        state.metrics_provider = metrics_server
        state.custom_metrics_provider = push
        state.external_metrics_provider = push
    # After the pipeline: a supplied provider wins over the push provider for its group.
    if custom_provider is not None:
        state.custom_metrics_provider = custom_provider
    # The router's fallback is the supplied provider or the push provider (above).
    state.external_metrics_provider = routes
    return metrics_server
