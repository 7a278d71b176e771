"""``podscale controller-manager``'s run: controllers over HTTP, elected, observable, stoppable.

kube-controller-manager's ``Run`` in asyncio. ``build.build_manager`` makes the controller
manager over one ``HttpApi`` (and, with KEDA's operator, the second manager that runs KEDA's
metrics server in every replica); ``run_controller_manager`` then serves ``health``
(``/healthz``, ``/readyz``, ``/metrics``) and the adapter, starts KEDA's metrics server
(``/readyz`` waits for its informers in every replica), and runs the manager:

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
from datetime import timedelta
from typing import Final

from podscale.apiserver.http.health import HealthCheck
from podscale.client.http import HttpApi
from podscale.client.supervisor import Supervisor
from podscale.controllermanager.adapter import adapter_app
from podscale.controllermanager.build import build_manager
from podscale.controllermanager.election import Elector, default_identity, make_elector
from podscale.controllermanager.health import (
    HealthSources,
    LeaderElectionMetrics,
    health_app,
    leader_election_check,
    sync_check,
)
from podscale.controllermanager.options import ManagerOptions
from podscale.controllermanager.serving import Listener, ServedApp, serve_app
from podscale.controllers.manager import ControllerManager
from podscale.store.clock import SystemClock
from podscale.store.interface import Clock

__all__ = ["EXIT_LEADERSHIP_LOST", "run_controller_manager"]

_LOG = logging.getLogger("podscale.controllermanager")
EXIT_LEADERSHIP_LOST: Final = 1
# How long a stopping leader waits for its elector to hand the Lease back (one write).
_RELEASE_TIMEOUT: Final = timedelta(seconds=5)
MakeElector = Callable[[HttpApi, Clock], Elector]


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
