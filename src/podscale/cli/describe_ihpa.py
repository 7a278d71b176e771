"""``describe ihpa``: a Kapacity IntelligentHorizontalPodAutoscaler with its ReplicaProfile.

The object is read with ``podscale.controllers.kapacity.types.parse_ihpa`` and shown in
kubectl's describe layout: the header (``describe_rp.write_header``), the replica bounds,
scale mode and ``Paused``; the portrait providers (type, priority and what each says: a
Static count, the Cron rules (in their own table: zone, start, end, replicas), a Dynamic
portrait's type and algorithm); the current and previous portrait values (replicas,
provider, expiry); the gray change (percent, last move, and the strategy of the direction
the change goes, as ``controllers.kapacity.gray`` picks it: clamped current against
clamped previous); the ReplicaProfile of the same name (``<none>`` when there is none, as
in Preview mode), the stability checkers, the conditions and events. Pure:
``podscale.cli.describe`` fetches the IHPA, its profile and its events and passes ``now``;
this module loads only when a Kapacity kind is described.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from podscale.cli.describe_rp import write_conditions, write_header, write_replica_states
from podscale.cli.describe_text import DescribeWriter, format_timestamp
from podscale.controllers.kapacity.kind import IHPA, KIND
from podscale.controllers.kapacity.portraits import clamp_replicas
from podscale.controllers.kapacity.reading import format_time
from podscale.controllers.kapacity.replicaprofile import parse_replica_profile
from podscale.controllers.kapacity.types import (
    GrayStrategy,
    Ihpa,
    PortraitProvider,
    PortraitValue,
    parse_ihpa,
)

__all__ = ["IHPA", "describe_ihpa", "is_ihpa"]

JSON = dict[str, Any]
_NONE: Final = "<none>"
_NAMES: Final = frozenset(
    {IHPA.plural, IHPA.singular, KIND.lower(), *IHPA.short_names}
    | {
        f"{name}{version}.{IHPA.group}"
        for name in (IHPA.plural, IHPA.singular)
        for version in ("", f".{IHPA.version}")
    }
)


def is_ihpa(resource: str) -> bool:
    """Whether a typed resource name (``ihpa``, ``intelligenthorizontalpodautoscaler(s)``,
    the plural qualified by its group) names the IHPA kind."""
    return resource.strip().lower() in _NAMES


def _seconds(value: timedelta) -> str:
    return f"{int(value.total_seconds())}s"


def _says(provider: PortraitProvider) -> str:
    """What a provider contributes, from the part matching its type (others are ignored)."""
    if provider.type == "Static":
        replicas = provider.static_replicas
        return _NONE if replicas is None else f"{replicas} replicas"
    if provider.type == "Cron":
        count = len(provider.crons or ())
        return f"{count} rule{'' if count == 1 else 's'} (see Cron rules)"
    dynamic = provider.dynamic
    if provider.type != "Dynamic" or dynamic is None:
        return _NONE
    algorithm = dynamic.algorithm
    text = f"portrait {dynamic.portrait_type or _NONE}, algorithm {algorithm.type or _NONE}"
    if algorithm.kube_hpa is not None:
        hpa = algorithm.kube_hpa
        text += f" (sync {_seconds(hpa.sync_period)}, tolerance {hpa.tolerance:g})"
    if dynamic.external_generator_name:
        text += f", generator {dynamic.external_generator_name}"
    return text


def _write_providers(out: DescribeWriter, ihpa: Ihpa) -> None:
    providers = ihpa.spec.portrait_providers
    if not providers:
        out.write(0, f"Portrait providers:\t{_NONE}\n")
        return
    out.write(0, "Portrait providers:\n")
    out.write(1, "Type\tPriority\tPortrait\n")
    out.write(1, "----\t--------\t--------\n")
    for provider in providers:
        out.write(1, f"{provider.type}\t{provider.priority}\t{_says(provider)}\n")
    rules = [
        (provider.priority, rule)
        for provider in providers
        if provider.type == "Cron"
        for rule in provider.crons or ()
    ]
    if rules:
        out.write(0, "Cron rules:\n")
        out.write(1, "Priority\tName\tTime Zone\tStart\tEnd\tReplicas\n")
        out.write(1, "--------\t----\t---------\t-----\t---\t--------\n")
        for priority, rule in rules:
            out.write(
                1,
                f"{priority}\t{rule.name}\t{rule.time_zone}\t{rule.start}\t{rule.end}\t"
                f"{rule.replicas}\n",
            )


def _stamp(moment: datetime | None) -> str:
    return _NONE if moment is None else format_timestamp(format_time(moment))


def _write_value(out: DescribeWriter, title: str, value: PortraitValue | None) -> None:
    if value is None:
        out.write(0, f"{title} portrait:\t{_NONE}\n")
        return
    out.write(0, f"{title} portrait:\n")
    out.write(1, f"Replicas:\t{value.replicas}\n")
    out.write(1, f"Provider:\t{value.provider or _NONE}\n")
    out.write(1, f"Expire time:\t{_stamp(value.expire_time)}\n")


def _direction(ihpa: Ihpa) -> tuple[str, GrayStrategy | None]:
    """The way the change goes and that direction's strategy (``gray.current_strategy``'s
    choice): clamped current against clamped previous; no direction without both."""
    spec, status = ihpa.spec, ihpa.status
    if status.previous is None or status.current is None:
        return "", None
    previous = clamp_replicas(status.previous.replicas, spec.min_replicas, spec.max_replicas)
    current = clamp_replicas(status.current.replicas, spec.min_replicas, spec.max_replicas)
    if current.replicas > previous.replicas:
        return "Scale up", spec.behavior.scale_up
    if current.replicas < previous.replicas:
        return "Scale down", spec.behavior.scale_down
    return "", None


def _write_gray(out: DescribeWriter, ihpa: Ihpa) -> None:
    gray = ihpa.status.gray
    if gray is None:
        out.write(0, f"Gray:\t{_NONE}\n")
        return
    out.write(0, "Gray:\n")
    out.write(1, f"Percent:\t{gray.gray_percent}%\n")
    out.write(1, f"Last update time:\t{_stamp(gray.last_update_time)}\n")
    direction, strategy = _direction(ihpa)
    out.write(1, f"Direction:\t{direction or _NONE}\n")
    if strategy is None:
        out.write(1, f"Strategy:\t{_NONE}\n")
        return
    out.write(
        1,
        f"Strategy:\tstate {strategy.gray_state.value}, {strategy.change_percent}% every "
        f"{strategy.change_interval_seconds}s, observation {strategy.observation_seconds}s\n",
    )


def _write_profile(out: DescribeWriter, profile: JSON | None) -> None:
    if profile is None:
        out.write(0, f"Replica profile:\t{_NONE}\n")
        return
    out.write(0, "Replica profile:\n")
    write_replica_states(out, parse_replica_profile(profile), 1)


def _write_checkers(out: DescribeWriter, ihpa: Ihpa) -> None:
    checkers = ihpa.spec.stability_checkers
    if not checkers:
        out.write(0, f"Stability checkers:\t{_NONE}\n")
        return
    out.write(0, "Stability checkers:\n")
    out.write(1, "Type\tAction\tCool Down\n")
    out.write(1, "----\t------\t---------\n")
    for checker in checkers:
        out.write(1, f"{checker.type}\t{checker.action.value}\t{checker.cool_down_seconds}s\n")


def describe_ihpa(obj: JSON, profile: JSON | None, events: list[JSON], now: datetime) -> str:
    """The description of an IHPA, with its ReplicaProfile (None: there is none) and events."""
    ihpa = parse_ihpa(obj)
    spec = ihpa.spec
    out = DescribeWriter()
    write_header(out, obj, spec.target)
    out.write(0, f"Min replicas:\t{spec.min_replicas}\n")
    out.write(0, f"Max replicas:\t{spec.max_replicas}\n")
    out.write(0, f"Scale mode:\t{spec.scale_mode.value}\n")
    out.write(0, f"Paused:\t{'true' if spec.paused else 'false'}\n")
    _write_providers(out, ihpa)
    _write_value(out, "Current", ihpa.status.current)
    _write_value(out, "Previous", ihpa.status.previous)
    _write_gray(out, ihpa)
    _write_profile(out, profile)
    _write_checkers(out, ihpa)
    write_conditions(out, ihpa.status.conditions)
    out.write_events(events, now)
    return out.render()
