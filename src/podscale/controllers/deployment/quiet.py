"""Repeats of a quiet Deployment sync: a sync that only asked to look again.

A scaled Deployment whose new pods are not yet available, with a Progressing condition of
reason NewReplicaSetAvailable older than its deadline, ends each sync in upstream's
``requeueStuckDeployment`` with a rate-limited requeue and nothing else: no write, no event,
no read. Upstream's default controller rate limiter (10 per second after a burst of 100)
then syncs it again and again until the pods are available, thousands of syncs per scale-up
in a long replay, each reading the same objects.

``QuietSyncs`` remembers such a sync by the identity of its inputs: the cached Deployment
and the claimable ReplicaSets, in order (informer caches replace an object on every change
and never change one in place, so the same objects mean the same stored states). A sync of
the same inputs reaches the same outcome, which the controller then repeats without the
work (``podscale.controllers.deployment.controller``), and without even listing them
while the ReplicaSet cache has not changed since (``QuietSyncs.unchanged``): every step
of the rolling sync is a function of those objects, except the clock, which it reads in
two places only. The status computed on the complete path (``status.rollout_status``
with ``replicas == updatedReplicas`` and the stored Progressing reason
NewReplicaSetAvailable: no progress estimate) takes timestamps only for conditions that
change, and none did; and ``status.requeue_after``'s time left before the deadline only
shrinks, so "under a second" stays so. Only that path is remembered (``quiet_outcome``);
a sync that called the API, recorded an event, or took another branch is not.

``CallCounter`` is how the controller knows a sync called nothing: it stands in for the API
client and the event recorder during the sync and counts every attribute taken from them
(a method taken is a call about to be made; counting more than the calls only forgoes a
repeat).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podscale.controllers.deployment import conditions as cond

__all__ = ["CallCounter", "QuietSyncs", "quiet_outcome"]


class CallCounter:
    """Counts the attributes taken from ``target`` (its calls), passing them through."""

    def __init__(self, target: object) -> None:
        self._target = target
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        self.calls += 1
        return getattr(self._target, name)


def quiet_outcome(deployment: Mapping[str, Any]) -> bool:
    """Whether a rate-limited requeue of ``deployment`` (with this stored status, equal to
    the one the sync computed) came from the complete path, whose repeats need no clock."""
    status = deployment.get("status") or {}
    progressing = cond.get_condition(status.get("conditions") or [], cond.PROGRESSING)
    return (
        progressing is not None
        and progressing.get("reason") == cond.NEW_RS_AVAILABLE
        and status.get("replicas") == status.get("updatedReplicas")
    )


class QuietSyncs:
    """The last quiet sync per key: its Deployment and ReplicaSets, held (so their ids stay
    theirs) and compared by identity, and the ReplicaSet cache's change count then.

    ``unchanged`` is the cheap test, made before the sync reads anything else: the same
    cached Deployment and a ReplicaSet cache that has not changed since (``Lister.changes``)
    give the same claimable ReplicaSets, which are a function of those alone.
    ``repeats`` is the general one, after the claimable ReplicaSets were listed."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[object, tuple[object, ...], int]] = {}

    def unchanged(self, key: str, deployment: object, changes: int) -> bool:
        """Whether the last sync of ``key`` was quiet, of this very Deployment, with the
        ReplicaSet cache at the same change count."""
        last = self._last.get(key)
        return last is not None and last[0] is deployment and last[2] == changes

    def repeats(self, key: str, deployment: object, replica_sets: Sequence[object]) -> bool:
        """Whether a sync of these very objects was quiet last time."""
        last = self._last.get(key)
        if last is None or last[0] is not deployment or len(last[1]) != len(replica_sets):
            return False
        return all(a is b for a, b in zip(last[1], replica_sets, strict=True))

    def remember(
        self, key: str, deployment: object, replica_sets: Sequence[object], changes: int
    ) -> None:
        self._last[key] = (deployment, tuple(replica_sets), changes)

    def forget(self, key: str) -> None:
        self._last.pop(key, None)

    def __len__(self) -> int:
        return len(self._last)
