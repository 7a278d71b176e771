"""The election record in a Lease's spec: MicroTime times, zero values for absent fields,
and updates that keep the read object's metadata and the spec fields the record does not
own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from podscale.client.leaderelection.record import (
    LeaderElectionRecord,
    lease_for,
    record_from_lease,
    updated_lease,
)

T0 = datetime(2026, 2, 1, 8, 30, 5, 250_000, tzinfo=UTC)
RECORD = LeaderElectionRecord("node-a_1234", 15, T0, T0 + timedelta(seconds=2), 3)


def test_lease_for_writes_micro_times_in_utc() -> None:
    assert lease_for("kcm", "kube-system", RECORD) == {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "kcm", "namespace": "kube-system"},
        "spec": {
            "holderIdentity": "node-a_1234",
            "leaseDurationSeconds": 15,
            "acquireTime": "2026-02-01T08:30:05.250000Z",
            "renewTime": "2026-02-01T08:30:07.250000Z",
            "leaseTransitions": 3,
        },
    }


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, LeaderElectionRecord()),
        (
            {
                "holderIdentity": "b",
                "leaseDurationSeconds": 40,
                "acquireTime": "2026-02-01T10:30:05.250000+02:00",
                "renewTime": "2026-02-01T08:30:05.250000Z",
                "leaseTransitions": 2,
            },
            LeaderElectionRecord("b", 40, T0, T0, 2),
        ),
        ({"holderIdentity": None, "renewTime": "never"}, LeaderElectionRecord()),
    ],
    ids=["empty-spec-zero-values", "full-spec-any-offset", "null-and-unparsable-as-absent"],
)
def test_record_from_lease(spec: dict[str, Any], expected: LeaderElectionRecord) -> None:
    assert record_from_lease({"spec": spec}) == expected


def test_record_round_trips_through_a_lease() -> None:
    assert record_from_lease(lease_for("kcm", "kube-system", RECORD)) == RECORD
    other_zone = RECORD.acquire_time.astimezone(timezone(timedelta(hours=-5)))  # type: ignore[union-attr]
    assert record_from_lease(lease_for("n", "ns", RECORD)).acquire_time == other_zone


def test_updated_lease_keeps_metadata_and_foreign_spec_fields() -> None:
    read = lease_for("kcm", "kube-system", RECORD)
    read["metadata"]["resourceVersion"] = "42"
    read["spec"]["strategy"] = "OldestEmulationVersion"
    released = LeaderElectionRecord("", 1, T0, T0, 3)
    updated = updated_lease(read, released)
    assert updated["metadata"]["resourceVersion"] == "42"
    assert updated["spec"]["strategy"] == "OldestEmulationVersion"
    assert updated["spec"]["holderIdentity"] == ""
    assert record_from_lease(updated) == released
    assert read["spec"]["holderIdentity"] == "node-a_1234"  # the caller's copy untouched
