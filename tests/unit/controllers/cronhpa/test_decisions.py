"""Which CronHorizontalPodAutoscaler jobs run when: upstream's reconcile, runOnce, misfires
after a restart and whole-date excludeDates, over plain values."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from podscale.controllers.cronhpa.decisions import (
    Plan,
    Scheduled,
    after_run,
    due_jobs,
    excluded_by,
    next_wake,
    plan_jobs,
    replace_condition,
    zone_for,
)
from podscale.controllers.cronhpa.types import (
    Condition,
    CronSpec,
    CronStatus,
    Job,
    JobState,
    TargetRef,
)

UTC_ZONE = ZoneInfo("UTC")
NOW = datetime(2026, 3, 2, 7, 58, tzinfo=UTC)
GRACE = timedelta(minutes=5)
DEPLOY = TargetRef("apps/v1", "Deployment", "web")
UP = Job("up", "0 0 8 * * *", 5, False)  # 08:00:00 daily
DOWN = Job("down", "0 0 20 * * *", 1, False)


def ids() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"new-{next(counter)}"


def cond(
    job: Job, job_id: str, state: JobState = JobState.SUBMITTED, at: datetime = NOW
) -> Condition:
    return Condition(job.name, job_id, job.schedule, job.target_size, job.run_once, state, at)


def plan(
    spec: CronSpec,
    status: CronStatus,
    known: dict[str, Scheduled] | None = None,
    *,
    now: datetime = NOW,
    zone: ZoneInfo | str = UTC_ZONE,
) -> Plan:
    return plan_jobs(
        spec, status, known or {}, now=now, zone=zone, new_id=ids(), where=("c", "ns"), grace=GRACE
    )


def at(hour: int, minute: int = 0, second: int = 0, day: int = 2) -> datetime:
    return datetime(2026, 3, day, hour, minute, second, tzinfo=UTC)


SPEC = CronSpec(DEPLOY, (), (UP, DOWN))
RUNNING = CronStatus(DEPLOY, (), (cond(UP, "a"), cond(DOWN, "b")))
KNOWN = {
    "up": Scheduled("a", UP, UTC_ZONE, at(8)),
    "down": Scheduled("b", DOWN, UTC_ZONE, at(20)),
}


def test_a_new_object_submits_every_job_under_new_ids() -> None:
    result = plan(SPEC, CronStatus(None, (), ()))
    assert result.conditions == (cond(UP, "new-1"), cond(DOWN, "new-2"))
    assert {n: (s.job_id, s.next_fire) for n, s in result.scheduled.items()} == {
        "up": ("new-1", at(8)),
        "down": ("new-2", at(20)),
    }
    assert result.target == DEPLOY
    assert result.late == frozenset()


def test_unchanged_jobs_running_here_keep_ids_conditions_and_fire_times() -> None:
    old = replace(
        RUNNING, conditions=(cond(UP, "a", JobState.SUCCEED, at(8, day=1)), cond(DOWN, "b"))
    )
    result = plan(SPEC, old, KNOWN, now=at(9))
    assert result.conditions == old.conditions
    assert result.scheduled == KNOWN


CHANGED = replace(UP, schedule="0 30 7 * * *")


@pytest.mark.parametrize(
    ("spec", "status", "expected_ids", "expected_names"),
    [
        (
            replace(SPEC, jobs=(CHANGED, DOWN)),
            RUNNING,
            {"up": "new-1", "down": "b"},
            ["up", "down"],
        ),
        (
            replace(SPEC, jobs=(replace(UP, target_size=9), DOWN)),
            RUNNING,
            {"up": "new-1", "down": "b"},
            ["up", "down"],
        ),
        (
            replace(SPEC, jobs=(replace(UP, run_once=True), DOWN)),
            RUNNING,
            {"up": "new-1", "down": "b"},
            ["up", "down"],
        ),
        (replace(SPEC, jobs=(DOWN,)), RUNNING, {"down": "b"}, ["down"]),
        (
            replace(SPEC, target=TargetRef("apps/v1", "StatefulSet", "db")),
            RUNNING,
            {"up": "new-1", "down": "new-2"},
            ["up", "down"],
        ),
        (
            replace(SPEC, exclude_dates=("* * * 1 1 *",)),
            RUNNING,
            {"up": "new-1", "down": "new-2"},
            ["up", "down"],
        ),
    ],
    ids=[
        "schedule-change-resubmits-that-job",
        "target-size-change-resubmits-that-job",
        "run-once-change-resubmits-that-job",
        "removed-job-dropped",
        "target-change-resets-all",
        "exclude-dates-change-resets-all",
    ],
)
def test_spec_changes(
    spec: CronSpec, status: CronStatus, expected_ids: dict[str, str], expected_names: list[str]
) -> None:
    result = plan(spec, status, KNOWN)
    assert {n: s.job_id for n, s in result.scheduled.items()} == expected_ids
    assert [c.name for c in result.conditions] == expected_names
    assert all(c.state == JobState.SUBMITTED for c in result.conditions)
    assert result.target == spec.target
    assert result.exclude_dates == spec.exclude_dates


def test_a_rescheduled_job_fires_on_its_new_schedule() -> None:
    result = plan(replace(SPEC, jobs=(CHANGED, DOWN)), RUNNING, KNOWN, now=at(7))
    assert result.scheduled["up"].next_fire == at(7, 30)


ONCE = replace(UP, run_once=True)


@pytest.mark.parametrize(
    ("state", "scheduled"),
    [(JobState.SUCCEED, False), (JobState.FAILED, False), (JobState.SUBMITTED, True)],
    ids=["succeeded-stays-done", "failed-stays-done", "submitted-still-runs"],
)
def test_run_once_jobs_end_after_their_run(state: JobState, scheduled: bool) -> None:
    status = CronStatus(DEPLOY, (), (cond(ONCE, "a", state, at(8, day=1)),))
    result = plan(CronSpec(DEPLOY, (), (ONCE,)), status, now=at(9))
    assert ("up" in result.scheduled) == scheduled
    assert result.conditions[0].job_id == "a"
    if not scheduled:
        assert result.conditions == status.conditions


def test_a_target_change_resubmits_even_a_finished_run_once_job() -> None:
    status = CronStatus(DEPLOY, (), (cond(ONCE, "a", JobState.SUCCEED),))
    spec = CronSpec(TargetRef("apps/v1", "Deployment", "other"), (), (ONCE,))
    result = plan(spec, status)
    assert result.scheduled["up"].job_id == "new-1"
    assert result.conditions == (cond(ONCE, "new-1"),)


@pytest.mark.parametrize(
    ("last_probe", "now", "late"),
    [
        (at(7, 59), at(8, 4, 59), True),
        (at(7, 59), at(8, 5), False),
        (at(7, 59), at(8, 0), True),
        (at(8, 0), at(8, 1), False),
        (at(8, 0, 1), at(8, 2), False),
        (at(7, 0), at(7, 59, 59), False),
    ],
    ids=[
        "late-by-less-than-grace-runs",
        "late-by-exactly-grace-skipped",
        "restart-at-the-fire-second-runs",
        "ran-at-the-fire-time-not-again",
        "ran-after-the-fire-time-not-again",
        "fire-time-still-ahead",
    ],
)
def test_a_restart_runs_a_missed_fire_once_within_the_grace(
    last_probe: datetime, now: datetime, late: bool
) -> None:
    state = JobState.SUCCEED if last_probe >= at(8) else JobState.SUBMITTED
    status = CronStatus(DEPLOY, (), (cond(UP, "a", state, last_probe),))
    result = plan(CronSpec(DEPLOY, (), (UP,)), status, {}, now=now)
    assert (result.late == {"up"}) == late
    entry = result.scheduled["up"]
    assert entry.job_id == "a"
    assert (entry.next_fire == now) == late
    if late:
        # Run now; the next fire is tomorrow's, so it never runs twice for 08:00.
        assert due_jobs(result.scheduled, now) == ["up"]
        assert after_run(entry, now).next_fire == at(8, day=3)


def test_a_job_already_running_here_is_not_a_misfire() -> None:
    status = CronStatus(DEPLOY, (), (cond(UP, "a", JobState.SUBMITTED, at(7)),))
    known = {"up": Scheduled("a", UP, UTC_ZONE, at(8))}
    result = plan(CronSpec(DEPLOY, (), (UP,)), status, known, now=at(8, 1))
    assert result.late == frozenset()
    assert result.scheduled == known  # due now through its own fire time: runs once


def test_a_bad_schedule_fails_once_and_is_not_rewritten() -> None:
    bad = Job("bad", "0 0 25 * * *", 2, False)
    first = plan(CronSpec(DEPLOY, (), (bad,)), CronStatus(DEPLOY, (), ()))
    (condition,) = first.conditions
    assert condition.state == JobState.FAILED
    assert condition.message.startswith(
        "Failed to update cron hpa job bad,because of Failed to add job to cronExecutor,because of "
    )
    assert first.scheduled == {}
    again = plan(
        CronSpec(DEPLOY, (), (bad,)),
        CronStatus(DEPLOY, (), first.conditions),
        now=NOW + timedelta(minutes=1),
    )
    assert again.conditions == first.conditions  # same failure: same probe time, no write


@pytest.mark.parametrize(
    ("target", "zone", "reason"),
    [
        (TargetRef("apps/v1", "", "web"), UTC_ZONE, "any properties in ref could not be empty"),
        (DEPLOY, 'unknown time zone "Mars/Base"', 'unknown time zone "Mars/Base"'),
    ],
    ids=["incomplete-target", "unknown-zone"],
)
def test_jobs_that_cannot_be_created_fail(
    target: TargetRef, zone: ZoneInfo | str, reason: str
) -> None:
    result = plan(CronSpec(target, (), (UP,)), CronStatus(None, (), ()), zone=zone)
    (condition,) = result.conditions
    assert condition.state == JobState.FAILED
    assert (
        condition.message
        == f"Failed to create cron hpa job up in c namespace ns,because of {reason}"
    )
    assert result.scheduled == {}


SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("dates", "now", "zone", "excluded"),
    [
        (
            ("* * * 15 11 *",),
            datetime(2026, 11, 15, 0, 0, 0, tzinfo=UTC),
            UTC_ZONE,
            "* * * 15 11 *",
        ),
        (
            ("* * * 15 11 *",),
            datetime(2026, 11, 15, 23, 59, 59, tzinfo=UTC),
            UTC_ZONE,
            "* * * 15 11 *",
        ),
        (("* * * 15 11 *",), datetime(2026, 11, 16, 0, 0, 0, tzinfo=UTC), UTC_ZONE, None),
        # Upstream's check would skip this one: same month, same hour as the spec's next fire.
        (("* * * 15 11 *",), datetime(2026, 11, 3, 0, 30, tzinfo=UTC), UTC_ZONE, None),
        (("0 0 12 15 11 *",), datetime(2026, 11, 15, 6, 0, tzinfo=UTC), UTC_ZONE, "0 0 12 15 11 *"),
        # 2026-11-14 17:00 UTC is already Nov 15 in Shanghai.
        (("* * * 15 11 *",), datetime(2026, 11, 14, 17, 0, tzinfo=UTC), SHANGHAI, "* * * 15 11 *"),
        (("* * * 15 11 *",), datetime(2026, 11, 14, 17, 0, tzinfo=UTC), UTC_ZONE, None),
        (
            ("not a spec", "* * * * * 6"),
            datetime(2026, 11, 14, 9, 0, tzinfo=UTC),
            UTC_ZONE,
            "* * * * * 6",
        ),
        ((), datetime(2026, 11, 14, 9, 0, tzinfo=UTC), UTC_ZONE, None),
    ],
    ids=[
        "first-second-of-the-date",
        "last-second-of-the-date",
        "next-date-not-excluded",
        "upstream-month-and-hour-bug-not-reproduced",
        "spec-firing-later-that-day-excludes-the-whole-date",
        "date-in-the-objects-zone",
        "same-instant-in-utc-is-the-day-before",
        "unparsable-spec-ignored-saturday-excluded",
        "no-exclude-dates",
    ],
)
def test_excluded_by(
    dates: tuple[str, ...], now: datetime, zone: ZoneInfo, excluded: str | None
) -> None:
    assert excluded_by(dates, now, zone) == excluded


def test_after_run_and_next_wake() -> None:
    late_run = at(8, 3)
    entry = Scheduled("a", UP, UTC_ZONE, at(8))
    assert after_run(entry, late_run).next_fire == at(8, day=3)
    once = after_run(replace(entry, job=ONCE), late_run)
    assert (once.next_fire, once.done) == (None, True)
    assert next_wake([once, Scheduled("b", DOWN, UTC_ZONE, at(20))]) == at(20)
    assert next_wake([once]) is None


def test_zone_for_and_replace_condition() -> None:
    assert zone_for(None, UTC_ZONE) is UTC_ZONE
    assert zone_for("Asia/Shanghai", UTC_ZONE) == SHANGHAI
    assert zone_for("../etc", UTC_ZONE) == 'unknown time zone "../etc"'
    first, second = cond(UP, "a"), cond(DOWN, "b")
    done = replace(first, state=JobState.SUCCEED)
    assert replace_condition((first, second), done) == (done, second)
    assert replace_condition((second,), done) == (second, done)
