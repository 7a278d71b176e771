"""KEDA's `cron` trigger: its metadata, metric name, and whether its window is active.

Metadata (all required): `timezone` (an IANA name), `start` and `end` (five-field
schedules read by robfig/cron's parser with the Minute|Hour|Dom|Month|Dow fields and
no descriptors, so `@daily` is refused; a `CRON_TZ=` prefix is allowed), and
`desiredReplicas`. KEDA's `Validate` then refuses a bad schedule, `start == end`, and
`desiredReplicas` of 0. The time zone is only loaded when the metric is read, as in
KEDA, so an unknown zone fails `cron_desired`, not the parse.

The metric is `s<i>-cron-<zone>-<start>-<end>` (spaces dropped, `*` as `x`, `/` as
`Sl`, `?` as `Qm`, then normalized); its HPA target is 1. `cron_desired` is the value
KEDA reports: `desiredReplicas` inside the window, else 1 (inactive, so the scale loop
goes to `minReplicaCount`). The window rule is `podscale.cron.window_active_keda`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from podscale.controllers.keda.triggers.spec import (
    TriggerError,
    metric_name_with_index,
    normalize_string,
)
from podscale.controllers.keda.triggers.typed_config import MetadataReader
from podscale.cron import CronError, Schedule, parse, window_active_keda

# What KEDA's cron scaler reports outside the window (its metric value, not a count
# of replicas it asks for: the trigger is inactive then).
INACTIVE_VALUE = 1


@dataclass(frozen=True)
class CronTrigger:
    timezone: str
    start: str
    end: str
    desired_replicas: int
    start_schedule: Schedule
    end_schedule: Schedule


def _parse_schedule(spec: str) -> Schedule | str:
    """The schedule, or robfig's error text for it under KEDA's parser options."""
    if spec == "":
        return "empty spec string"
    rest = spec
    if spec.startswith(("TZ=", "CRON_TZ=")) and " " in spec:
        rest = spec[spec.index(" ") :].strip()
    try:
        schedule = parse(spec, "standard")
    except CronError as err:
        if err.field == "timezone" or not rest.startswith("@"):
            return err.message
        schedule = None
    if rest.startswith("@"):
        return f"parser does not accept descriptors: {rest}"
    assert schedule is not None
    return schedule


def _format(spec: str) -> str:
    return spec.replace(" ", "").replace("*", "x").replace("/", "Sl").replace("?", "Qm")


def parse_cron(index: int, metadata: Mapping[str, str]) -> tuple[str, CronTrigger]:
    """The metric name and the parsed trigger; `TriggerError` as KEDA words it."""
    reader = MetadataReader(metadata)
    start = reader.string("start")
    end = reader.string("end")
    timezone = reader.string("timezone")
    desired = reader.integer("desiredReplicas")
    start_schedule = _parse_schedule(start)
    end_schedule = _parse_schedule(end)
    validation = None
    if isinstance(start_schedule, str):
        validation = f"error parsing start schedule: {start_schedule}"
    elif isinstance(end_schedule, str):
        validation = f"error parsing end schedule: {end_schedule}"
    elif start == end:
        validation = "start and end can not have exactly same time input"
    elif desired == 0:
        validation = "no desiredReplicas specified"
    reader.finish("error parsing cron metadata: ", validation)
    assert isinstance(start_schedule, Schedule)
    assert isinstance(end_schedule, Schedule)
    name = normalize_string(f"cron-{timezone}-{_format(start)}-{_format(end)}")
    trigger = CronTrigger(timezone, start, end, desired, start_schedule, end_schedule)
    return metric_name_with_index(index, name), trigger


def _zone(name: str) -> ZoneInfo:
    # Go's time.LoadLocation: "UTC" (and "") is UTC; podscale has no "Local" zone.
    if name in ("UTC", "Local"):
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TriggerError(f"unable to load timezone: unknown time zone {name}") from None


def cron_active(trigger: CronTrigger, now: dt.datetime) -> bool:
    """Whether `now` is inside the trigger's start/end window (KEDA's activity)."""
    zone = _zone(trigger.timezone)
    return window_active_keda(trigger.start_schedule, trigger.end_schedule, now, zone)


def cron_desired(trigger: CronTrigger, now: dt.datetime) -> int:
    """The metric value KEDA reports: `desiredReplicas` in the window, else 1."""
    return trigger.desired_replicas if cron_active(trigger, now) else INACTIVE_VALUE
