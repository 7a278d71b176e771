"""Rate limiters: backoff, fixed beat, token bucket and their combination."""

from __future__ import annotations

from datetime import timedelta

import pytest

from podscale.client.ratelimit import (
    ExponentialFailureRateLimiter,
    FixedIntervalRateLimiter,
    MaxOfRateLimiter,
    TokenBucketRateLimiter,
    default_controller_rate_limiter,
)
from podscale.testing import FakeClock


def test_exponential_backoff_doubles_and_caps() -> None:
    limiter = ExponentialFailureRateLimiter(timedelta(milliseconds=5), timedelta(seconds=1))
    delays = [limiter.when("a").total_seconds() for _ in range(10)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1.0
    assert limiter.num_requeues("a") == 10
    assert limiter.when("b") == timedelta(milliseconds=5)  # per item
    limiter.forget("a")
    assert limiter.when("a") == timedelta(milliseconds=5)


def test_backoff_survives_huge_failure_counts() -> None:
    limiter = ExponentialFailureRateLimiter()
    for _ in range(2000):
        delay = limiter.when("x")
    assert delay == timedelta(seconds=1000)


def test_token_bucket_allows_a_burst_then_paces() -> None:
    clock = FakeClock()
    bucket = TokenBucketRateLimiter(clock, qps=10, burst=3)
    assert [bucket.when(i) for i in range(3)] == [timedelta(0)] * 3
    assert bucket.when(3) == timedelta(seconds=0.1)
    assert bucket.when(4) == timedelta(seconds=0.2)
    clock.advance(1)
    assert bucket.when(5) == timedelta(0)


@pytest.mark.parametrize("failures", [1, 5, 40], ids=["first", "fifth", "many"])
def test_default_limiter_is_the_slower_of_both(failures: int) -> None:
    limiter = default_controller_rate_limiter(FakeClock())
    for _ in range(failures):
        delay = limiter.when("key")
    expected = min(0.005 * 2 ** (failures - 1), 1000.0)
    assert delay.total_seconds() == pytest.approx(expected)
    assert limiter.num_requeues("key") == failures


def test_max_of_fixed_interval() -> None:
    fixed = FixedIntervalRateLimiter(timedelta(seconds=15))
    combined = MaxOfRateLimiter((fixed, ExponentialFailureRateLimiter()))
    assert combined.when("hpa") == timedelta(seconds=15)
    combined.forget("hpa")
    assert combined.num_requeues("hpa") == 0
