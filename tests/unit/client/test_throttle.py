"""``podscale.client.throttle`` and ``HttpApi``'s client-side throttling: client-go's token
bucket (``flowcontrol.NewTokenBucketRateLimiter``) with ``rest.Config``'s defaults, shared by
every request of one client except a watch's first attempt. Time is fake throughout."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kinds import kind_for
from podscale.client.connection import Connection
from podscale.client.http import HttpApi
from podscale.client.throttle import (
    CONTROLLER_MANAGER_LIMITS,
    KUBECTL_DISCOVERY_LIMITS,
    Bucket,
    Limits,
    TokenBucket,
    resolve_limits,
    take,
)

PODS = kind_for("v1", "Pod")


class FakeTime:
    """A monotonic clock that moves only when something sleeps on it."""

    def __init__(self, *, frozen: bool = False) -> None:
        self.now = 0.0
        self.frozen = frozen  # sleeping records the wait but does not move the clock
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if not self.frozen:
            self.now += seconds


def _ok(request: httpx.Request) -> httpx.Response:
    if request.url.params.get("watch") == "true":
        return httpx.Response(200, content=b'{"type":"ADDED","object":{"metadata":{}}}\n')
    return httpx.Response(200, json={"kind": "PodList", "items": [], "metadata": {}})


def _api(time: FakeTime, **kwargs: object) -> HttpApi:
    return HttpApi(
        Connection("http://podscale"),
        transport=httpx.MockTransport(_ok),
        now=time.time,
        sleep=time.sleep,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("qps", "burst", "expected"),
    [
        (None, None, Limits(5.0, 10)),
        (0, 0, Limits(5.0, 10)),
        (20.0, 30, Limits(20.0, 30)),
        (50.0, None, Limits(50.0, 10)),
        (-1.0, None, None),
        (-1.0, 100, None),
    ],
    ids=[
        "unset takes rest.Config's 5 qps and burst 10",
        "zero means unset as in rest.Config",
        "kube-controller-manager's 20/30 kept",
        "burst unset alone takes the default",
        "negative qps disables the limiter",
        "negative qps disables it whatever the burst",
    ],
)
def test_resolve_limits(qps: float | None, burst: int | None, expected: Limits | None) -> None:
    assert resolve_limits(qps, burst) == expected


def test_a_negative_burst_is_refused() -> None:
    with pytest.raises(ValueError, match="burst"):
        resolve_limits(5.0, -1)


def test_named_limits_are_upstream_defaults() -> None:
    assert Limits(20.0, 30) == CONTROLLER_MANAGER_LIMITS
    assert Limits(50.0, 300) == KUBECTL_DISCOVERY_LIMITS


@pytest.mark.parametrize(
    ("arrivals", "delays"),
    [
        ([0.0] * 3, [0.0, 0.0, 0.0]),
        ([0.0] * 5, [0.0, 0.0, 0.0, 0.5, 1.0]),
        ([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]),
        ([0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 10.0], [0, 0, 0, 0.5, 0, 0, 0, 0.5]),
    ],
    ids=[
        "a full bucket lets burst requests through at once",
        "past the burst each caller waits its turn 1/qps apart",
        "tokens refill at qps",
        "refill stops at burst",
    ],
)
def test_take(arrivals: list[float], delays: list[float]) -> None:
    limits = Limits(qps=2.0, burst=3)
    bucket: Bucket | None = None
    got = []
    for now in arrivals:
        bucket, delay = take(bucket, now, limits)
        got.append(delay)
    assert got == pytest.approx(delays)


@given(
    qps=st.floats(min_value=0.1, max_value=100),
    burst=st.integers(min_value=1, max_value=50),
    gaps=st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=80),
)
def test_no_window_gets_more_than_burst_plus_qps_times_its_length(
    qps: float, burst: int, gaps: list[float]
) -> None:
    limits = Limits(qps=qps, burst=burst)
    bucket: Bucket | None = None
    now = 0.0
    starts = []
    for gap in gaps:
        now += gap
        bucket, delay = take(bucket, now, limits)
        starts.append(now + delay)
    assert starts == sorted(starts)  # served in arrival order
    for i, first in enumerate(starts):
        for j in range(i, len(starts)):
            allowed = burst + qps * (starts[j] - first)
            assert j - i + 1 <= allowed + 1e-6


def test_the_token_bucket_waits_through_the_injected_sleep() -> None:
    time = FakeTime()
    bucket = TokenBucket(Limits(qps=4.0, burst=1), now=time.time, sleep=time.sleep)

    async def main() -> list[float]:
        return [await bucket.wait() for _ in range(3)]

    assert asyncio.run(main()) == [0.0, 0.25, 0.25]
    assert time.sleeps == [0.25, 0.25]


def test_an_http_api_throttles_at_client_go_defaults_when_unset() -> None:
    time = FakeTime()

    async def main() -> None:
        async with _api(time) as api:
            for _ in range(15):
                await api.list(PODS, "default")

    asyncio.run(main())
    assert time.sleeps == pytest.approx([0.2] * 5)  # 10 at once, then 5 a second


def test_concurrent_requests_share_one_bucket() -> None:
    time = FakeTime(frozen=True)  # all four arrive at the same instant

    async def main() -> None:
        async with _api(time, qps=10.0, burst=2) as api:
            await asyncio.gather(*(api.get(PODS, "default", f"p{i}") for i in range(4)))

    asyncio.run(main())
    # Reservations are taken in order before anyone sleeps: the 3rd waits 0.1 s, the 4th 0.2 s.
    assert sorted(time.sleeps) == pytest.approx([0.1, 0.2])


def test_a_negative_qps_never_waits() -> None:
    time = FakeTime()

    async def main() -> None:
        async with _api(time, qps=-1.0) as api:
            for _ in range(50):
                await api.list(PODS)

    asyncio.run(main())
    assert time.sleeps == []


def test_a_watch_is_not_throttled() -> None:
    time = FakeTime()

    async def main() -> list[str]:
        async with _api(time, qps=1.0, burst=1) as api:
            await api.list(PODS)  # the only token
            return [kind async for kind, _ in api.watch(PODS)]

    assert asyncio.run(main()) == ["ADDED"]
    assert time.sleeps == []


def test_discovery_reads_use_their_own_bucket_when_given() -> None:
    time = FakeTime()

    async def main() -> None:
        async with _api(time, qps=1.0, burst=1, discovery_limits=Limits(50.0, 300)) as api:
            await api.list(PODS)
            for path in ("/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version"):
                await api.request("GET", path)

    asyncio.run(main())
    assert time.sleeps == []


def test_discovery_reads_share_the_client_bucket_by_default() -> None:
    time = FakeTime()

    async def main() -> None:
        async with _api(time, qps=1.0, burst=1) as api:
            await api.list(PODS)
            await api.request("GET", "/apis")

    asyncio.run(main())
    assert time.sleeps == [1.0]
