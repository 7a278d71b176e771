"""What a CronHorizontalPodAutoscaler's jobs do and when: pure decisions over plain values.

The controller keeps, per object, a ``Scheduled`` entry per job (its id, the job, the zone
it runs in and its next fire time); everything here maps those, the object's spec and
status and the current instant to the next entries and conditions, as upstream's
reconciler and cron engine do:

- ``plan_jobs`` is upstream's reconcile: a changed ``scaleTargetRef`` or ``excludeDates``
  drops every job and resubmits all under new ids; otherwise a job whose schedule,
  ``runOnce`` or ``targetSize`` changed, or that left the spec, is dropped, a new or
  changed one is submitted (``Submitted``) under a new id, an unchanged one keeps its id
  (and its condition untouched while this process already runs it), and a run-once job
  whose condition is final (``Succeed``/``Failed``) is not submitted again.
- A job this process has not run before but whose condition it kept (a restart, a leader
  change) may have missed a fire time while no controller ran: missed by less than the
  grace period, it is due at once (``late``, upstream's ``OutOfDate``); never twice, since
  its condition's ``lastProbeTime`` then moves past that fire time.
- ``due_jobs``/``after_run``/``next_wake`` drive the runs: a job fires once however late
  its wake-up, and its next fire is the first one after the run.
- ``excluded_by`` skips a run on a date an ``excludeDates`` spec fires on, the whole date
  in the object's zone, as upstream's README describes. (Upstream's code compares only the
  month and hour of the spec's next fire with now, a Go layout mistake; podscale does not.)

Schedules are read by ``podscale.cron`` in the ``cronhpa`` dialect. ``types`` reads the
object; ``controller`` applies the decisions; ``hpa_target`` decides an HPA target's run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from podscale.controllers.cronhpa.types import (
    Condition,
    CronSpec,
    CronStatus,
    Job,
    JobState,
    TargetRef,
    target_ref_error,
)
from podscale.cron import CronError, parse

__all__ = [
    "Plan",
    "Scheduled",
    "after_run",
    "due_jobs",
    "excluded_by",
    "failed_message",
    "next_wake",
    "plan_jobs",
    "replace_condition",
    "skipped_detail",
    "succeeded_message",
    "zone_for",
]


@dataclass(frozen=True, slots=True)
class Scheduled:
    """A job this controller runs. ``next_fire`` None: it never fires again (``done``: a
    run-once job that ran; otherwise a schedule with no time left, as ``@date`` past)."""

    job_id: str
    job: Job
    zone: ZoneInfo
    next_fire: datetime | None
    done: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    """The object's status after a reconcile and the jobs to run, by name. ``late``: jobs
    due now because they missed a fire time while no controller ran."""

    target: TargetRef
    exclude_dates: tuple[str, ...]
    conditions: tuple[Condition, ...]
    scheduled: Mapping[str, Scheduled]
    late: frozenset[str]


def zone_for(annotation: str | None, default: ZoneInfo) -> ZoneInfo | str:
    """The zone named by the object's annotation (``default`` without one); a message
    when the name is no IANA zone."""
    if not annotation:
        return default
    try:
        return ZoneInfo(annotation)
    except (ZoneInfoNotFoundError, ValueError):
        return f'unknown time zone "{annotation}"'


def _global_change(spec: CronSpec, status: CronStatus) -> bool:
    # Upstream compares the status's reference (zero before the first write) with the
    # spec's, and excludeDates as sets.
    return status.target != spec.target or set(status.exclude_dates) != set(spec.exclude_dates)


def _kept(spec: CronSpec, status: CronStatus) -> dict[str, Condition]:
    jobs = {job.name: job for job in spec.jobs}
    return {c.name: c for c in status.conditions if c.name in jobs and c.matches(jobs[c.name])}


def _missed(job: Job, since: datetime, now: datetime, zone: ZoneInfo, grace: timedelta) -> bool:
    """Whether ``job`` should have fired after ``since`` and less than ``grace`` ago."""
    start = max(since, now - grace)
    fire = parse(job.schedule, "cronhpa").next_after(start, zone)
    return fire is not None and fire <= now


def _unless_same(failed: Condition, conditions: Iterable[Condition]) -> Condition:
    """The job's existing condition when it already reports this very failure: a job that
    cannot be created is not rewritten (with a new probe time) on every reconcile."""
    for condition in conditions:
        if replace(condition, last_probe_time=failed.last_probe_time) == failed:
            return condition
    return failed


def plan_jobs(
    spec: CronSpec,
    status: CronStatus,
    known: Mapping[str, Scheduled],
    *,
    now: datetime,
    zone: ZoneInfo | str,
    new_id: Callable[[], str],
    where: tuple[str, str],
    grace: timedelta,
) -> Plan:
    """Upstream's reconcile of one object (see the module docstring). ``known``: the jobs
    this process runs for it; ``where``: its name and namespace, for messages; ``zone``:
    its zone, or why it has none (every job then fails to be created)."""
    kept = {} if _global_change(spec, status) else _kept(spec, status)
    conditions: list[Condition] = []
    scheduled: dict[str, Scheduled] = {}
    late: set[str] = set()
    problem = zone if isinstance(zone, str) else target_ref_error(spec.target)
    job_zone = None if isinstance(zone, str) else zone
    for job in spec.jobs:
        fresh = Condition(
            job.name, "", job.schedule, job.target_size, job.run_once, JobState.SUBMITTED, now
        )
        if problem is not None or job_zone is None:
            name, namespace = where
            message = (
                f"Failed to create cron hpa job {job.name} in {name} namespace {namespace},"
                f"because of {problem}"
            )
            failed = replace(fresh, state=JobState.FAILED, message=message)
            conditions.append(_unless_same(failed, status.conditions))
            continue
        previous = kept.get(job.name)
        job_id = previous.job_id if previous is not None else new_id()
        if previous is not None and job.once and previous.state != JobState.SUBMITTED:
            conditions.append(previous)  # ran once: stays as it ended, never resubmitted
            continue
        running = known.get(job.name)
        if (
            previous is not None
            and running is not None
            and (running.job_id, running.job, running.zone) == (job_id, job, job_zone)
        ):
            conditions.append(previous)  # unchanged and running here: nothing to do
            scheduled[job.name] = running
            continue
        try:
            schedule = parse(job.schedule, "cronhpa")
        except CronError as err:
            message = (
                f"Failed to update cron hpa job {job.name},because of "
                f"Failed to add job to cronExecutor,because of {err}"
            )
            failed = replace(fresh, job_id=job_id, state=JobState.FAILED, message=message)
            conditions.append(_unless_same(failed, status.conditions))
            continue
        next_fire = schedule.next_after(now, job_zone)
        if previous is not None and _missed(job, previous.last_probe_time, now, job_zone, grace):
            next_fire = now
            late.add(job.name)
        scheduled[job.name] = Scheduled(job_id, job, job_zone, next_fire)
        conditions.append(replace(fresh, job_id=job_id))
    return Plan(spec.target, spec.exclude_dates, tuple(conditions), scheduled, frozenset(late))


def due_jobs(scheduled: Mapping[str, Scheduled], now: datetime) -> list[str]:
    """The jobs whose fire time has come, in the spec's order."""
    return [
        name
        for name, entry in scheduled.items()
        if entry.next_fire is not None and entry.next_fire <= now
    ]


def after_run(entry: Scheduled, now: datetime) -> Scheduled:
    """The entry once it ran at ``now``: done if it runs once, else due at its next fire
    strictly after ``now`` (fires missed meanwhile are not made up)."""
    if entry.job.once:
        return replace(entry, next_fire=None, done=True)
    schedule = parse(entry.job.schedule, "cronhpa")
    return replace(entry, next_fire=schedule.next_after(now, entry.zone))


def next_wake(scheduled: Iterable[Scheduled]) -> datetime | None:
    """When the earliest of these jobs fires next (None: none will)."""
    fires = [entry.next_fire for entry in scheduled if entry.next_fire is not None]
    return min(fires, default=None)


def excluded_by(exclude_dates: Sequence[str], now: datetime, zone: ZoneInfo) -> str | None:
    """The first ``excludeDates`` spec that fires on ``now``'s date in ``zone`` (any second
    of it); None when the date is not excluded. A spec that does not parse is ignored, as
    upstream logs and skips it."""
    local = now.astimezone(zone)
    midnight = datetime(local.year, local.month, local.day, tzinfo=zone)
    following = midnight.date() + timedelta(days=1)
    next_midnight = datetime(following.year, following.month, following.day, tzinfo=zone)
    for spec in exclude_dates:
        try:
            schedule = parse(spec, "cronhpa")
        except CronError:
            continue
        fire = schedule.next_after(midnight - timedelta(seconds=1), zone)
        if fire is not None and fire < next_midnight:
            return spec
    return None


def succeeded_message(job: Job, detail: str) -> str:
    return f"cron hpa job {job.name} executed successfully. {detail}"


def failed_message(error: str) -> str:
    return f"cron hpa failed to execute, because of {error}"


def skipped_detail(spec: str) -> str:
    return f"skip scaling activity,because of excludeDate ({spec})."


def replace_condition(conditions: Sequence[Condition], new: Condition) -> tuple[Condition, ...]:
    """``conditions`` with ``new`` in place of the one of its job id or name (appended when
    there is none), as upstream's result handler writes a run's outcome."""
    out = list(conditions)
    for index, condition in enumerate(out):
        if condition.job_id == new.job_id or condition.name == new.name:
            out[index] = new
            return tuple(out)
    out.append(new)
    return tuple(out)
