"""The CronHorizontalPodAutoscaler controller fires exactly when ``podscale.cron`` says, on
virtual time: a daily job in a zone with daylight saving time across both changes of 2026
(a wall time skipped by the spring-forward does not fire, one repeated by the fall-back
fires twice), and an ``@every`` job counting from the instant it was submitted.

Each fire is checked one second before (not yet: the replicas are back at 1 and the
condition still shows the previous run) and one second after (scaled, the condition's
``lastProbeTime`` is the fire time), so any run in between would show."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from podscale.controllers.cronhpa.kind import TIMEZONE_ANNOTATION
from podscale.cron import parse

from .cluster import EVENT
from .cronhpa_cluster import CRONHPA, CronCluster, cronhpa, on_cluster

SECOND = timedelta(seconds=1)
BERLIN = "Europe/Berlin"


def utc(month: int, day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, second, tzinfo=UTC)


def cron_fires(schedule: str, zone: str, start: datetime, end: datetime) -> list[datetime]:
    """``podscale.cron``'s fire times of ``schedule`` in ``(start, end)``."""
    parsed = parse(schedule, "cronhpa")
    fires: list[datetime] = []
    instant = parsed.next_after(start, ZoneInfo(zone))
    while instant is not None and instant < end:
        fires.append(instant)
        instant = parsed.next_after(instant, ZoneInfo(zone))
    return fires


async def succeeded_runs(cluster: CronCluster) -> int:
    """Succeed events written for the object, repeats counted."""
    items = (await cluster.api.list(EVENT, "default"))["items"]
    return sum(
        int(e.get("count") or 1)
        for e in items
        if e["reason"] == "Succeed" and e["involvedObject"]["kind"] == CRONHPA.kind
    )


async def expect_fires(
    cluster: CronCluster, fires: Sequence[datetime], size: int, end: datetime
) -> None:
    """Each of ``fires`` scales the Deployment to ``size`` at that second, and nothing
    else runs up to ``end``."""
    previous = (await cluster.conditions())["job"]["lastProbeTime"]
    for fire in fires:
        await cluster.sleep_to(fire - SECOND)
        assert await cluster.replicas() == 1, f"ran before {fire}"
        assert (await cluster.conditions())["job"]["lastProbeTime"] == previous
        await cluster.sleep_to(fire + SECOND)
        assert await cluster.replicas() == size, f"did not run at {fire}"
        condition = (await cluster.conditions())["job"]
        previous = fire.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert (condition["state"], condition["lastProbeTime"]) == ("Succeed", previous)
        await cluster.set_replicas(1)
    await cluster.sleep_to(end)
    assert await cluster.replicas() == 1
    assert (await cluster.conditions())["job"]["lastProbeTime"] == previous
    assert await succeeded_runs(cluster) == len(fires)


# (schedule, window start, window end, the fire times in UTC)
DST_CASES = [
    pytest.param(
        "0 30 2 * * *",
        utc(3, 27, 12),
        utc(3, 31, 0),
        # 02:30 CET on the 28th; none on the 29th (02:00 CET jumps to 03:00 CEST);
        # 02:30 CEST on the 30th.
        [utc(3, 28, 1, 30), utc(3, 30, 0, 30)],
        id="spring-forward-skips-0230",
    ),
    pytest.param(
        "0 30 2 * * *",
        utc(10, 23, 12),
        utc(10, 27, 0),
        # 02:30 CEST on the 24th; on the 25th 02:30 CEST, then 02:30 CET an hour later.
        [utc(10, 24, 0, 30), utc(10, 25, 0, 30), utc(10, 25, 1, 30), utc(10, 26, 1, 30)],
        id="fall-back-runs-0230-twice",
    ),
    pytest.param(
        "0 0 9 * * *",
        utc(3, 27, 12),
        utc(3, 31, 0),
        [utc(3, 28, 8), utc(3, 29, 7), utc(3, 30, 7)],
        id="spring-forward-0900-an-hour-earlier-in-utc",
    ),
    pytest.param(
        "0 0 9 * * *",
        utc(10, 23, 12),
        utc(10, 27, 0),
        [utc(10, 24, 7), utc(10, 25, 8), utc(10, 26, 8)],
        id="fall-back-0900-an-hour-later-in-utc",
    ),
]


@pytest.mark.parametrize(("schedule", "start", "end", "fires"), DST_CASES)
def test_a_daily_job_across_a_dst_change_fires_as_the_cron_package_says(
    schedule: str, start: datetime, end: datetime, fires: list[datetime]
) -> None:
    # The controller must follow podscale.cron (Go's DST walk), whose answer is pinned here.
    assert cron_fires(schedule, BERLIN, start, end) == fires

    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        spec = cronhpa(
            [{"name": "job", "schedule": schedule, "targetSize": 5}],
            annotations={TIMEZONE_ANNOTATION: BERLIN},
        )
        await cluster.api.create(CRONHPA, "default", spec)
        await cluster.sleep_to(start + SECOND)
        assert (await cluster.conditions())["job"]["state"] == "Submitted"
        await expect_fires(cluster, fires, 5, end)

    # The controller's own zone is UTC: only the annotation puts the job in Berlin.
    on_cluster(body, start=start, until=end - start + timedelta(hours=1))


def test_an_every_job_counts_from_its_submission() -> None:
    submitted = utc(3, 1, 0, 1)

    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        await cluster.sleep_to(submitted)
        spec = cronhpa([{"name": "job", "schedule": "@every 90s", "targetSize": 3}])
        await cluster.api.create(CRONHPA, "default", spec)
        await cluster.sleep_to(submitted + SECOND)
        condition = (await cluster.conditions())["job"]
        assert (condition["state"], condition["lastProbeTime"]) == (
            "Submitted",
            "2026-03-01T00:01:00Z",
        )
        # 00:02:30, 00:04:00, 00:05:30, 00:07:00: every 90 s after the submission.
        fires = [submitted + timedelta(seconds=90 * n) for n in range(1, 5)]
        await expect_fires(cluster, fires, 3, fires[-1] + timedelta(seconds=89))

    on_cluster(body)
