"""Portrait merge by priority and expiry, the clamp with ScalingLimited, and the Cron
portrait's window rule, time zones, expiry and errors."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.cron_portrait import (
    CronPortraitError,
    ReplicaCron,
    cron_portrait,
)
from podscale.controllers.kapacity.portraits import (
    PortraitOffer,
    PortraitValue,
    clamp_replicas,
    merge_portraits,
    static_portrait,
)

NOW = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
LATER = NOW + dt.timedelta(minutes=5)


def offer(
    priority: int, replicas: int | None, provider: str = "p", expire: dt.datetime | None = None
) -> PortraitOffer:
    value = None if replicas is None else PortraitValue(provider, replicas, expire)
    return PortraitOffer(priority, value)


MERGE_CASES = [
    ("no-providers", [], None),
    ("no-values-offered", [offer(1, None), offer(2, None)], None),
    ("single-value", [offer(0, 4, "a")], "a"),
    ("higher-priority-wins-over-more-replicas", [offer(1, 10, "a"), offer(2, 3, "b")], "b"),
    ("higher-priority-first-listed", [offer(2, 3, "b"), offer(1, 10, "a")], "b"),
    ("equal-priority-ties-to-larger", [offer(1, 3, "a"), offer(1, 7, "b")], "b"),
    ("equal-priority-equal-replicas-keeps-first", [offer(1, 5, "a"), offer(1, 5, "b")], "a"),
    ("expired-value-skipped", [offer(9, 10, "a", NOW), offer(1, 2, "b")], "b"),
    ("expiry-in-future-counts", [offer(9, 10, "a", LATER), offer(1, 2, "b")], "a"),
    ("all-expired", [offer(1, 3, "a", NOW - dt.timedelta(seconds=1))], None),
    ("negative-priority-still-first-candidate", [offer(-5, 2, "a")], "a"),
]


@pytest.mark.parametrize(
    ("offers", "provider"), [c[1:] for c in MERGE_CASES], ids=[c[0] for c in MERGE_CASES]
)
def test_merge_portraits_follows_kapacity_priority_rule(
    offers: list[PortraitOffer], provider: str | None
) -> None:
    chosen = merge_portraits(offers, NOW)
    assert (chosen.provider if chosen else None) == provider


@given(
    st.lists(
        st.tuples(st.integers(-3, 3), st.one_of(st.none(), st.integers(0, 50)), st.booleans()),
        max_size=8,
    )
)
def test_merge_picks_a_live_value_of_top_priority_and_most_replicas(
    raw: list[tuple[int, int | None, bool]],
) -> None:
    offers = [
        offer(p, r, f"p{i}", NOW if expired else None) for i, (p, r, expired) in enumerate(raw)
    ]
    live = [o for o in offers if o.value is not None and o.value.unexpired(NOW)]
    chosen = merge_portraits(offers, NOW)
    if not live:
        assert chosen is None
        return
    top = max(o.priority for o in live)
    most = max(o.value.replicas for o in live if o.priority == top and o.value)
    assert chosen is not None
    assert chosen.replicas == most
    assert any(o.value is chosen and o.priority == top for o in live)


CLAMP_CASES = [
    ("within-range", 5, 2, 10, 5, "False", "DesiredWithinRange"),
    ("at-min", 2, 2, 10, 2, "False", "DesiredWithinRange"),
    ("at-max", 10, 2, 10, 10, "False", "DesiredWithinRange"),
    ("below-min", 1, 2, 10, 2, "True", "TooFewReplicas"),
    ("above-max", 11, 2, 10, 10, "True", "TooManyReplicas"),
    ("zero-max-allowed", 3, 0, 0, 0, "True", "TooManyReplicas"),
    ("min-above-max-max-checked-last", 1, 5, 3, 3, "True", "TooManyReplicas"),
]


@pytest.mark.parametrize(
    ("replicas", "low", "high", "want", "status", "reason"),
    [c[1:] for c in CLAMP_CASES],
    ids=[c[0] for c in CLAMP_CASES],
)
def test_clamp_reports_scaling_limited(
    replicas: int, low: int, high: int, want: int, status: str, reason: str
) -> None:
    clamped = clamp_replicas(replicas, low, high)
    assert clamped.replicas == want
    assert (clamped.limited.type, clamped.limited.status) == ("ScalingLimited", status)
    assert clamped.limited.reason == reason


def test_clamp_messages_are_kapacitys() -> None:
    assert clamp_replicas(0, 1, 3).limited.message == (
        "the desired replica count of current portrait value is less than the minimum replica count"
    )
    assert clamp_replicas(9, 1, 3).limited.message == (
        "the desired replica count of current portrait value is more than the maximum replica count"
    )
    assert clamp_replicas(2, 1, 3).limited.message == (
        "the desired replica count of current portrait value is within the acceptable range"
    )


@given(st.integers(0, 1000), st.integers(0, 500), st.integers(0, 500))
def test_clamp_never_leaves_the_range(replicas: int, a: int, b: int) -> None:
    low, high = min(a, b), max(a, b)
    assert low <= clamp_replicas(replicas, low, high).replicas <= high


def test_static_portrait_never_expires() -> None:
    value = static_portrait(7)
    assert value == PortraitValue("Static", 7, None)
    assert value.unexpired(dt.datetime(9999, 1, 1, tzinfo=dt.UTC))


DAY = ReplicaCron("day", "0 8 * * *", "0 20 * * *", 10)


def test_cron_portrait_active_rule_expires_at_next_end() -> None:
    value = cron_portrait([DAY], NOW)
    assert value == PortraitValue("Cron", 10, dt.datetime(2026, 5, 4, 20, tzinfo=dt.UTC))


@pytest.mark.parametrize(
    ("now", "active"),
    [
        (dt.datetime(2026, 5, 4, 7, 59, 59, tzinfo=dt.UTC), False),
        (dt.datetime(2026, 5, 4, 8, tzinfo=dt.UTC), True),
        (dt.datetime(2026, 5, 4, 20, tzinfo=dt.UTC), False),
    ],
    ids=["before-start", "at-start-fire-time", "at-end-fire-time"],
)
def test_cron_portrait_window_boundaries(now: dt.datetime, active: bool) -> None:
    assert (cron_portrait([DAY], now) is not None) is active


def test_cron_rule_reads_its_fields_in_its_own_time_zone() -> None:
    # 12:00 UTC is 21:00 in Tokyo: outside 08:00-20:00 there, inside it in UTC.
    tokyo = ReplicaCron("day", DAY.start, DAY.end, 10, time_zone="Asia/Tokyo")
    assert cron_portrait([tokyo], NOW) is None
    morning = dt.datetime(2026, 5, 4, 0, tzinfo=dt.UTC)  # 09:00 in Tokyo
    value = cron_portrait([tokyo], morning)
    assert value is not None
    assert value.expire_time == dt.datetime(2026, 5, 4, 11, tzinfo=dt.UTC)


def test_cron_rule_whose_end_never_fires_never_expires() -> None:
    rule = ReplicaCron("forever", "0 8 * * *", "0 0 30 2 *", 3)
    assert cron_portrait([rule], NOW) == PortraitValue("Cron", 3, None)


def test_cron_no_active_rule_offers_nothing() -> None:
    night = ReplicaCron("night", "0 22 * * *", "0 6 * * *", 1)
    assert cron_portrait([night], NOW) is None


CRON_ERRORS = [
    (
        "overlapping-rules",
        [DAY, ReplicaCron("noon", "0 11 * * *", "0 13 * * *", 4)],
        'found overlapping cron "day" and "noon"',
    ),
    (
        "unknown-time-zone",
        [ReplicaCron("x", DAY.start, DAY.end, 1, time_zone="Mars/Olympus")],
        'failed to load time zone of cron "x": unknown time zone Mars/Olympus',
    ),
    (
        "bad-start-spec",
        [ReplicaCron("x", "0 8 * *", DAY.end, 1)],
        'failed to check active for cron "x": failed to parse start cron "0 8 * *": '
        "expected exactly 5 fields, found 4: [0 8 * *]",
    ),
    (
        "bad-end-spec",
        [ReplicaCron("x", DAY.start, "0 20 * * * *", 1)],
        'failed to check active for cron "x": failed to parse end cron "0 20 * * * *": '
        "expected exactly 5 fields, found 6: [0 20 * * * *]",
    ),
]


@pytest.mark.parametrize(
    ("rules", "message"), [c[1:] for c in CRON_ERRORS], ids=[c[0] for c in CRON_ERRORS]
)
def test_cron_portrait_errors_carry_kapacitys_messages(
    rules: list[ReplicaCron], message: str
) -> None:
    with pytest.raises(CronPortraitError) as caught:
        cron_portrait(rules, NOW)
    assert str(caught.value) == message
