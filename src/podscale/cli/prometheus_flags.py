"""``podscale up``'s Prometheus adapter flags: parsed and checked before anything starts.

``prometheus_flags`` adds prometheus-adapter's ``--prometheus-url``, ``--config`` (here
``--prometheus-adapter-config``) and ``--metrics-relist-interval`` to a click command;
``prometheus_settings`` checks them and loads the rule file (``podscale.metrics.prometheus``)
into ``podscale.plane.prometheus.PrometheusOptions``, so a bad file fails before anything
starts, with an error naming the file and the field.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import click

from podscale.api.durations import DurationError, parse_go_duration
from podscale.metrics.prometheus import DEFAULT_RELIST_INTERVAL, ConfigError, load_config_file
from podscale.plane.prometheus import PrometheusOptions

__all__ = ["prometheus_flags", "prometheus_settings"]

F = TypeVar("F", bound=Callable[..., Any])


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
