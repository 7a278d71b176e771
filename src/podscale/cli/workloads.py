"""The controllers and simulated nodes ``podscale up`` runs next to its API server.

``build_workloads`` makes an ``EmbeddedControlPlane`` (``podscale.runtime.embedded``) over
the server's own in-process API and clock: the controllers ``--controllers`` enables
(ReplicaSet, Deployment, StatefulSet, garbage collector, HPA) and, unless ``--no-simulate``,
the simulated nodes, scheduler and kubelets that give pods a life, with the metrics pipeline
(simulated usage scraped by a metrics server, so ``kubectl top`` works and the HPA controller
has metrics; with no load set, pods idle at their baseline). ``serve_with_workloads`` runs
it and uvicorn on one event loop (``serve.run_control_plane`` calls it): the plane's parts
run supervised (a part that fails is restarted with backoff and shown failed on
``/readyz``), so only an error that escapes supervision stops the server with the error;
the server stopping stops the controllers.

``hpa_flags`` adds kube-controller-manager's ``--horizontal-pod-autoscaler-*`` flags (and
metrics-server's ``--metric-resolution``) to a click command, durations in Go's syntax;
``hpa_settings`` turns their values into the HPA ``Config`` and periods.

With ``--prometheus-url`` (``prometheus_up``), the plane serves custom.metrics.k8s.io and
external.metrics.k8s.io from a real Prometheus through the adapter, whose relist loop
``prometheus_up.run_workloads`` runs next to the controllers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click
import uvicorn

from podscale.cli.prometheus_up import prometheus_provider, run_workloads
from podscale.controllers.hpa import DEFAULT_SYNC_PERIOD
from podscale.controllers.registry import select_controllers
from podscale.hpa import Config
from podscale.metrics.prometheus import AdapterConfig
from podscale.metrics.push_journal import SqlitePushJournal
from podscale.metrics.server import DEFAULT_RESOLUTION
from podscale.runtime.embedded import EmbeddedControlPlane, controllers_from_flag
from podscale.runtime.simulated import default_node_specs
from podscale.sim import DurationError, parse_go_duration

if TYPE_CHECKING:
    from podscale.cli.serve import ControlPlane

__all__ = [
    "BuildWorkloads",
    "DriveWorkloads",
    "build_workloads",
    "hpa_flags",
    "hpa_settings",
    "node_status_flag",
    "serve_with_workloads",
]

F = TypeVar("F", bound=Callable[..., Any])
PUSH_JOURNAL_FILE: Final = "pushed-metrics.db"
_DEFAULTS: Final = Config()
_HEARTBEAT_FLAG: Final = "node_status_report_frequency"


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
    )


def _parse_duration(_ctx: click.Context, param: click.Parameter, value: str) -> timedelta:
    try:
        parsed = parse_go_duration(value)
    except DurationError as err:
        raise click.BadParameter(str(err)) from None
    if parsed < timedelta(0):
        raise click.BadParameter(f"must not be negative, got {value}")
    positive = ("horizontal_pod_autoscaler_sync_period", "metric_resolution", _HEARTBEAT_FLAG)
    if param.name in positive and (parsed == timedelta(0)):
        raise click.BadParameter(f"must be positive, got {value}")
    return parsed


def _duration_option(flag: str, default: str, help_text: str) -> Callable[[F], F]:
    return click.option(
        flag,
        default=default,
        show_default=True,
        callback=_parse_duration,
        help=f"{help_text} (a Go duration).",
    )


def hpa_flags(command: F) -> F:
    """The HPA controller's and the metrics server's flags, with upstream's defaults."""
    options = [
        _duration_option(
            "--horizontal-pod-autoscaler-sync-period",
            "15s",
            "The period for syncing the number of pods in horizontal pod autoscaler",
        ),
        click.option(
            "--horizontal-pod-autoscaler-tolerance",
            type=click.FloatRange(0.0),
            default=_DEFAULTS.tolerance,
            show_default=True,
            help="The minimum change (from 1.0) in the desired-to-actual metrics ratio for "
            "the horizontal pod autoscaler to consider scaling.",
        ),
        _duration_option(
            "--horizontal-pod-autoscaler-downscale-stabilization",
            "5m0s",
            "The period for which autoscaler will look backwards and not scale down below "
            "any recommendation it made during that period",
        ),
        _duration_option(
            "--horizontal-pod-autoscaler-cpu-initialization-period",
            "5m0s",
            "The period after pod start when CPU samples might be skipped",
        ),
        _duration_option(
            "--horizontal-pod-autoscaler-initial-readiness-delay",
            "30s",
            "The period after pod start during which readiness changes will be treated as "
            "initial readiness",
        ),
        click.option(
            "--concurrent-horizontal-pod-autoscaler-syncs",
            type=click.IntRange(1),
            default=None,
            help="Horizontal pod autoscalers synced concurrently [default: 5].",
        ),
        _duration_option(
            "--metric-resolution",
            "15s",
            "The interval at which the metrics server scrapes the simulated kubelets",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def node_status_flag(command: F) -> F:
    """The simulated kubelets' status report period (the kubelet's
    ``nodeStatusReportFrequency``, 5m0s); hidden: tests shorten it to see heartbeats."""
    option = click.option(
        "--node-status-report-frequency",
        _HEARTBEAT_FLAG,
        default="5m0s",
        callback=_parse_duration,
        hidden=True,
    )
    return option(command)


def hpa_settings(values: dict[str, Any]) -> tuple[Config, timedelta, timedelta]:
    """Pop the ``hpa_flags`` values (not the worker count) from a command's keyword
    arguments: the HPA ``Config``, its sync period and the metric resolution."""
    config = Config(
        tolerance=float(values.pop("horizontal_pod_autoscaler_tolerance", _DEFAULTS.tolerance)),
        downscale_stabilization=values.pop(
            "horizontal_pod_autoscaler_downscale_stabilization",
            _DEFAULTS.downscale_stabilization,
        ),
        cpu_initialization_period=values.pop(
            "horizontal_pod_autoscaler_cpu_initialization_period",
            _DEFAULTS.cpu_initialization_period,
        ),
        initial_readiness_delay=values.pop(
            "horizontal_pod_autoscaler_initial_readiness_delay",
            _DEFAULTS.initial_readiness_delay,
        ),
    )
    sync_period = values.pop("horizontal_pod_autoscaler_sync_period", DEFAULT_SYNC_PERIOD)
    resolution = values.pop("metric_resolution", DEFAULT_RESOLUTION)
    return config, sync_period, resolution


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
    workloads = build(plane)
    tasks: list[asyncio.Task[None]] = []

    def on_done(done: asyncio.Task[None]) -> None:
        if not done.cancelled() and done.exception() is not None:
            failures.append(f"the controllers stopped: {done.exception()}")
        if done.get_name() == "podscale-drive" or failures:
            server.should_exit = True

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


async def _drive(drive: DriveWorkloads, workloads: EmbeddedControlPlane) -> None:
    await drive(workloads)
