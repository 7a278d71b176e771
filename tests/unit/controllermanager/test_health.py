"""The controller manager's /healthz, /readyz and /metrics: kube-controller-manager's
leaderElection check (client-go's HealthzAdaptor), readiness after the caches sync."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from prometheus_client import CollectorRegistry

from podscale.apiserver.http.health import HealthCheck
from podscale.client.workqueue import WorkQueue
from podscale.client.workqueue_metrics import WorkQueueMetrics
from podscale.controllermanager.health import (
    HealthSources,
    LeaderElectionMetrics,
    health_app,
    leader_election_check,
    sync_check,
)
from podscale.testing import FakeClock

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LEASE = timedelta(seconds=15)


@dataclass
class Status:
    is_leader: bool
    observed_time: datetime | None


@pytest.mark.parametrize(
    ("status", "after", "healthy"),
    [
        (Status(False, T0), 3600, True),
        (Status(True, T0), 35, True),
        (Status(True, T0), 35.001, False),
        (Status(True, None), 3600, True),
    ],
    ids=[
        "a-follower-is-always-healthy",
        "leader-within-lease-plus-20s",
        "leader-not-renewed-past-lease-plus-20s",
        "leader-never-observed",
    ],
)
def test_leader_election_check_is_client_gos(status: Status, after: float, healthy: bool) -> None:
    reason = leader_election_check("lock", status, T0 + timedelta(seconds=after), LEASE)
    assert (reason is None) is healthy
    if not healthy:
        assert reason == "failed election to renew leadership on lease lock"


@pytest.mark.parametrize(
    ("synced", "leading", "ready"),
    [(False, True, False), (True, True, True), (False, False, True)],
    ids=["leader-before-sync", "leader-synced", "standby-is-ready"],
)
def test_readiness_waits_for_the_caches_of_the_leader_only(
    synced: bool, leading: bool, ready: bool
) -> None:
    assert (sync_check(lambda: synced, lambda: leading).check() is None) is ready


def get(sources: HealthSources, path: str) -> httpx.Response:
    async def fetch() -> httpx.Response:
        transport = httpx.ASGITransport(app=health_app(sources))
        async with httpx.AsyncClient(transport=transport, base_url="http://cm") as client:
            return await client.get(path)

    return asyncio.run(fetch())


def make_sources(status: Status, *, synced: bool) -> tuple[HealthSources, FakeClock]:
    clock = FakeClock(T0)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(LeaderElectionMetrics("podscale-controller-manager", status))
    queues = WorkQueueMetrics(clock)
    registry.register(queues)
    queue: WorkQueue[str] = WorkQueue(
        clock, metrics=queues.queue_metrics("horizontalpodautoscaler")
    )
    queue.add("default/web")
    election = HealthCheck(
        "leaderElection",
        lambda: leader_election_check("podscale-controller-manager", status, clock.now(), LEASE),
    )
    readiness = sync_check(lambda: synced, lambda: status.is_leader)
    return HealthSources([election], lambda: [readiness], registry), clock


def test_healthz_lists_leader_election_and_fails_when_renewals_stop() -> None:
    sources, clock = make_sources(Status(True, T0), synced=True)
    assert (get(sources, "/healthz").status_code, get(sources, "/healthz").text) == (200, "ok")
    verbose = get(sources, "/healthz?verbose")
    assert verbose.text == "[+]ping ok\n[+]leaderElection ok\nhealthz check passed\n"
    clock.advance(36)
    failing = get(sources, "/healthz")
    assert failing.status_code == 500
    assert "[-]leaderElection failed: reason withheld\n" in failing.text
    assert failing.text.endswith("healthz check failed\n")
    single = get(sources, "/healthz/leaderElection")
    assert single.status_code == 500
    assert "failed election to renew leadership on lease podscale-controller-manager" in single.text


def test_readyz_fails_until_the_leaders_caches_sync() -> None:
    waiting, _ = make_sources(Status(True, T0), synced=False)
    answer = get(waiting, "/readyz")
    assert answer.status_code == 500
    assert "[-]informer-sync failed: reason withheld" in answer.text
    ready, _ = make_sources(Status(True, T0), synced=True)
    assert get(ready, "/readyz").text == "ok"


def test_unknown_paths_are_404() -> None:
    sources, _ = make_sources(Status(False, None), synced=False)
    assert get(sources, "/healthz/nope").status_code == 404
    assert get(sources, "/debug").status_code == 404


@pytest.mark.parametrize(
    ("leading", "value"), [(True, "1.0"), (False, "0.0")], ids=["leader", "standby"]
)
def test_metrics_serve_leader_status_and_work_queue_metrics(leading: bool, value: str) -> None:
    sources, _ = make_sources(Status(leading, T0), synced=True)
    answer = get(sources, "/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = answer.text.splitlines()
    assert f'leader_election_master_status{{name="podscale-controller-manager"}} {value}' in lines
    assert 'workqueue_adds_total{name="horizontalpodautoscaler"} 1.0' in lines
    assert 'workqueue_depth{name="horizontalpodautoscaler"} 1.0' in lines
