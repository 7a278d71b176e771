"""``podscale up`` with the Prometheus adapter: its flags, its provider, its relist loop.

``prometheus_flags`` adds prometheus-adapter's ``--prometheus-url``, ``--config`` (here
``--prometheus-adapter-config``) and ``--metrics-relist-interval`` to a click command;
``prometheus_settings`` checks them and loads the rule file (``podscale.metrics.prometheus``),
so a bad file fails before anything starts, with an error naming the file and the field.
``workloads.build_workloads`` installs ``prometheus_provider`` as the custom and/or external
metrics provider of the embedded plane (for each group the file has rules for, as
prometheus-adapter installs only those; the push provider keeps the other), and
``run_workloads`` runs the plane together with the adapter's relist loop and closes its
client afterwards. Neighbours: ``workloads`` (the plane next to the server), ``serve``
(``UpOptions.prometheus``), ``main`` (the ``up`` command).
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import click

from podscale.apiserver.state import ServerState
from podscale.client.inprocess import InProcessApi
from podscale.metrics.prometheus import (
    DEFAULT_RELIST_INTERVAL,
    AdapterConfig,
    ApiObjectLister,
    ConfigError,
    PrometheusAdapter,
    PrometheusClient,
    PrometheusMetricsProvider,
    load_config_file,
)
from podscale.runtime.embedded import EmbeddedControlPlane
from podscale.sim import DurationError, parse_go_duration
from podscale.store.interface import Clock

__all__ = [
    "PrometheusOptions",
    "prometheus_flags",
    "prometheus_provider",
    "prometheus_settings",
    "run_workloads",
]

F = TypeVar("F", bound=Callable[..., Any])


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
    installed = (state.custom_metrics_provider, state.external_metrics_provider)
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


def _parse_interval(_ctx: click.Context, _param: click.Parameter, value: str) -> timedelta:
    try:
        parsed = parse_go_duration(value)
    except DurationError as err:
        raise click.BadParameter(str(err)) from None
    if parsed <= timedelta(0):
        raise click.BadParameter(f"must be positive, got {value}")
    return parsed


def _check_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.BadParameter(f"invalid Prometheus URL {value!r}: want http(s)://HOST[:PORT]")
    return value


def prometheus_flags(command: F) -> F:
    """prometheus-adapter's flags (its ``--config`` named ``--prometheus-adapter-config``)."""
    options = [
        click.option(
            "--prometheus-url",
            default=None,
            callback=_check_url,
            help="URL for connecting to Prometheus; serves custom and external metrics "
            "through the Prometheus adapter instead of the push provider.",
        ),
        click.option(
            "--prometheus-adapter-config",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="The Prometheus adapter's rule file (prometheus-adapter's --config): how to "
            "transform between Prometheus metrics and custom metrics API resources.",
        ),
        click.option(
            "--metrics-relist-interval",
            default="10m0s",
            show_default=True,
            callback=_parse_interval,
            help="Interval at which to re-list the set of all available metrics from "
            "Prometheus (a Go duration).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def prometheus_settings(values: dict[str, Any]) -> PrometheusOptions | None:
    """Pop the ``prometheus_flags`` values and load the rule file; None without a URL.
    Raises ``click.UsageError``/``click.ClickException`` naming the flag, file and field."""
    url: str | None = values.pop("prometheus_url", None)
    path: Path | None = values.pop("prometheus_adapter_config", None)
    interval: timedelta = values.pop("metrics_relist_interval", DEFAULT_RELIST_INTERVAL)
    if url is None:
        if path is not None:
            raise click.UsageError("--prometheus-adapter-config needs --prometheus-url")
        return None
    if path is None:
        raise click.UsageError(
            "no metrics discovery configuration file specified "
            "(make sure to use --prometheus-adapter-config)"
        )
    try:
        config = load_config_file(path)
    except OSError as err:
        raise click.ClickException(
            f"unable to load metrics discovery configuration: cannot read {path}: "
            f"{err.strerror or err}"
        ) from None
    except ConfigError as err:
        raise click.ClickException(
            f"unable to load metrics discovery configuration: {err}"
        ) from None
    return PrometheusOptions(url, config, interval)
