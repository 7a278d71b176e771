"""Rate limiters: backoff, fixed beat, token bucket and their combination."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def _backoff_formula(base: timedelta, maximum: timedelta, failures: int) -> timedelta:
    """The delay computed afresh for one failure count (what the memo must equal)."""
    seconds = base.total_seconds() * 2.0 ** min(failures, 1000)
    return maximum if seconds >= maximum.total_seconds() else timedelta(seconds=seconds)


@given(
    base_us=st.integers(min_value=1, max_value=10**7),
    maximum_s=st.integers(min_value=1, max_value=10**5),
    keys=st.lists(st.sampled_from(["a", "b", "c"]), max_size=60),
)
def test_memoized_backoff_equals_the_formula_per_item(
    base_us: int, maximum_s: int, keys: list[str]
) -> None:
    base, maximum = timedelta(microseconds=base_us), timedelta(seconds=maximum_s)
    limiter = ExponentialFailureRateLimiter(base, maximum)
    failures: dict[str, int] = {}
    for key in keys:
        assert limiter.when(key) == _backoff_formula(base, maximum, failures.get(key, 0))
        failures[key] = failures.get(key, 0) + 1
        if failures[key] % 7 == 0:
            limiter.forget(key)
            failures[key] = 0
        assert limiter.num_requeues(key) == failures[key]


@pytest.mark.parametrize(
    ("field", "value"),
    [("base", timedelta(milliseconds=7)), ("maximum", timedelta(milliseconds=12))],
    ids=["base-changed", "maximum-changed"],
)
def test_the_backoff_memo_follows_a_changed_field(field: str, value: timedelta) -> None:
    limiter = ExponentialFailureRateLimiter(timedelta(milliseconds=5), timedelta(seconds=1))
    assert [limiter.when("a") for _ in range(3)][-1] == timedelta(milliseconds=20)
    limiter.forget("a")
    setattr(limiter, field, value)
    delays = [limiter.when("a") for _ in range(3)]
    assert delays == [_backoff_formula(limiter.base, limiter.maximum, n) for n in range(3)]


def test_backoff_memo_stays_bounded_past_the_exponent_cap() -> None:
    limiter = ExponentialFailureRateLimiter(timedelta(microseconds=1), timedelta.max)
    for _ in range(1500):
        delay = limiter.when("x")
    assert delay == timedelta.max  # 2**1000 µs is far past timedelta's range: capped
    assert len(limiter._delays) <= 1001


class _Fixed:
    """A limiter with a given delay (negative ones too), to test MaxOf's choice."""

    def __init__(self, seconds: float) -> None:
        self.delay = timedelta(seconds=seconds)

    def when(self, item: Hashable) -> timedelta:
        return self.delay

    def forget(self, item: Hashable) -> None:
        pass

    def num_requeues(self, item: Hashable) -> int:
        return 0


@given(st.lists(st.integers(min_value=-5, max_value=5), max_size=5))
def test_max_of_is_the_largest_delay_or_zero_without_limiters(delays: list[int]) -> None:
    combined = MaxOfRateLimiter(tuple(_Fixed(seconds) for seconds in delays))
    expected = max((timedelta(seconds=s) for s in delays), default=timedelta(0))
    assert combined.when("k") == expected


@given(steps=st.lists(st.integers(min_value=0, max_value=300_000), max_size=150))
def test_token_bucket_matches_a_float_model(steps: list[int]) -> None:
    # Microsecond steps between calls, zero included (several calls in one instant).
    clock = FakeClock()
    bucket = TokenBucketRateLimiter(clock, qps=10, burst=5)
    tokens, last = 5.0, None
    for step in steps:
        clock.advance(step / 1e6)
        now = clock.now()
        if last is not None:
            tokens = min(5.0, tokens + (now - last).total_seconds() * 10)
        last = now
        tokens -= 1.0
        expected = timedelta(0) if tokens >= 0 else timedelta(seconds=-tokens / 10)
        assert bucket.when("any") == expected


@pytest.mark.parametrize("qps", [10.0, 3.0, 0.7], ids=["default", "odd", "slow"])
def test_token_bucket_waits_equal_the_formula_while_remembered(qps: float) -> None:
    """One key requeued as soon as it is let through keeps the bucket empty: the same wait
    over and over, then a drift of many distinct waits (more than the memo holds, so it is
    emptied and refilled). Each wait equals ``timedelta(seconds=...)`` computed afresh."""
    clock = FakeClock()
    bucket = TokenBucketRateLimiter(clock, qps=qps, burst=3)
    tokens, last = 3.0, None
    for i in range(400):
        now = clock.now()
        if last is not None:
            tokens = min(3.0, tokens + (now - last).total_seconds() * qps)
        last = now
        tokens -= 1.0
        expected = timedelta(0) if tokens >= 0 else timedelta(seconds=-tokens / qps)
        delay = bucket.when("key")
        assert delay == expected
        # Half the time early by a varying few microseconds: waits that differ.
        early = timedelta(microseconds=i % 97 if i % 2 else 0)
        clock.advance(max(delay - early, timedelta(0)))
    assert 0 < len(bucket._delays) <= 64
