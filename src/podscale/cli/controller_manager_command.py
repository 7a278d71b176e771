"""``podscale controller-manager``: the flags, then ``podscale.controllermanager.run`` runs.

Flag names and defaults are kube-controller-manager's where it has the flag
(``--controllers``, ``--leader-elect*``, ``--kube-api-qps``/``--kube-api-burst``,
``--bind-address``/``--secure-port``, ``--tls-*``, the HPA flags); the HPA, feature gate
and CronHPA flags are ``podscale up``'s (``up_flags``). podscale's own: ``--context``,
``--insecure-serving``, ``--adapter-port`` and ``--shutdown-grace-period``. Loaded by
``podscale.cli.main`` only when the command runs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Final, TypeVar
from zoneinfo import ZoneInfo

import click

from podscale.api.durations import DurationError, parse_go_duration
from podscale.cli.up_flags import (
    cronhpa_flags,
    cronhpa_zone,
    feature_gates,
    feature_gates_flag,
    hpa_flags,
    hpa_settings,
)
from podscale.controllermanager.config import ConfigError, load_config, open_api
from podscale.controllermanager.election import ElectionSettings, default_identity, user_agent
from podscale.controllermanager.options import ManagerOptions, enabled_controllers
from podscale.controllermanager.run import run_controller_manager

__all__ = ["controller_manager", "election_settings"]

# client-go's JitterFactor: the renew deadline must exceed the jittered retry period.
_JITTER_FACTOR: Final = 1.2


def _duration(_ctx: click.Context, param: click.Parameter, value: str) -> timedelta:
    try:
        return parse_go_duration(value)
    except DurationError as err:
        raise click.BadParameter(str(err)) from None


def _controllers(_ctx: click.Context, _param: click.Parameter, value: str) -> frozenset[str]:
    try:
        return enabled_controllers(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


def election_settings(
    name: str, namespace: str, duration: timedelta, deadline: timedelta, retry: timedelta
) -> ElectionSettings:
    """The ``--leader-elect-*`` values, checked as client-go's ``NewLeaderElector`` does."""
    if duration <= deadline:
        raise click.UsageError("leaseDuration must be greater than renewDeadline")
    if deadline <= retry * _JITTER_FACTOR:
        raise click.UsageError("renewDeadline must be greater than retryPeriod*JitterFactor")
    if not name or not namespace:
        raise click.UsageError("--leader-elect-resource-name and -namespace must not be empty")
    return ElectionSettings(name, namespace, duration, deadline, retry)


F = TypeVar("F", bound=Callable[..., Any])


def _lease_option(flag: str, default: str, text: str) -> Callable[[F], F]:
    return click.option(flag, default=default, show_default=True, callback=_duration, help=text)


@click.command("controller-manager")
@click.option(
    "--kubeconfig",
    default=None,
    help="Path to a kubeconfig; without it, the in-cluster service account.",
)
@click.option("--context", default=None, help="The kubeconfig context to use.")
@click.option(
    "--controllers",
    default="*",
    show_default=True,
    callback=_controllers,
    help="Controllers to run, as kube-controller-manager's flag: '*' the on-by-default "
    "ones (cronhpa, ehpa, predictivehorizontalpodautoscaling, keda, usagehistory), 'foo' "
    "enables, '-foo' disables; horizontalpodautoscaling and the workload controllers run "
    "only when named.",
)
@click.option(
    "--leader-elect",
    type=click.BOOL,
    default=True,
    show_default=True,
    help="Run only while holding the leader election Lease.",
)
@_lease_option(
    "--leader-elect-lease-duration", "15s", "How long a non-leader waits before taking over."
)
@_lease_option(
    "--leader-elect-renew-deadline", "10s", "How long the leader tries to renew before stopping."
)
@_lease_option(
    "--leader-elect-retry-period", "2s", "Between attempts to acquire or renew leadership."
)
@click.option(
    "--leader-elect-resource-name",
    default="podscale-controller-manager",
    show_default=True,
    help="The Lease's name.",
)
@click.option(
    "--leader-elect-resource-namespace",
    default="kube-system",
    show_default=True,
    help="The Lease's namespace.",
)
@click.option(
    "--kube-api-qps",
    type=click.FloatRange(min=0, min_open=True),
    default=20.0,
    show_default=True,
    help="Queries per second to the API server.",
)
@click.option(
    "--kube-api-burst",
    type=click.IntRange(1),
    default=30,
    show_default=True,
    help="Burst of queries to the API server.",
)
@click.option("--bind-address", default="0.0.0.0", show_default=True, help="Serving address.")
@click.option(
    "--secure-port",
    type=click.IntRange(0, 65535),
    default=10257,
    show_default=True,
    help="Port of /healthz, /readyz and /metrics (https); 0 serves none.",
)
@click.option(
    "--insecure-serving",
    is_flag=True,
    help="Serve --secure-port over plain http (tests, or behind a TLS-terminating proxy).",
)
@click.option(
    "--tls-cert-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Serving certificate [default: a self-signed one made at start].",
)
@click.option(
    "--tls-private-key-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The serving certificate's key.",
)
@click.option(
    "--adapter-port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port serving podscale's external metrics as external.metrics.k8s.io/v1beta1 "
    "(https); 0 serves none.",
)
@_lease_option(
    "--shutdown-grace-period",
    "10s",
    "After SIGTERM, how long in-flight syncs may take before they are cancelled.",
)
@hpa_flags
@feature_gates_flag
@cronhpa_flags
def controller_manager(**values: Any) -> None:
    """Run podscale's controllers against a Kubernetes API server (kubeconfig or in-cluster)."""
    hpa_config, sync_period, _resolution = hpa_settings(values)
    gates = feature_gates(values)
    zone = cronhpa_zone(values)
    if bool(values["tls_cert_file"]) != bool(values["tls_private_key_file"]):
        raise click.UsageError("--tls-cert-file and --tls-private-key-file go together")
    election = election_settings(
        values["leader_elect_resource_name"],
        values["leader_elect_resource_namespace"],
        values["leader_elect_lease_duration"],
        values["leader_elect_renew_deadline"],
        values["leader_elect_retry_period"],
    )
    workers = values.get("concurrent_horizontal_pod_autoscaler_syncs")
    options = ManagerOptions(
        controllers=values["controllers"],
        kubeconfig=values["kubeconfig"],
        context=values["context"],
        leader_elect=values["leader_elect"],
        election=election,
        kube_api_qps=values["kube_api_qps"],
        kube_api_burst=values["kube_api_burst"],
        bind_address=values["bind_address"],
        secure_port=values["secure_port"],
        insecure_serving=values["insecure_serving"],
        tls_cert_file=values["tls_cert_file"],
        tls_private_key_file=values["tls_private_key_file"],
        adapter_port=values["adapter_port"],
        shutdown_grace_period=values["shutdown_grace_period"],
        workers={"concurrent_horizontal_pod_autoscaler_syncs": workers} if workers else {},
        hpa_config=dataclasses.replace(hpa_config, feature_gates=gates),
        hpa_sync_period=sync_period,
        cronhpa_zone=ZoneInfo(zone) if zone else None,
    )
    logging.basicConfig(level=logging.INFO, format="%(levelname).1s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    try:
        code = asyncio.run(_main(options))
    except ConfigError as err:
        raise click.ClickException(str(err)) from None
    except OSError as err:
        raise click.ClickException(f"cannot serve: {err.strerror or err}") from None
    raise SystemExit(code)


async def _main(options: ManagerOptions) -> int:
    config = load_config(options.kubeconfig, options.context)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    identity = default_identity()
    async with open_api(
        config,
        qps=options.kube_api_qps,
        burst=options.kube_api_burst,
        user_agent=user_agent(identity),
    ) as api:
        return await run_controller_manager(
            api, options, stop, announce=lambda line: click.echo(line), identity=identity
        )
