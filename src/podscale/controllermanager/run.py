"""``podscale controller-manager``'s run: controllers over HTTP, elected, observable, stoppable.

kube-controller-manager's ``Run`` in asyncio. ``build_manager`` makes, over one ``HttpApi``
(``config.open_api``: the kubeconfig or the pod's service account, ``--kube-api-qps``/
``--kube-api-burst``), the ``ControllerContext`` the registry builds controllers from: the
HPA controllers read the cluster's metrics APIs through ``RestMetricsClient`` (the URLs
upstream's HPA requests) except the external reads KEDA's operator answers itself
(``metrics.ClusterMetricsClient``), KEDA's operator routes its reads into an
``ExternalMetricsRouter`` whose fallback is a push provider the EHPA controller writes its
predictions to (``adapter`` serves both) and reads its ``podscale-push`` triggers from the
cluster's external metrics API (``metrics.RestExternalMetrics``), and the chosen
controllers register on one ``ControllerManager`` whose work queues report client-go's metrics.

``run_controller_manager`` then serves ``health`` (``/healthz``, ``/readyz``, ``/metrics``)
and the adapter, and runs the manager:

- without leader election, at once;
- with it, only inside the elector's ``run`` (``election``): when leadership is lost the
  controllers are cancelled and the run ends with exit code 1 after logging klog's
  ``leaderelection lost``, as kube-controller-manager exits so a fresh process competes
  again;
- on ``stop`` (SIGTERM/SIGINT, set by the CLI): the controllers take no new work, their
  in-flight syncs get ``--shutdown-grace-period`` to finish, then the elector is
  cancelled, which releases the Lease, and the run ends with 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from prometheus_client import CollectorRegistry

from podscale.apiserver.http.health import HealthCheck
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.http import HttpApi
from podscale.client.supervisor import Supervisor
from podscale.client.workqueue_metrics import WorkQueueMetrics
from podscale.controllermanager.adapter import adapter_app
from podscale.controllermanager.election import Elector, default_identity, make_elector
from podscale.controllermanager.health import (
    HealthSources,
    LeaderElectionMetrics,
    health_app,
    leader_election_check,
    sync_check,
)
from podscale.controllermanager.metrics import ClusterMetricsClient, RestExternalMetrics
from podscale.controllermanager.options import ManagerOptions
from podscale.controllermanager.serving import Listener, ServedApp, serve_app
from podscale.controllers.hpa import HorizontalPodAutoscalerController
from podscale.controllers.hpa.metrics_rest import RestMetricsClient
from podscale.controllers.manager import ControllerManager
from podscale.controllers.registry import ControllerContext, build_controllers
from podscale.metrics.push import PushMetricsProvider
from podscale.store.clock import SystemClock
from podscale.store.interface import Clock

__all__ = ["EXIT_LEADERSHIP_LOST", "ManagerParts", "build_manager", "run_controller_manager"]

_LOG = logging.getLogger("podscale.controllermanager")
EXIT_LEADERSHIP_LOST: Final = 1
# How long a stopping leader waits for its elector to hand the Lease back (one write).
_RELEASE_TIMEOUT: Final = timedelta(seconds=5)
MakeElector = Callable[[HttpApi, Clock], Elector]


@dataclass(frozen=True, slots=True)
class ManagerParts:
    """What ``build_manager`` made: the manager, what observes it and the metrics routes."""

    manager: ControllerManager
    supervisor: Supervisor
    registry: CollectorRegistry
    routes: ExternalMetricsRouter
    push: PushMetricsProvider


def build_manager(api: HttpApi, clock: Clock, options: ManagerOptions) -> ManagerParts:
    """The controller manager with ``options.controllers`` registered on it."""
    supervisor = Supervisor(clock)
    queue_metrics = WorkQueueMetrics(clock)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(queue_metrics)
    registry.register(supervisor)
    push = PushMetricsProvider(clock)
    routes = ExternalMetricsRouter(push)
    context = ControllerContext(
        api,
        clock,
        metrics=ClusterMetricsClient(RestMetricsClient(api), routes),
        hpa_config=options.hpa_config,
        hpa_sync_period=options.hpa_sync_period,
        cronhpa_zone=options.cronhpa_zone,
        external_metrics_writer=push,
        external_metrics_routes=routes,
        external_metrics_source=RestExternalMetrics(api),
    )
    manager = ControllerManager(
        api,
        clock,
        workers=options.workers,
        supervisor=supervisor,
        queue_metrics=queue_metrics,
        shutdown_grace=options.shutdown_grace_period,
    )
    for controller in build_controllers(context, options.controllers):
        manager.register(controller)
        # Exactly the HPA's upstream-named metrics (the PHPA controller reuses its class).
        if type(controller) is HorizontalPodAutoscalerController:
            registry.register(controller.monitor)
    return ManagerParts(manager, supervisor, registry, routes, push)


def _default_elector(options: ManagerOptions, identity: str) -> MakeElector:
    def make(api: HttpApi, clock: Clock) -> Elector:
        return make_elector(api, clock, options.election, identity)

    return make


async def run_controller_manager(
    api: HttpApi,
    options: ManagerOptions,
    stop: asyncio.Event,
    *,
    clock: Clock | None = None,
    announce: Callable[[str], None] = _LOG.info,
    elector_factory: MakeElector | None = None,
    identity: str | None = None,
) -> int:
    """Run until ``stop`` is set (0) or leadership is lost (1); see the module docstring.
    ``identity`` is the Lease holder's name (None: a fresh ``default_identity``)."""
    clock = clock if clock is not None else SystemClock()
    parts = build_manager(api, clock, options)
    manager = parts.manager
    elector: Elector | None = None
    if options.leader_elect:
        identity = identity if identity is not None else default_identity()
        announce(f"leader election identity {identity}")
        elector = (elector_factory or _default_elector(options, identity))(api, clock)
    synced = asyncio.Event()
    liveness: list[HealthCheck] = []
    if elector is not None:
        elected = elector
        settings = options.election
        liveness.append(
            HealthCheck(
                "leaderElection",
                lambda: leader_election_check(
                    settings.lease_name, elected, clock.now(), settings.lease_duration
                ),
            )
        )
        parts.registry.register(LeaderElectionMetrics(settings.lease_name, elected))

    def leading() -> bool:
        return elector is None or elector.is_leader

    readiness = sync_check(synced.is_set, leading)
    sources = HealthSources(
        liveness=liveness,
        readiness=lambda: [readiness, *parts.supervisor.checks()],
        metrics=parts.registry,
    )
    servers: list[ServedApp] = []
    if options.secure_port:
        listener = Listener(
            options.bind_address,
            options.secure_port,
            insecure=options.insecure_serving,
            cert_file=options.tls_cert_file,
            key_file=options.tls_private_key_file,
        )
        servers.append(serve_app(health_app(sources), listener))
        announce(f"serving healthz and metrics on {_where(servers[-1], options.bind_address)}")
    if options.adapter_port:
        listener = Listener(options.bind_address, options.adapter_port)
        servers.append(serve_app(adapter_app(parts.routes, clock), listener))
        announce(f"serving external.metrics.k8s.io on {_where(servers[-1], options.bind_address)}")
    tasks = [asyncio.create_task(server.serve()) for server in servers]
    try:
        return await _run(manager, elector, stop, synced, options, announce)
    finally:
        for server in servers:
            server.stop()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, timeout=5)
        parts.push.close()


async def _run(
    manager: ControllerManager,
    elector: Elector | None,
    stop: asyncio.Event,
    synced: asyncio.Event,
    options: ManagerOptions,
    announce: Callable[[str], None],
) -> int:
    finished = asyncio.Event()

    async def lead() -> None:
        announce("started leading" if elector is not None else "starting controllers")
        watcher = asyncio.create_task(_set_when(manager.wait_started(), synced))
        try:
            await manager.run()
        finally:
            watcher.cancel()
            finished.set()

    main = asyncio.create_task(elector.run(lead) if elector is not None else lead())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({main, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not stopping.done():
            main.result()  # an error escaping the manager or the elector ends the run with it
            if elector is not None:
                _LOG.error("leaderelection lost")
                return EXIT_LEADERSHIP_LOST
            return 0
        # Stop taking work; in-flight syncs get the grace period (bounded by the manager).
        manager.stop()
        if elector is None or elector.is_leader:
            grace = options.shutdown_grace_period.total_seconds() + 5
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), timeout=grace)
        return 0
    finally:
        stopping.cancel()
        if not main.done() and elector is not None and elector.is_leader:
            # lead() has returned: the elector stops renewing, releases the Lease and
            # returns by itself. Cancelling it now would cut the release short.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait({main}, timeout=_RELEASE_TIMEOUT.total_seconds())
        main.cancel()  # a follower (or a stuck release): the elector releases as it can
        with contextlib.suppress(asyncio.CancelledError):
            await main


async def _set_when(awaitable: Awaitable[None], event: asyncio.Event) -> None:
    await awaitable
    event.set()


def _where(server: ServedApp, address: str) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"{server.scheme}://{host}:{server.port}"
