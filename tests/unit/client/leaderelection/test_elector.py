"""Electors on virtual time through the in-process API server: one leads, a cancelled leader
hands over at the follower's next retry, a killed one after the lease duration, a leader
that cannot renew stops before anyone can take over, and under random kills and network
partitions no two candidates ever act at once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.timestamps import parse_time
from podscale.apiserver.http.app import create_app
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.leaderelection import LeaderElectionConfig, LeaderElector
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
START = datetime(2026, 2, 1, tzinfo=UTC)
LEASE = kind_for("coordination.k8s.io/v1", "Lease")
RETRY = 2.0
MAX_RETRY_WAIT = RETRY * (1 + 1.2)  # client-go's jittered retry: at most period * 2.2


def config(identity: str, *, release_on_cancel: bool = True) -> LeaderElectionConfig:
    return LeaderElectionConfig(
        lease_name="podscale-controller-manager",
        lease_namespace="kube-system",
        identity=identity,
        release_on_cancel=release_on_cancel,
    )


class FlakyApi:
    """An API whose requests fail with a 503 while ``failing`` (a network partition)."""

    def __init__(self, api: InProcessApi) -> None:
        self._api = api
        self.failing = False

    def _check(self) -> None:
        if self.failing:
            raise ApiError(503, {"message": "connection refused", "code": 503})

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        self._check()
        return await self._api.get(kind, namespace, name, subresource)

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON:
        self._check()
        return await self._api.create(kind, namespace, obj, subresource=subresource)

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        self._check()
        return await self._api.update(kind, namespace, obj, subresource)


@dataclass
class Log:
    """When each identity's ``lead()`` started and stopped, in virtual seconds."""

    clock: VirtualClock
    events: list[tuple[float, str, str]] = field(default_factory=list)

    def lead(self, identity: str) -> Callable[[], Awaitable[None]]:
        async def lead() -> None:
            self.events.append((self.clock.elapsed(), identity, "start"))
            try:
                await asyncio.Event().wait()
            finally:
                self.events.append((self.clock.elapsed(), identity, "stop"))

        return lead

    def first(self, identity: str, what: str) -> float:
        return next(t for t, who, ev in self.events if who == identity and ev == what)

    def intervals(self, end: float) -> list[tuple[float, float, str]]:
        starts = {who: t for t, who, ev in self.events if ev == "start"}
        stops = {who: t for t, who, ev in self.events if ev == "stop"}
        return sorted((t, stops.get(who, end), who) for who, t in starts.items())


def setup() -> tuple[VirtualClock, InProcessApi, Log]:
    clock = VirtualClock(START)
    return clock, InProcessApi.for_store(MemoryStore(clock), clock), Log(clock)


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def lease_spec(api: InProcessApi) -> JSON:
    lease = await api.get(LEASE, "kube-system", "podscale-controller-manager")
    spec: JSON = lease["spec"]
    return spec


def test_one_leads_and_the_other_follows() -> None:
    clock, api, log = setup()

    async def main() -> tuple[JSON, bool, bool, str]:
        a = LeaderElector(api, clock, config("a"), rng=random.Random(1))
        b = LeaderElector(api, clock, config("b"), rng=random.Random(2))
        tasks = [asyncio.create_task(a.run(log.lead("a")))]
        await asyncio.sleep(1)
        tasks.append(asyncio.create_task(b.run(log.lead("b"))))
        await asyncio.sleep(60)
        spec = await lease_spec(api)
        state = (spec, a.is_leader, b.is_leader, b.leader)
        for task in tasks:
            await stop(task)
        return state

    spec, a_leads, b_leads, b_sees = run_virtual(main(), start=START) or ({}, False, False, "")
    assert (a_leads, b_leads, b_sees) == (True, False, "a")
    assert spec["holderIdentity"] == "a"
    assert spec["leaseDurationSeconds"] == 15
    assert spec["leaseTransitions"] == 0
    assert spec["acquireTime"] == "2026-02-01T00:00:00.000000Z"
    # Renewed every retry period: the last renewal at most one period before t=61.
    assert 61 - RETRY <= (parse_time(spec["renewTime"]) - START).total_seconds() <= 61
    assert [who for _, who, ev in log.events if ev == "start"] == ["a"]


def test_simultaneous_starts_elect_exactly_one_through_the_create_conflict() -> None:
    clock, api, log = setup()

    async def main() -> list[bool]:
        electors = [LeaderElector(api, clock, config(n), rng=random.Random(n)) for n in "abc"]
        tasks = [asyncio.create_task(e.run(log.lead(e.config.identity))) for e in electors]
        await asyncio.sleep(30)
        leaders = [e.is_leader for e in electors]
        for task in tasks:
            await stop(task)
        return leaders

    assert sorted(run_virtual(main(), start=START) or []) == [False, False, True]
    assert len([ev for _, _, ev in log.events if ev == "start"]) == 1


def test_cancelled_leader_stops_leading_releases_and_the_other_takes_over_at_once() -> None:
    clock, api, log = setup()

    async def main() -> JSON:
        a = LeaderElector(api, clock, config("a"), rng=random.Random(1))
        b = LeaderElector(api, clock, config("b"), rng=random.Random(2))
        task_a = asyncio.create_task(a.run(log.lead("a")))
        await asyncio.sleep(1)
        task_b = asyncio.create_task(b.run(log.lead("b")))
        await asyncio.sleep(29)
        task_a.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task_a
        released = await lease_spec(api)
        await asyncio.sleep(20)
        await stop(task_b)
        return released

    released = run_virtual(main(), start=START) or {}
    assert released["holderIdentity"] == ""
    assert released["leaseDurationSeconds"] == 1
    assert log.first("a", "stop") == 30
    taken = log.first("b", "start")
    assert 30 < taken <= 30 + MAX_RETRY_WAIT


def test_killed_leader_without_release_is_replaced_after_the_lease_duration() -> None:
    clock, api, log = setup()

    async def main() -> float:
        a = LeaderElector(api, clock, config("a", release_on_cancel=False), rng=random.Random(1))
        b = LeaderElector(api, clock, config("b"), rng=random.Random(2))
        task_a = asyncio.create_task(a.run(log.lead("a")))
        await asyncio.sleep(1)
        task_b = asyncio.create_task(b.run(log.lead("b")))
        await asyncio.sleep(29)
        await stop(task_a)
        last_renewal = (parse_time((await lease_spec(api))["renewTime"]) - START).total_seconds()
        await asyncio.sleep(40)
        assert (await lease_spec(api))["leaseTransitions"] == 1
        await stop(task_b)
        return last_renewal

    last_renewal = run_virtual(main(), start=START) or 0.0
    taken = log.first("b", "start")
    # b may act only a full lease duration after it last saw a's record change.
    assert last_renewal + 15 <= taken <= last_renewal + 15 + MAX_RETRY_WAIT


def test_leader_that_cannot_renew_stops_before_the_lease_can_be_taken() -> None:
    clock, api, log = setup()
    flaky = FlakyApi(api)

    async def main() -> tuple[bool, float]:
        a = LeaderElector(flaky, clock, config("a"), rng=random.Random(1))
        b = LeaderElector(api, clock, config("b"), rng=random.Random(2))
        task_a = asyncio.create_task(a.run(log.lead("a")))
        await asyncio.sleep(1)
        task_b = asyncio.create_task(b.run(log.lead("b")))
        await asyncio.sleep(20)
        flaky.failing = True
        last_renewal = (parse_time((await lease_spec(api))["renewTime"]) - START).total_seconds()
        await asyncio.sleep(30)
        returned = task_a.done() and task_a.exception() is None
        await stop(task_b)
        return returned, last_renewal

    returned, last_renewal = run_virtual(main(), start=START) or (False, 0.0)
    assert returned  # run() came back: leadership lost
    lost = log.first("a", "stop")
    # The next round starts a retry period after the last renewal and gives up at the
    # renew deadline; the follower may take over only a lease duration after that renewal.
    assert lost == last_renewal + RETRY + 10
    assert lost < last_renewal + 15 <= log.first("b", "start")


def test_lead_ending_by_itself_releases_and_returns_its_error() -> None:
    clock, api, _ = setup()

    async def main() -> JSON:
        elector = LeaderElector(api, clock, config("a"), rng=random.Random(1))

        async def lead() -> None:
            await asyncio.sleep(5)
            raise RuntimeError("controllers failed")

        with pytest.raises(RuntimeError, match="controllers failed"):
            await elector.run(lead)
        assert not elector.is_leader
        return await lease_spec(api)

    assert (run_virtual(main(), start=START) or {})["holderIdentity"] == ""


def test_check_reports_a_leader_stuck_past_its_lease() -> None:
    clock, api, _ = setup()
    flaky = FlakyApi(api)

    async def main() -> list[str | None]:
        a = LeaderElector(flaky, clock, config("a"), rng=random.Random(1))
        await a.try_acquire_or_renew()
        tolerance = timedelta(seconds=20)
        seen = [a.check(tolerance)]
        flaky.failing = True
        await asyncio.sleep(35)
        seen.append(a.check(tolerance))
        await asyncio.sleep(1)
        seen.append(a.check(tolerance))
        return seen

    assert run_virtual(main(), start=START) == [
        None,
        None,
        "failed election to renew leadership on lease podscale-controller-manager",
    ]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"lease_duration": timedelta(seconds=10)},
            "leaseDuration must be greater than renewDeadline",
        ),
        (
            {"retry_period": timedelta(seconds=9)},
            "renewDeadline must be greater than retryPeriod*JitterFactor",
        ),
        ({"retry_period": timedelta(0)}, "retryPeriod must be greater than zero"),
        ({"identity": ""}, "Lock identity is empty"),
    ],
    ids=[
        "lease-duration-not-above-renew-deadline",
        "renew-deadline-not-above-jittered-retry",
        "zero-retry-period",
        "empty-identity",
    ],
)
def test_config_checked_as_new_leader_elector(fields: JSON, message: str) -> None:
    values: JSON = {"lease_name": "l", "lease_namespace": "ns", "identity": "a", **fields}
    with pytest.raises(ValueError, match=message.replace("*", r"\*")):
        LeaderElectionConfig(**values)


ACTIONS = st.sampled_from(["start", "kill", "partition", "heal"])


@settings(max_examples=25, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.floats(0.0, 25.0), st.integers(0, 2), ACTIONS), min_size=1, max_size=25
    ),
    seed=st.integers(0, 2**16),
)
def test_never_two_candidates_act_at_once(steps: list[tuple[float, int, str]], seed: int) -> None:
    """Three slots of candidates (each restart a new identity, as a new pod), killed with or
    without release, partitioned from the API server and healed at random."""
    clock, api, log = setup()
    rng = random.Random(seed)
    flaky = [FlakyApi(api) for _ in range(3)]
    tasks: list[asyncio.Task[None] | None] = [None, None, None]
    incarnation = [0, 0, 0]

    def start(slot: int, release: bool) -> None:
        incarnation[slot] += 1
        identity = f"c{slot}-{incarnation[slot]}"
        elector = LeaderElector(
            flaky[slot], clock, config(identity, release_on_cancel=release), rng=rng
        )
        tasks[slot] = asyncio.create_task(elector.run(log.lead(identity)))

    async def main() -> float:
        for slot in range(3):
            start(slot, rng.random() < 0.5)
        for advance, slot, action in steps:
            await asyncio.sleep(advance)
            task = tasks[slot]
            running = task is not None and not task.done()
            if action == "start" and not running:
                start(slot, rng.random() < 0.5)
            elif action == "kill" and task is not None:
                await stop(task)  # released or not as the incarnation's config says
            elif action == "partition":
                flaky[slot].failing = True
            elif action == "heal":
                flaky[slot].failing = False
        await asyncio.sleep(60)
        end = clock.elapsed()
        for task in tasks:
            if task is not None:
                await stop(task)
        return end

    end = run_virtual(main(), start=START) or 0.0
    intervals = log.intervals(end)
    for (_, stop_a, who_a), (start_b, _, who_b) in itertools.pairwise(intervals):
        assert start_b >= stop_a, (who_a, stop_a, who_b, start_b)


def test_electors_over_http_and_in_process_share_one_lease() -> None:
    """The same election through the HTTP API (JSON on the wire, the server's 409s as
    ``ApiError``) and in-process: one leads, and the HTTP one takes over after a release."""
    clock = VirtualClock(START)
    app = create_app(MemoryStore(clock), clock=clock)
    log = Log(clock)

    async def main() -> tuple[str, JSON]:
        asgi = httpx.ASGITransport(app=app)
        async with HttpApi(Connection(server="http://test"), transport=asgi) as http:
            over_http = LeaderElector(http, clock, config("h"), rng=random.Random(1))
            in_process = LeaderElector(
                InProcessApi.for_app(app), clock, config("i"), rng=random.Random(2)
            )
            task_i = asyncio.create_task(in_process.run(log.lead("i")))
            task_h = asyncio.create_task(over_http.run(log.lead("h")))
            await asyncio.sleep(20)
            first = over_http.leader
            await stop(task_i)
            await asyncio.sleep(20)
            spec = await lease_spec(InProcessApi.for_app(app))
            await stop(task_h)
            return first, spec

    first, spec = run_virtual(main(), start=START) or ("", {})
    assert first == "i"
    assert spec["holderIdentity"] == "h"
    assert spec["leaseTransitions"] == 1
    assert 20 < log.first("h", "start") <= 20 + MAX_RETRY_WAIT
