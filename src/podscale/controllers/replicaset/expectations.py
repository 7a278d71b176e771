"""Expectations: what a controller is still waiting to see in its informer after acting.

Mirrors upstream's ``ControllerExpectations``/``UIDTrackingControllerExpectations``
(pkg/controller/controller_utils.go). Before creating ``n`` pods the controller expects
``n`` creations; each pod add event observes one. Until both counts reach zero the
ReplicaSet is not re-synced, so a slow watch never causes a second round of creates. An
expectation older than five minutes counts as satisfied, so a lost event cannot wedge the
controller. A key with no record is satisfied (a fresh controller syncs immediately).
Deletions are tracked per pod key, so a pod observed deleted twice lowers the count once.
As upstream, the pod keys live beside the counts (``UIDTrackingControllerExpectations``
wraps ``ControllerExpectations``): expecting creations resets the counts but not the keys
still awaited from an earlier round of deletions, so such a pod, when finally observed,
still lowers the (then negative) deletion count. ``now`` is always passed in; this class
reads no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Final

__all__ = ["EXPECTATIONS_TIMEOUT", "ExpectationRecord", "Expectations"]

EXPECTATIONS_TIMEOUT: Final = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class ExpectationRecord:
    """Outstanding creations and deletions for one controller key, set at ``timestamp``;
    ``deleting_pods`` are the keys of the pods whose deletion is still awaited."""

    add: int
    delete: int
    timestamp: datetime
    deleting_pods: frozenset[str] = frozenset()

    def fulfilled(self) -> bool:
        """Every expected creation and deletion was observed."""
        return self.add <= 0 and self.delete <= 0


@dataclass
class Expectations:
    """Expectations per controller key (``namespace/name``)."""

    timeout: timedelta = EXPECTATIONS_TIMEOUT
    _records: dict[str, ExpectationRecord] = field(default_factory=dict)
    _deleting: dict[str, frozenset[str]] = field(default_factory=dict)

    def get(self, key: str) -> ExpectationRecord | None:
        """The record for ``key``, if any, with the pod keys whose deletion is awaited."""
        record = self._records.get(key)
        if record is None:
            return None
        return replace(record, deleting_pods=self._deleting.get(key, frozenset()))

    def expect_creations(self, key: str, count: int, *, now: datetime) -> None:
        """Replace ``key``'s counts: ``count`` creations outstanding, no deletions."""
        self._records[key] = ExpectationRecord(add=count, delete=0, timestamp=now)

    def expect_deletions(self, key: str, pod_keys: list[str], *, now: datetime) -> None:
        """Replace ``key``'s counts and awaited pods: each of ``pod_keys`` to be deleted."""
        pods = frozenset(pod_keys)
        self._deleting[key] = pods
        self._records[key] = ExpectationRecord(add=0, delete=len(pods), timestamp=now)

    def creation_observed(self, key: str) -> None:
        """A pod add event (or a create that failed and will never be seen)."""
        self._lower(key, add=1, delete=0)

    def deletion_observed(self, key: str, pod_key: str) -> None:
        """A pod delete event (or a delete that failed); only the first per awaited pod
        counts, and a pod that was never awaited counts not at all."""
        pods = self._deleting.get(key, frozenset())
        if pod_key in pods:
            self._deleting[key] = pods - {pod_key}
            self._lower(key, add=0, delete=1)

    def satisfied(self, key: str, *, now: datetime) -> bool:
        """Whether the controller may sync ``key``: fulfilled, expired, or never set."""
        record = self._records.get(key)
        if record is None:
            return True
        return record.fulfilled() or now - record.timestamp > self.timeout

    def delete(self, key: str) -> None:
        """Forget ``key`` (its ReplicaSet is gone), counts and awaited pods alike."""
        self._records.pop(key, None)
        self._deleting.pop(key, None)

    def _lower(self, key: str, *, add: int, delete: int) -> None:
        # Upstream's LowerExpectations: a no-op without a record; counts may go negative.
        record = self._records.get(key)
        if record is not None:
            self._records[key] = replace(
                record, add=record.add - add, delete=record.delete - delete
            )
