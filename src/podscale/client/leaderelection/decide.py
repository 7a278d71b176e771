"""What one round of client-go's ``tryAcquireOrRenew`` does, as pure functions.

The elector (``podscale.client.leaderelection.elector``) reads the Lease, then asks:

- ``observe``: the record it holds now and *when it first saw it* by its own clock. client-go
  never trusts the times written in the record (another machine's clock wrote them); only a
  change of the record proves the holder alive, so the observed time moves only when the
  record changes.
- ``decide``: given the record read (``None``: no Lease), whether to create the Lease, take it
  over (``Acquire``: a new term, ``leaseTransitions`` + 1), renew our own term (``Renew``:
  ``acquireTime`` and transitions kept), or wait for the current holder (``Wait``).
- ``is_lease_valid``: a lease is live while ``observed time + leaseDurationSeconds`` (the
  duration the record itself asks for) is after ``now``, both by the local clock.
- ``renewal``/``released``: the record of the optimistic renewal and of a release (no holder,
  a one-second lease, so the others take over at their next try).

Records are ``podscale.client.leaderelection.record.LeaderElectionRecord``. No I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from podscale.client.leaderelection.record import LeaderElectionRecord

__all__ = [
    "Acquire",
    "Create",
    "Decision",
    "Observation",
    "Renew",
    "Wait",
    "decide",
    "is_lease_valid",
    "lease_duration_seconds",
    "new_term",
    "observe",
    "released",
    "renewal",
]


@dataclass(frozen=True)
class Observation:
    """The record last seen and the local time it was first seen in this state."""

    record: LeaderElectionRecord
    observed_at: datetime


@dataclass(frozen=True)
class Create:
    """No Lease exists: create it holding ``record`` (a 409 means another won the race)."""

    record: LeaderElectionRecord


@dataclass(frozen=True)
class Acquire:
    """The lock is free or expired: take it over with ``record`` (a new term)."""

    record: LeaderElectionRecord


@dataclass(frozen=True)
class Renew:
    """We hold the lock: write ``record`` (same term, new renew time)."""

    record: LeaderElectionRecord


@dataclass(frozen=True)
class Wait:
    """``holder`` holds a lease that has not expired by our clock: do nothing this round."""

    holder: str


Decision = Create | Acquire | Renew | Wait


def lease_duration_seconds(lease_duration: timedelta) -> int:
    # client-go stores int(LeaseDuration / time.Second): whole seconds, truncated.
    return int(lease_duration.total_seconds())


def new_term(identity: str, now: datetime, lease_duration: timedelta) -> LeaderElectionRecord:
    """The record of a term starting at ``now`` (transitions as for a brand-new Lease)."""
    return LeaderElectionRecord(
        holder_identity=identity,
        lease_duration_seconds=lease_duration_seconds(lease_duration),
        acquire_time=now,
        renew_time=now,
        lease_transitions=0,
    )


def observe(
    previous: Observation | None, record: LeaderElectionRecord, now: datetime
) -> Observation:
    """The observation after reading ``record`` at ``now``: unchanged records keep the time
    they were first seen (the holder has shown no sign of life since)."""
    if previous is not None and previous.record == record:
        return previous
    return Observation(record, now)


def is_lease_valid(observation: Observation, now: datetime) -> bool:
    """Whether the observed holder's lease still runs at ``now`` by the local clock."""
    duration = timedelta(seconds=observation.record.lease_duration_seconds)
    return observation.observed_at + duration > now


def renewal(
    record: LeaderElectionRecord, now: datetime, lease_duration: timedelta
) -> LeaderElectionRecord:
    """Our own ``record`` renewed at ``now``: the term's acquire time and transitions kept."""
    return replace(
        record,
        lease_duration_seconds=lease_duration_seconds(lease_duration),
        renew_time=now,
    )


def decide(
    current: LeaderElectionRecord | None,
    observed_at: datetime,
    now: datetime,
    identity: str,
    lease_duration: timedelta,
) -> Decision:
    """The slow path of ``tryAcquireOrRenew`` once the Lease was read.

    ``current`` is the record read (``None``: the Lease does not exist) and ``observed_at``
    when it was first seen in that state (``observe``); ``now`` is when this round began.
    """
    if current is None:
        return Create(new_term(identity, now, lease_duration))
    held_by_us = current.holder_identity == identity
    live = is_lease_valid(Observation(current, observed_at), now)
    if current.holder_identity and live and not held_by_us:
        return Wait(current.holder_identity)
    if held_by_us:
        return Renew(renewal(current, now, lease_duration))
    # Free (released: no holder) or expired: a new term, counted as a transition.
    taken = new_term(identity, now, lease_duration)
    return Acquire(replace(taken, lease_transitions=current.lease_transitions + 1))


def released(record: LeaderElectionRecord, now: datetime) -> LeaderElectionRecord:
    """client-go's release: no holder, a one-second lease, both times ``now``, the
    transition count unchanged (the next holder's takeover counts)."""
    return LeaderElectionRecord(
        holder_identity="",
        lease_duration_seconds=1,
        acquire_time=now,
        renew_time=now,
        lease_transitions=record.lease_transitions,
    )
