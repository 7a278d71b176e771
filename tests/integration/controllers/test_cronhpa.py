"""The CronHorizontalPodAutoscaler controller on virtual time: jobs fire at their times and
scale a Deployment through /scale or adjust an HPA as upstream does; runOnce,
excludeDates, a restart around a fire time, spec changes and a per-object zone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from podscale.api.kinds import kind_for
from podscale.controllers.cronhpa.kind import TIMEZONE_ANNOTATION

from .cronhpa_cluster import CRONHPA, HPA, CronCluster, cronhpa, on_cluster

# The clusters start at 2026-03-01 00:00:00 UTC (a Sunday).
AT_0005 = "0 5 0 * * *"


def job(name: str, schedule: str, size: int, **extra: object) -> dict[str, object]:
    return {"name": name, "schedule": schedule, "targetSize": size, **extra}


def test_a_job_scales_a_deployment_at_its_time() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        await cluster.api.create(CRONHPA, "default", cronhpa([job("up", AT_0005, 5)]))
        await cluster.sleep_until(0, 4, 59)
        assert await cluster.replicas() == 1
        submitted = (await cluster.conditions())["up"]
        assert submitted["state"] == "Submitted"
        assert submitted["jobId"]
        await cluster.sleep_until(0, 5, 1)
        assert await cluster.replicas() == 5
        done = (await cluster.conditions())["up"]
        assert done["state"] == "Succeed"
        assert done["jobId"] == submitted["jobId"]
        assert done["lastProbeTime"] == "2026-03-01T00:05:00Z"
        message = "cron hpa job up executed successfully. current replicas:1, desired replicas:5."
        assert done["message"] == message
        assert ("Normal", "Succeed", message) in await cluster.events()
        await cluster.set_replicas(2)
        await cluster.sleep_until(0, 5, 1, day=1)  # and again the next day
        assert await cluster.replicas() == 5

    on_cluster(body)


def test_a_job_on_an_hpa_moves_its_bounds_as_upstream() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install(deployment_replicas=2)
        await cluster.add_hpa(min_replicas=1, max_replicas=3, current=2)
        target = {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "name": "web-hpa",
        }
        jobs = [job("up", AT_0005, 6), job("down", "0 10 0 * * *", 1)]
        await cluster.api.create(CRONHPA, "default", cronhpa(jobs, target=target))
        await cluster.sleep_until(0, 5, 1)
        hpa = await cluster.api.get(HPA, "default", "web-hpa")
        assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (6, 6)
        assert await cluster.replicas() == 6  # current 2 < 6: the target is scaled too
        assert (await cluster.conditions())["up"]["message"] == (
            "cron hpa job up executed successfully. current replicas:2, desired replicas:6."
        )
        # The HPA has caught up with 6 replicas; scaling down only lowers the minimum.
        hpa["status"] = {"currentReplicas": 6, "desiredReplicas": 6}
        await cluster.api.update(HPA, "default", hpa, "status")
        await cluster.sleep_until(0, 10, 1)
        hpa = await cluster.api.get(HPA, "default", "web-hpa")
        assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (1, 6)
        assert await cluster.replicas() == 6  # left to the HPA
        assert (await cluster.conditions())["down"]["message"] == (
            "cron hpa job down executed successfully. Skip scale replicas because HPA "
            "web-hpa current replicas:6 >= desired replicas:1."
        )

    on_cluster(body)


def test_a_run_once_job_runs_once() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        once = job("once", "0 * * * * *", 3, runOnce=True)
        await cluster.api.create(CRONHPA, "default", cronhpa([once]))
        await cluster.sleep_until(0, 1, 1)
        assert await cluster.replicas() == 3
        await cluster.set_replicas(1)
        await cluster.sleep_until(0, 5, 0)
        assert await cluster.replicas() == 1
        condition = (await cluster.conditions())["once"]
        assert (condition["state"], condition["lastProbeTime"]) == (
            "Succeed",
            "2026-03-01T00:01:00Z",
        )
        await cluster.stop()  # a restart does not bring it back
        await cluster.start()
        await cluster.sleep_until(0, 8, 0)
        assert await cluster.replicas() == 1

    on_cluster(body)


def test_an_excluded_date_is_skipped_whole() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        spec = cronhpa([job("up", AT_0005, 4)], exclude_dates=["* * * 1 3 *"])
        await cluster.api.create(CRONHPA, "default", spec)
        await cluster.sleep_until(0, 5, 1)
        assert await cluster.replicas() == 1
        condition = (await cluster.conditions())["up"]
        assert condition["state"] == "Succeed"
        assert condition["message"] == (
            "cron hpa job up executed successfully. "
            "skip scaling activity,because of excludeDate (* * * 1 3 *)."
        )
        await cluster.sleep_until(0, 5, 1, day=1)  # March 2nd is not excluded
        assert await cluster.replicas() == 4

    on_cluster(body)


@pytest.mark.parametrize(
    ("minute", "second", "runs"),
    [(7, 0, True), (9, 59, True), (10, 0, False)],
    ids=["two-minutes-late-runs", "just-under-the-grace-runs", "at-the-grace-skipped"],
)
def test_a_restart_during_a_fire_time_runs_it_once(minute: int, second: int, runs: bool) -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        await cluster.api.create(CRONHPA, "default", cronhpa([job("up", AT_0005, 5)]))
        await cluster.sleep_until(0, 4, 0)
        await cluster.stop()  # down over 00:05; the grace is 5 minutes
        await cluster.sleep_until(0, minute, second)
        await cluster.start()
        await cluster.sleep_until(0, minute, second + 1)
        assert await cluster.replicas() == (5 if runs else 1)
        reasons = [reason for _, reason, _ in await cluster.events()]
        assert ("OutOfDate" in reasons) == runs
        # Another restart right after does not run it a second time.
        await cluster.set_replicas(2)
        await cluster.stop()
        await cluster.start()
        await cluster.sleep_until(0, minute + 1, 30)
        assert await cluster.replicas() == 2

    on_cluster(body)


def test_a_spec_change_reschedules_and_drops_jobs() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        jobs = [job("up", "0 10 0 * * *", 5), job("gone", "0 3 0 * * *", 9)]
        await cluster.api.create(CRONHPA, "default", cronhpa(jobs))
        await cluster.sleep_until(0, 1, 0)
        before = await cluster.conditions()
        patch = {"spec": {"jobs": [job("up", "0 5 0 * * *", 5)]}}
        await cluster.api.patch(
            CRONHPA, "default", "cron", patch, content_type="application/merge-patch+json"
        )
        await cluster.sleep_until(0, 4, 0)
        assert await cluster.replicas() == 1  # the removed 00:03 job did not fire
        after = await cluster.conditions()
        assert set(after) == {"up"}
        assert after["up"]["jobId"] != before["up"]["jobId"]
        await cluster.sleep_until(0, 5, 1)
        assert await cluster.replicas() == 5  # on its new schedule

    on_cluster(body)


def test_a_zone_annotation_moves_the_fire_time() -> None:
    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        spec = cronhpa(
            [job("up", "0 0 9 * * *", 4)], annotations={TIMEZONE_ANNOTATION: "Asia/Shanghai"}
        )
        await cluster.api.create(CRONHPA, "default", spec)
        await cluster.sleep_until(0, 59, 59)
        assert await cluster.replicas() == 1
        await cluster.sleep_until(1, 0, 1)  # 09:00 in Shanghai is 01:00 UTC
        assert await cluster.replicas() == 4

    on_cluster(body)


def test_the_example_manifests_are_admitted_and_submitted() -> None:
    examples = Path(__file__).parents[3] / "examples" / "cronhpa"

    async def body(cluster: CronCluster) -> None:
        await cluster.start()
        await cluster.install()
        for name in ("deployment.yaml", "hpa.yaml", "cronhpa.yaml"):
            obj = yaml.safe_load((examples / name).read_text())
            kind = (
                CRONHPA if obj["kind"] == CRONHPA.kind else kind_for(obj["apiVersion"], obj["kind"])
            )
            await cluster.api.create(kind, "default", obj)
        await asyncio.sleep(5)
        obj = await cluster.api.get(CRONHPA, "default", "shop")
        states = {c["name"]: c["state"] for c in obj["status"]["conditions"]}
        assert states == {"before-the-rush": "Submitted", "after-the-evening": "Submitted"}

    on_cluster(body)
