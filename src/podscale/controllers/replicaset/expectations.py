"""Expectations: what a controller is still waiting to see in its informer after acting.

Mirrors upstream's ``ControllerExpectations``/``UIDTrackingControllerExpectations``
(pkg/controller/controller_utils.go). Before creating ``n`` pods the controller expects
``n`` creations; each pod add event observes one. Until both counts reach zero the
ReplicaSet is not re-synced, so a slow watch never causes a second round of creates. An
expectation older than five minutes counts as satisfied, so a lost event cannot wedge the
controller. A key with no record is satisfied (a fresh controller syncs immediately).
Deletions are tracked per pod key, so a pod observed deleted twice lowers the count once.
``now`` is always passed in; this class reads no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Final

__all__ = ["EXPECTATIONS_TIMEOUT", "ExpectationRecord", "Expectations"]

EXPECTATIONS_TIMEOUT: Final = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class ExpectationRecord:
    """Outstanding creations and deletions for one controller key, set at ``timestamp``."""

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

    def get(self, key: str) -> ExpectationRecord | None:
        """The record for ``key``, if any."""
        return self._records.get(key)

    def expect_creations(self, key: str, count: int, *, now: datetime) -> None:
        """Replace ``key``'s record: ``count`` creations outstanding, none of deletions."""
        self._records[key] = ExpectationRecord(add=count, delete=0, timestamp=now)

    def expect_deletions(self, key: str, pod_keys: list[str], *, now: datetime) -> None:
        """Replace ``key``'s record: the deletion of each of ``pod_keys`` is outstanding."""
        pods = frozenset(pod_keys)
        self._records[key] = ExpectationRecord(
            add=0, delete=len(pods), timestamp=now, deleting_pods=pods
        )

    def creation_observed(self, key: str) -> None:
        """A pod add event (or a create that failed and will never be seen)."""
        record = self._records.get(key)
        if record is not None:
            self._records[key] = replace(record, add=record.add - 1)

    def deletion_observed(self, key: str, pod_key: str) -> None:
        """A pod delete event (or a delete that failed); only the first per pod counts."""
        record = self._records.get(key)
        if record is not None and pod_key in record.deleting_pods:
            self._records[key] = replace(
                record, delete=record.delete - 1, deleting_pods=record.deleting_pods - {pod_key}
            )

    def satisfied(self, key: str, *, now: datetime) -> bool:
        """Whether the controller may sync ``key``: fulfilled, expired, or never set."""
        record = self._records.get(key)
        if record is None:
            return True
        return record.fulfilled() or now - record.timestamp > self.timeout

    def delete(self, key: str) -> None:
        """Forget ``key`` (its ReplicaSet is gone)."""
        self._records.pop(key, None)
