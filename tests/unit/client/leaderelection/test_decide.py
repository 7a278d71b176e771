"""One round of client-go's tryAcquireOrRenew as pure decisions, the local-clock rule for
expiry, and the invariant that candidates sharing a clock never both hold a live lease."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.client.leaderelection.decide import (
    Acquire,
    Create,
    Decision,
    Observation,
    Renew,
    Wait,
    decide,
    is_lease_valid,
    observe,
    released,
    renewal,
)
from podscale.client.leaderelection.record import LeaderElectionRecord

T0 = datetime(2026, 2, 1, tzinfo=UTC)
LEASE = timedelta(seconds=15)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def held(holder: str, *, transitions: int = 3, duration: int = 15) -> LeaderElectionRecord:
    # Times far in the past and future on purpose: only the local observed time counts.
    return LeaderElectionRecord(
        holder_identity=holder,
        lease_duration_seconds=duration,
        acquire_time=at(-1000),
        renew_time=at(10_000),
        lease_transitions=transitions,
    )


@pytest.mark.parametrize(
    ("current", "observed_at", "now", "expected"),
    [
        (
            None,
            at(0),
            at(0),
            Create(LeaderElectionRecord("me", 15, at(0), at(0), 0)),
        ),
        (held("other"), at(0), at(14.9), Wait("other")),
        (
            held("other"),
            at(0),
            at(15),
            Acquire(LeaderElectionRecord("me", 15, at(15), at(15), 4)),
        ),
        (
            held("other", duration=60),
            at(0),
            at(30),
            Wait("other"),
        ),
        (
            held("", transitions=4, duration=1),
            at(0),
            at(0.5),
            Acquire(LeaderElectionRecord("me", 15, at(0.5), at(0.5), 5)),
        ),
        (
            held("me"),
            at(0),
            at(5),
            Renew(LeaderElectionRecord("me", 15, at(-1000), at(5), 3)),
        ),
        (
            held("me"),
            at(0),
            at(100),
            Renew(LeaderElectionRecord("me", 15, at(-1000), at(100), 3)),
        ),
        (
            held("me", duration=60),
            at(0),
            at(5),
            Renew(LeaderElectionRecord("me", 15, at(-1000), at(5), 3)),
        ),
    ],
    ids=[
        "not-found-creates-with-zero-transitions",
        "held-by-another-not-expired-by-local-clock-waits",
        "expired-observed-time-plus-duration-acquires-new-term",
        "record-lease-duration-not-ours-decides-expiry",
        "released-empty-holder-acquired-at-once",
        "own-lease-renewed-keeps-acquire-time-and-transitions",
        "own-expired-lease-still-renewed-not-reacquired",
        "renewal-writes-our-configured-duration",
    ],
)
def test_decide_is_client_go_try_acquire_or_renew(
    current: LeaderElectionRecord | None,
    observed_at: datetime,
    now: datetime,
    expected: Decision,
) -> None:
    assert decide(current, observed_at, now, "me", LEASE) == expected


@pytest.mark.parametrize(
    ("previous", "read", "expected_observed_at"),
    [
        (None, held("other"), at(7)),
        (Observation(held("other"), at(1)), held("other"), at(1)),
        (Observation(held("other"), at(1)), held("other", transitions=9), at(7)),
    ],
    ids=[
        "first-read-observed-now",
        "unchanged-record-keeps-first-observed-time",
        "changed-record-restarts-observed-time",
    ],
)
def test_observe_moves_only_when_the_record_changes(
    previous: Observation | None, read: LeaderElectionRecord, expected_observed_at: datetime
) -> None:
    assert observe(previous, read, at(7)).observed_at == expected_observed_at


def test_expiry_ignores_the_renew_time_written_by_a_skewed_clock() -> None:
    # The holder's clock is an hour ahead; its renewTime says nothing to us.
    skewed = LeaderElectionRecord("other", 15, at(3600), at(3600), 0)
    assert is_lease_valid(Observation(skewed, at(0)), at(14))
    assert not is_lease_valid(Observation(skewed, at(0)), at(15))


def test_release_empties_holder_with_one_second_lease_keeping_transitions() -> None:
    assert released(held("me", transitions=6), at(3)) == LeaderElectionRecord(
        "", 1, at(3), at(3), 6
    )


def test_renewal_truncates_duration_to_whole_seconds() -> None:
    renewed = renewal(held("me"), at(1), timedelta(seconds=15.9))
    assert renewed.lease_duration_seconds == 15
    assert renewed.renew_time == at(1)


@dataclass
class Candidate:
    name: str
    observation: Observation | None = None
    leading_until: datetime | None = None  # when it must stop acting (renew deadline)


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 2), st.floats(0.0, 20.0), st.booleans()),
        min_size=1,
        max_size=60,
    )
)
def test_never_two_leaders_with_live_leases_on_a_shared_clock(
    steps: list[tuple[int, float, bool]],
) -> None:
    """Candidates take turns reading and (atomically, as a conditional update would) writing
    one record, some rounds lost to failures. Whoever holds a term by its own view may only
    act until its own observed time + duration; no two such windows overlap."""
    candidates = [Candidate(f"c{i}") for i in range(3)]
    stored: LeaderElectionRecord | None = None
    now = T0
    windows: list[tuple[str, datetime, datetime]] = []
    for index, advance, fails in steps:
        now += timedelta(seconds=advance)
        me = candidates[index]
        if fails:
            continue  # the round's request failed: nothing read, nothing written
        if stored is not None:
            me.observation = observe(me.observation, stored, now)
        observed_at = me.observation.observed_at if me.observation else now
        decision = decide(stored, observed_at, now, me.name, LEASE)
        if isinstance(decision, Wait):
            continue
        stored = decision.record
        me.observation = Observation(stored, now)
        windows.append((me.name, now, now + LEASE))
    for i, (name_a, start_a, end_a) in enumerate(windows):
        for name_b, start_b, _ in windows[i + 1 :]:
            if name_b != name_a:
                # Another candidate may only take over once our window has ended.
                assert start_b >= end_a, (name_a, start_a, end_a, name_b, start_b)
