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
controllers register on one ``ControllerManager`` whose work queues report client-go's
metrics. With KEDA's operator among them, a second manager runs KEDA's metrics server
(``controllers.keda.metrics_server``) whatever the election says, so every replica's
adapter answers the generated HPAs' reads; the push provider answers only while leading
(``adapter.LeaderOnlyProvider``), as only the leader's EHPA controller fills it.

``run_controller_manager`` then serves ``health`` (``/healthz``, ``/readyz``, ``/metrics``)
and the adapter, starts KEDA's metrics server (``/readyz`` waits for its informers in
every replica), and runs the manager:

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
from podscale.controllermanager.adapter import LeaderOnlyProvider, adapter_app
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
from podscale.controllers.keda.adapter import KedaMetricsAdapter
from podscale.controllers.keda.controller import SCALED_OBJECT_LABEL, ScaledObjectController
from podscale.controllers.keda.metrics_server import FirstSource, KedaMetricsServer
from podscale.controllers.keda.scalers.base import PodMetricsReader
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
    # KEDA's metrics server and the manager that runs it outside the election (with the
    # keda-operator only).
    keda_metrics: KedaMetricsServer | None = None
    keda_metrics_manager: ControllerManager | None = None


def build_manager(
    api: HttpApi,
    clock: Clock,
    options: ManagerOptions,
    *,
    leading: Callable[[], bool] = lambda: True,
) -> ManagerParts:
    """The controller manager with ``options.controllers`` registered on it; ``leading``
    says whether this replica leads (for the push provider's guard)."""
    supervisor = Supervisor(clock)
    queue_metrics = WorkQueueMetrics(clock)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(queue_metrics)
    registry.register(supervisor)
    push = PushMetricsProvider(clock)
    routes = ExternalMetricsRouter(LeaderOnlyProvider(push, leading))
    metrics = RestMetricsClient(api)
    context = ControllerContext(
        api,
        clock,
        metrics=ClusterMetricsClient(metrics, routes),
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
    operator: ScaledObjectController | None = None
    for controller in build_controllers(context, options.controllers):
        manager.register(controller)
        # Exactly the HPA's upstream-named metrics (the PHPA controller reuses its class).
        if type(controller) is HorizontalPodAutoscalerController:
            registry.register(controller.monitor)
        if isinstance(controller, ScaledObjectController):
            operator = controller
    if operator is None:
        return ManagerParts(manager, supervisor, registry, routes, push)
    server = KedaMetricsServer(
        api,
        clock,
        external=context.external_metrics_source,
        pod_metrics=metrics if isinstance(metrics, PodMetricsReader) else None,
    )
    # Its own supervisor: its informers share names with the operator's.
    serving_manager = ControllerManager(
        api,
        clock,
        workers=options.workers,
        supervisor=Supervisor(clock),
        queue_metrics=queue_metrics,
    )
    serving_manager.register(server)
    # The leader's scale loops first (their cached readings serve useCachedMetrics).
    source = FirstSource([operator.handler, server.handler])
    routes.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(source, clock))
    return ManagerParts(manager, supervisor, registry, routes, push, server, serving_manager)


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
    elector: Elector | None = None
    if options.leader_elect:
        identity = identity if identity is not None else default_identity()
        announce(f"leader election identity {identity}")
        elector = (elector_factory or _default_elector(options, identity))(api, clock)

    def leading() -> bool:
        return elector is None or elector.is_leader

    parts = build_manager(api, clock, options, leading=leading)
    manager = parts.manager
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

    readiness = [sync_check(synced.is_set, leading)]
    background: list[asyncio.Task[None]] = []
    serving_manager = parts.keda_metrics_manager
    if serving_manager is not None:
        served = asyncio.Event()
        readiness.append(_keda_metrics_check(served))
        background.append(asyncio.create_task(serving_manager.run()))
        background.append(asyncio.create_task(_set_when(serving_manager.wait_started(), served)))
    checks = parts.supervisor.checks
    extra = serving_manager.supervisor if serving_manager is not None else None
    sources = HealthSources(
        liveness=liveness,
        readiness=lambda: [*readiness, *checks(), *_renamed(extra)],
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
        if serving_manager is not None:
            serving_manager.stop()
        for server in servers:
            server.stop()
        for task in [*tasks, *background]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, timeout=5)
        if parts.keda_metrics is not None:
            await parts.keda_metrics.close()
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


def _renamed(supervisor: Supervisor | None) -> list[HealthCheck]:
    """The metrics server's supervised checks, its informers' renamed apart from the
    operator's (both watch the same kinds)."""
    if supervisor is None:
        return []
    return [
        HealthCheck(f"keda-metrics-apiserver-{c.name}", c.check)
        if c.name.startswith("informer/")
        else c
        for c in supervisor.checks()
    ]


def _keda_metrics_check(served: asyncio.Event) -> HealthCheck:
    """``/readyz``'s ``keda-metrics-apiserver-sync``: every replica answers KEDA's metrics,
    so none is ready before its ScaledObjects are listed."""

    def check() -> str | None:
        return None if served.is_set() else "keda metrics server caches not synced yet"

    return HealthCheck("keda-metrics-apiserver-sync", check)


async def _set_when(awaitable: Awaitable[None], event: asyncio.Event) -> None:
    await awaitable
    event.set()


def _where(server: ServedApp, address: str) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"{server.scheme}://{host}:{server.port}"
