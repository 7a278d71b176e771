"""The leader election record and its home in a ``coordination.k8s.io/v1`` Lease.

``LeaderElectionRecord`` is client-go's ``resourcelock.LeaderElectionRecord``: who holds the
lock, for how long a holder's silence is tolerated, when it was acquired and last renewed,
and how many times it changed hands. A Lease keeps it in ``spec`` (``holderIdentity``,
``leaseDurationSeconds``, ``acquireTime``, ``renewTime``, ``leaseTransitions``), the two
times as ``metav1.MicroTime`` (RFC 3339 with six fraction digits, UTC).

Pure: ``podscale.client.leaderelection.decide`` reasons over records,
``podscale.client.leaderelection.elector`` reads and writes them through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.timestamps import format_micro_time, parse_time_or_none

__all__ = [
    "LEASE_API_VERSION",
    "LeaderElectionRecord",
    "lease_for",
    "lease_spec_for",
    "record_from_lease",
    "updated_lease",
]

JSON = dict[str, Any]
LEASE_API_VERSION: Final = "coordination.k8s.io/v1"
# The spec fields the record owns; any other (``strategy``, ``preferredHolder``) is kept.
_RECORD_FIELDS: Final = (
    "holderIdentity",
    "leaseDurationSeconds",
    "acquireTime",
    "renewTime",
    "leaseTransitions",
)


@dataclass(frozen=True)
class LeaderElectionRecord:
    """One state of the lock. An absent field reads as client-go's zero value ("" or 0 or
    no time), so a Lease someone else made by hand is still a record."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: datetime | None = None
    renew_time: datetime | None = None
    lease_transitions: int = 0


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def record_from_lease(lease: JSON) -> LeaderElectionRecord:
    """The record a Lease's spec holds (``LeaseSpecToLeaderElectionRecord``)."""
    spec = lease.get("spec") or {}
    holder = spec.get("holderIdentity")
    return LeaderElectionRecord(
        holder_identity=holder if isinstance(holder, str) else "",
        lease_duration_seconds=_int(spec.get("leaseDurationSeconds")),
        acquire_time=parse_time_or_none(spec.get("acquireTime")),
        renew_time=parse_time_or_none(spec.get("renewTime")),
        lease_transitions=_int(spec.get("leaseTransitions")),
    )


def lease_spec_for(record: LeaderElectionRecord) -> JSON:
    """The spec fields of ``record`` (``LeaderElectionRecordToLeaseSpec``): every field is
    written, an empty holder included, which is how a released lock reads."""
    spec: JSON = {
        "holderIdentity": record.holder_identity,
        "leaseDurationSeconds": record.lease_duration_seconds,
        "leaseTransitions": record.lease_transitions,
    }
    if record.acquire_time is not None:
        spec["acquireTime"] = format_micro_time(record.acquire_time)
    if record.renew_time is not None:
        spec["renewTime"] = format_micro_time(record.renew_time)
    return spec


def lease_for(name: str, namespace: str, record: LeaderElectionRecord) -> JSON:
    """A new Lease holding ``record`` (what the lock creates when there is none)."""
    return {
        "apiVersion": LEASE_API_VERSION,
        "kind": "Lease",
        "metadata": {"name": name, "namespace": namespace},
        "spec": lease_spec_for(record),
    }


def updated_lease(lease: JSON, record: LeaderElectionRecord) -> JSON:
    """``lease`` (as last read or written, so its resourceVersion makes the update
    conditional) holding ``record`` instead; the caller's object is not changed."""
    updated = copy_json(lease)
    spec = {k: v for k, v in (updated.get("spec") or {}).items() if k not in _RECORD_FIELDS}
    spec.update(lease_spec_for(record))
    updated["spec"] = spec
    return updated
