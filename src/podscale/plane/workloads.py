"""The controllers and simulated nodes ``podscale up`` runs next to its API server.

``build_workloads`` makes an ``EmbeddedControlPlane`` (``podscale.plane.embedded``) over
the server's own in-process API and clock: the controllers ``--controllers`` enables
(ReplicaSet, Deployment, StatefulSet, garbage collector, HPA) and, unless ``--no-simulate``,
the simulated nodes, scheduler and kubelets that give pods a life, with the metrics pipeline
(simulated usage scraped by a metrics server, so ``kubectl top`` works and the HPA controller
has metrics; a workload's load comes from its ``load.podscale.dev/v1alpha1`` annotation,
read by ``podscale.runtime.simulated.load_annotations``, and without one its pods idle at
their baseline). ``serve_with_workloads`` runs
it and uvicorn on one event loop (``serve.run_control_plane`` calls it): the plane's parts
run supervised (a part that fails is restarted with backoff and shown failed on
``/readyz``), so only an error that escapes supervision stops the server with the error;
the server stopping stops the controllers.

``--install-crd NAME`` creates a CustomResourceDefinition podscale ships (the WebApp example
operator's ``webapps.examples.podscale.dev``) before the controllers start; its controller
runs in any case and picks the kind up whenever the CRD is installed, also by kubectl. A
product kind's CRD (the CronHPA's) is created by default when its controller runs, unless
``--no-install-crd NAME`` (``controllers.shipped_crds.crds_to_install``).

The controllers' history store is ``plane.history.open_history``'s (``history.db`` in the
data directory). Its flags (``--controllers``, ``--horizontal-pod-autoscaler-*``, ...) are
parsed by
``podscale.cli.up_flags``.

With ``--prometheus-url`` (``plane.prometheus``), the plane serves custom.metrics.k8s.io and
external.metrics.k8s.io from a real Prometheus through the adapter, whose relist loop
``plane.prometheus.run_workloads`` runs next to the controllers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import uvicorn

from podscale.api.kinds import kind_for
from podscale.apiserver.registry.event_ttl import expire_events
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.client.supervisor import Supervisor
from podscale.controllers.registry import select_controllers
from podscale.controllers.shipped_crds import crds_to_install, shipped_definition
from podscale.metrics.prometheus import AdapterConfig
from podscale.metrics.push_journal import SqlitePushJournal
from podscale.plane.controller_sets import controllers_from_flag
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.plane.history import close_history, open_history
from podscale.plane.options import ControlPlane
from podscale.plane.prometheus import prometheus_provider, run_workloads
from podscale.runtime.simulated import default_node_specs

__all__ = [
    "BuildWorkloads",
    "DriveWorkloads",
    "build_workloads",
    "install_shipped_crds",
    "serve_with_workloads",
]

PUSH_JOURNAL_FILE: Final = "pushed-metrics.db"
_CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
_LOCALTIME: Final = "/etc/localtime"


def build_workloads(plane: ControlPlane) -> EmbeddedControlPlane | None:
    """The controllers (and simulated nodes) ``podscale up`` runs next to its API server,
    over the server's own in-process API and clock, with the Prometheus adapter when asked
    for; None when nothing is asked for."""
    options = plane.options
    factory = controllers_from_flag(options.controllers)
    prometheus = options.prometheus
    idle = not options.simulate and not select_controllers(options.controllers)
    if plane.api is None or (idle and prometheus is None):
        return None
    clock = plane.api.state.clock
    rules = prometheus.config if prometheus else AdapterConfig()
    provider = (
        prometheus_provider(prometheus, plane.api, clock)
        if prometheus and (rules.rules or rules.external_rules)
        else None
    )
    return EmbeddedControlPlane(
        clock,
        api=plane.api,
        nodes=default_node_specs(options.nodes) if options.simulate else (),
        seed=options.seed,
        workers=options.workers,
        simulate=options.simulate,
        controllers=factory,
        hpa_config=dataclasses.replace(
            options.hpa_config, feature_gates=plane.api.state.feature_gates
        ),
        hpa_sync_period=options.hpa_sync_period,
        metric_resolution=options.metric_resolution,
        heartbeat=options.node_status_report_frequency,
        custom_metrics_provider=provider if rules.rules else None,
        external_metrics_provider=provider if rules.external_rules else None,
        # Pushed metric values outlive a restart, until their ttl (``push_journal``).
        push_journal=(
            SqlitePushJournal(options.data_dir / PUSH_JOURNAL_FILE) if options.simulate else None
        ),
        cronhpa_zone=(
            ZoneInfo(options.cronhpa_timezone) if options.cronhpa_timezone else local_zone()
        ),
        # Series and autoscaler state outlive a restart (``history.db``, ``plane.history``).
        history=open_history(options, clock),
    )


# What runs next to the server: build the embedded plane, then (optionally) drive it.
BuildWorkloads = Callable[["ControlPlane"], EmbeddedControlPlane | None]
DriveWorkloads = Callable[[EmbeddedControlPlane], Awaitable[None]]


async def serve_with_workloads(
    server: uvicorn.Server,
    sock: socket.socket,
    plane: ControlPlane,
    failures: list[str],
    *,
    build: BuildWorkloads = build_workloads,
    drive: DriveWorkloads | None = None,
) -> None:
    """uvicorn and the embedded controllers on one event loop; a controller failure stops
    the server (with the error), the server stopping stops the controllers. ``drive``,
    when given, runs against the started plane (``podscale demo --real-time`` plays its
    scenario there); the server stops when it returns."""
    if plane.api is not None:
        options = plane.options
        crds = crds_to_install(
            options.install_crds, options.skip_crds, select_controllers(options.controllers)
        )
        await install_shipped_crds(plane.api, crds)
    workloads = build(plane)
    tasks: list[asyncio.Task[None]] = []

    def on_done(done: asyncio.Task[None]) -> None:
        if not done.cancelled() and done.exception() is not None:
            failures.append(f"the controllers stopped: {done.exception()}")
        if done.get_name() == "podscale-drive" or failures:
            server.should_exit = True

    if plane.api is not None:
        # kube-apiserver's --event-ttl: the server's own job, with or without controllers.
        state = plane.api.state
        supervisor = Supervisor(state.clock)
        state.readiness_sources.append(supervisor.checks)
        expiry = supervisor.run(
            "apiserver/event-ttl", lambda: expire_events(state.store, state.clock)
        )
        tasks.append(asyncio.create_task(expiry, name="event-ttl"))
    if workloads is not None:
        tasks.append(asyncio.create_task(run_workloads(workloads), name="podscale-controllers"))
        if drive is not None:
            tasks.append(asyncio.create_task(_drive(drive, workloads), name="podscale-drive"))
        for task in tasks:
            task.add_done_callback(on_done)
    try:
        await server.serve(sockets=[sock])
    finally:
        if workloads is not None:
            workloads.stop()
        for task in reversed(tasks):
            task.remove_done_callback(on_done)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if workloads is not None and workloads.push is not None:
            workloads.push.close()  # after every task that could still push has ended
        if workloads is not None:
            close_history(workloads.history)  # likewise after every writer has ended


def local_zone() -> ZoneInfo:
    """This machine's zone, as Go's ``time.Local`` finds it: ``$TZ``, else the zone
    ``/etc/localtime`` links to (or holds), else UTC."""
    named = os.environ.get("TZ", "").lstrip(":")
    if named:
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
            return ZoneInfo(named)
    target = os.path.realpath(_LOCALTIME)
    _, marker, key = target.partition("/zoneinfo/")
    if marker:
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
            return ZoneInfo(key)
    with contextlib.suppress(OSError, ValueError), open(_LOCALTIME, "rb") as data:
        return ZoneInfo.from_file(data, key="localtime")
    return ZoneInfo("UTC")


async def install_shipped_crds(api: InProcessApi, names: Sequence[str]) -> None:
    """Create the shipped CRDs ``names`` (``podscale up``'s default ones and
    ``--install-crd``); one already there is left as it is (a restart finds the CRDs of the
    previous run in the store, maybe edited), so a restart is idempotent."""
    for name in names:
        try:
            await api.create(_CRD, None, shipped_definition(name))
        except ApiError as err:
            if err.status != 409:
                raise


async def _drive(drive: DriveWorkloads, workloads: EmbeddedControlPlane) -> None:
    await drive(workloads)
