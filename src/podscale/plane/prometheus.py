"""``podscale up`` with the Prometheus adapter: its options, its provider, its relist loop.

``podscale.cli.prometheus_flags`` parses prometheus-adapter's flags into ``PrometheusOptions``.
``workloads.build_workloads`` installs ``prometheus_provider`` as the custom and/or external
metrics provider of the embedded plane (for each group the file has rules for, as
prometheus-adapter installs only those; the push provider keeps the other), and
``run_workloads`` runs the plane together with the adapter's relist loop and closes its
client afterwards. Neighbours: ``workloads`` (the plane next to the server), ``serve``
(``UpOptions.prometheus``), ``main`` (the ``up`` command).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.apiserver.state import ServerState
from podscale.client.inprocess import InProcessApi
from podscale.metrics.prometheus import (
    DEFAULT_RELIST_INTERVAL,
    AdapterConfig,
    ApiObjectLister,
    PrometheusAdapter,
    PrometheusClient,
    PrometheusMetricsProvider,
)
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.store.interface import Clock

__all__ = [
    "PrometheusOptions",
    "prometheus_provider",
    "run_workloads",
]


@dataclass(frozen=True)
class PrometheusOptions:
    """prometheus-adapter's settings: ``url`` of Prometheus, the loaded rule file, and how
    often discovery re-lists (also how far back it looks, as ``--metrics-max-age``'s
    default)."""

    url: str
    config: AdapterConfig
    relist_interval: timedelta = DEFAULT_RELIST_INTERVAL


def prometheus_provider(
    options: PrometheusOptions, api: InProcessApi, clock: Clock
) -> PrometheusMetricsProvider:
    """The adapter over a new client, listing objects through ``api``. Its client must be
    closed (``run_workloads`` does) on the event loop that used it."""
    client = PrometheusClient(options.url)
    adapter = PrometheusAdapter(options.config, client, relist_interval=options.relist_interval)
    return PrometheusMetricsProvider(adapter, clock, ApiObjectLister(api))


def _installed_adapters(state: ServerState) -> list[PrometheusMetricsProvider]:
    external = state.external_metrics_provider
    if isinstance(external, ExternalMetricsRouter):
        external = external.fallback  # the plane's router wraps the adapter
    installed = (state.custom_metrics_provider, external)
    found = [p for p in installed if isinstance(p, PrometheusMetricsProvider)]
    return list({id(p): p for p in found}.values())


async def run_workloads(workloads: EmbeddedControlPlane) -> None:
    """``workloads.run()`` plus the relist loop of every Prometheus adapter installed on its
    API's state, until the plane stops; a relist loop that dies of an unexpected error is
    restarted by the plane's supervisor (a Prometheus outage does not even do that: the
    loop keeps the last listing and retries).
    The adapters' clients are closed on the way out."""
    adapters = _installed_adapters(workloads.api.state)
    stop = asyncio.Event()

    async def run_plane() -> None:
        try:
            await workloads.run()
        finally:
            stop.set()

    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(run_plane(), name="embedded-plane")
            for adapter in adapters:
                relist = partial(adapter.relist_until, stop)
                supervised = workloads.supervisor.run("prometheus-adapter/relist", relist)
                group.create_task(supervised, name="prometheus-relist")
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
    finally:
        for adapter in adapters:
            await adapter.adapter.client.aclose()
