"""``podscale up``'s controller and simulation flags, named and defaulted as upstream's.

``hpa_flags`` adds kube-controller-manager's ``--horizontal-pod-autoscaler-*`` flags (and
metrics-server's ``--metric-resolution``) to a click command, durations in Go's syntax;
``hpa_settings`` turns their values into the HPA ``Config`` and periods that
``podscale.plane.serve.UpOptions`` carries. ``node_status_flag`` is the simulated kubelets'
hidden heartbeat period. ``cronhpa_flags`` adds ``--cronhpa-timezone``, the zone the
CronHPA controller runs schedules in (upstream runs them in its process's zone).
``history_flags`` adds ``--history-retention``, how long ``history.db`` keeps one-minute
points (a Go duration, or days and weeks as Prometheus's ``--storage.tsdb.retention.time``
writes them: ``15d``, ``2w``, ``1w3d12h``). ``feature_gates_flag`` adds ``--feature-gates``
(``A=true,B=false`` as kube-apiserver's and kube-controller-manager's), which the API server's
validation and the HPA controller then share.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Final, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import click

from podscale.api.durations import DurationError, parse_go_duration
from podscale.api.feature_gates import (
    DEFAULT_FEATURE_GATES,
    KNOWN_FEATURE_GATES,
    parse_feature_gates,
)
from podscale.controllers.hpa import DEFAULT_SYNC_PERIOD
from podscale.hpa import Config
from podscale.metrics.server import DEFAULT_RESOLUTION

__all__ = [
    "cronhpa_flags",
    "cronhpa_zone",
    "feature_gates",
    "feature_gates_flag",
    "history_flags",
    "history_retention",
    "hpa_flags",
    "hpa_settings",
    "node_status_flag",
    "parse_retention",
]

F = TypeVar("F", bound=Callable[..., Any])
_DEFAULTS: Final = Config()
_HEARTBEAT_FLAG: Final = "node_status_report_frequency"
_DAYS: Final = re.compile(r"(?:(\d+)w)?(?:(\d+)d)?(.*)")
DEFAULT_HISTORY_RETENTION: Final = timedelta(days=15)


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


def _check_zone(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise click.BadParameter(f'unknown time zone "{value}"') from None
    return value or None


def cronhpa_flags(command: F) -> F:
    """The CronHPA controller's ``--cronhpa-timezone`` (an IANA name; the local zone)."""
    option = click.option(
        "--cronhpa-timezone",
        default=None,
        callback=_check_zone,
        help="IANA time zone of CronHorizontalPodAutoscaler schedules without a "
        "cronhpa.podscale.dev/timezone annotation [default: the local zone].",
    )
    return option(command)


def cronhpa_zone(values: dict[str, Any]) -> str | None:
    """Pop ``--cronhpa-timezone`` from a command's keyword arguments (None: local)."""
    zone: str | None = values.pop("cronhpa_timezone", None)
    return zone


def parse_retention(text: str) -> timedelta:
    """Weeks and days (``2w``, ``15d``) followed by an optional Go duration (``1d12h``),
    or a Go duration alone; raises ``DurationError`` (or ``ValueError``) otherwise."""
    match = _DAYS.fullmatch(text.strip())
    if match is None:  # pragma: no cover - the pattern matches any text
        raise ValueError(f"invalid duration {text!r}")
    weeks, days, rest = match.groups()
    span = timedelta(weeks=int(weeks or 0), days=int(days or 0))
    if rest or (weeks is None and days is None):
        span += parse_go_duration(rest)
    return span


def _check_retention(_ctx: click.Context, _param: click.Parameter, value: str) -> timedelta:
    try:
        parsed = parse_retention(value)
    except (DurationError, ValueError) as err:
        raise click.BadParameter(str(err)) from None
    if parsed <= timedelta(0):
        raise click.BadParameter(f"must be positive, got {value}")
    return parsed


def history_flags(command: F) -> F:
    """``--history-retention``: how long the history keeps one-minute points."""
    option = click.option(
        "--history-retention",
        default="15d",
        show_default=True,
        callback=_check_retention,
        help="How long DATA_DIR/history.db keeps each workload's one-minute usage and metric "
        "points (older ones are kept as hourly means for 90 days); e.g. 15d, 2w, 36h.",
    )
    return option(command)


def history_retention(values: dict[str, Any]) -> timedelta:
    """Pop ``--history-retention`` from a command's keyword arguments."""
    retention: timedelta = values.pop("history_retention", DEFAULT_HISTORY_RETENTION)
    return retention


def _parse_gates(_ctx: click.Context, _param: click.Parameter, value: str) -> frozenset[str]:
    try:
        return parse_feature_gates(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


def feature_gates_flag(command: F) -> F:
    """``--feature-gates``: gates turned on or off over upstream's defaults."""
    known = ", ".join(sorted(KNOWN_FEATURE_GATES))
    option = click.option(
        "--feature-gates",
        default="",
        callback=_parse_gates,
        help="A set of key=value pairs that describe feature gates for alpha/experimental "
        f"features, e.g. HPAScaleToZero=true. Options are: {known}.",
    )
    return option(command)


def feature_gates(values: dict[str, Any]) -> frozenset[str]:
    """Pop ``--feature-gates`` from a command's keyword arguments (the gates in force)."""
    gates: frozenset[str] = values.pop("feature_gates", DEFAULT_FEATURE_GATES)
    return gates
