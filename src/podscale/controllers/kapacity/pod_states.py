"""Which pods a ReplicaProfile moves between Online, Cutoff, Standby and Deleted: pure.

A pod's state is its ``kind.POD_STATE_LABEL`` (absent, empty or unknown reads Online, as
Kapacity assumes). Only running pods count (Kapacity's ``IsPodRunning``: phase Running and
not being deleted); ``classify`` sorts them by state.

``plan_state_change`` is Kapacity's state manager over plain names. The states are walked
in the order Online, Cutoff, Standby, Deleted. A state short of pods takes them from the
states after it, nearest first (never from Deleted, which holds none), picking from the end
of the sort order, i.e. the pods the workload would keep longest; a state with a surplus
hands it to the next state only, picking from the front of the sort order (the pods the
workload would delete first), so a surplus cascades: an Online pod can end in Standby or
Deleted in one plan. Pods already handed on count towards the receiving state, so each pod
lands in at most one set. The sort order is the caller's (``pod_sorter``: first = first to
scale down); it covers every running pod. Names in each result set keep that order, where
Kapacity's (a Go set) is unordered.

Used by ``rp_controller``; the counts come from ``replicaprofile.ReplicaProfileSpec``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from podscale.controllers.kapacity.kind import POD_STATE_LABEL
from podscale.controllers.kapacity.types import PodState

__all__ = [
    "Classified",
    "Desired",
    "PodState",
    "StateChange",
    "allowed_online",
    "classify",
    "is_running",
    "plan_state_change",
    "state_of",
]


_ORDERED: Final = (PodState.ONLINE, PodState.CUTOFF, PodState.STANDBY, PodState.DELETED)


@dataclass(frozen=True, slots=True)
class Classified:
    """The names of the running pods in each state."""

    online: tuple[str, ...] = ()
    cutoff: tuple[str, ...] = ()
    standby: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(self.online) + len(self.cutoff) + len(self.standby)


@dataclass(frozen=True, slots=True)
class Desired:
    online: int = 0
    cutoff: int = 0
    standby: int = 0


@dataclass(frozen=True, slots=True)
class StateChange:
    """The pods to move into each state (Delete: the workload should remove them)."""

    online: tuple[str, ...] = ()
    cutoff: tuple[str, ...] = ()
    standby: tuple[str, ...] = ()
    delete: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.online or self.cutoff or self.standby or self.delete)


def state_of(labels: Mapping[str, Any] | None) -> PodState:
    """The state a pod's labels declare; anything but Cutoff or Standby is Online."""
    value = (labels or {}).get(POD_STATE_LABEL)
    if value == PodState.CUTOFF:
        return PodState.CUTOFF
    if value == PodState.STANDBY:
        return PodState.STANDBY
    return PodState.ONLINE


def is_running(pod: Mapping[str, Any]) -> bool:
    """Phase Running and no ``deletionTimestamp``."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return (pod.get("status") or {}).get("phase") == "Running"


def classify(pods: Iterable[Mapping[str, Any]]) -> Classified:
    """The running ``pods`` by state, each in input order."""
    found: dict[PodState, list[str]] = {state: [] for state in _ORDERED}
    for pod in pods:
        if is_running(pod):
            metadata = pod.get("metadata") or {}
            found[state_of(metadata.get("labels"))].append(str(metadata.get("name") or ""))
    return Classified(
        tuple(found[PodState.ONLINE]), tuple(found[PodState.CUTOFF]), tuple(found[PodState.STANDBY])
    )


def plan_state_change(current: Classified, desired: Desired, order: Sequence[str]) -> StateChange:
    """The moves that bring ``current`` to ``desired`` (see the module docstring).

    ``order`` ranks the pods, first = first to scale down; a running pod missing from it
    ranks after all that are in it, by name.
    """
    rank = {name: index for index, name in enumerate(order)}
    last = len(rank)

    def key(name: str) -> tuple[int, str]:
        return (rank.get(name, last), name)

    held: dict[PodState, set[str]] = {
        PodState.ONLINE: set(current.online),
        PodState.CUTOFF: set(current.cutoff),
        PodState.STANDBY: set(current.standby),
        PodState.DELETED: set(),
    }
    moved_in: dict[PodState, set[str]] = {state: set() for state in _ORDERED}
    wanted = {
        PodState.ONLINE: desired.online,
        PodState.CUTOFF: desired.cutoff,
        PodState.STANDBY: desired.standby,
        PodState.DELETED: 0,
    }

    def pick(count: int, pool: set[str], *, keep_longest: bool) -> list[str]:
        ranked = sorted(pool, key=key, reverse=keep_longest)
        return ranked[: max(count, 0)]

    for index, state in enumerate(_ORDERED):
        diff = len(held[state]) + len(moved_in[state]) - wanted[state]
        if diff < 0:
            # Short: take from the later states (not Deleted), nearest first.
            for donor in _ORDERED[index + 1 : -1]:
                if diff >= 0:
                    break
                taken = pick(-diff, held[donor], keep_longest=True)
                moved_in[state].update(taken)
                held[donor].difference_update(taken)
                diff += len(taken)
        elif diff > 0 and index < len(_ORDERED) - 1:
            # Surplus: hand it to the next state; what Deleted receives has no target.
            receiver = _ORDERED[index + 1]
            given = pick(diff, held[state] | moved_in[state], keep_longest=False)
            moved_in[receiver].update(given)
            held[state].difference_update(given)
            moved_in[state].difference_update(given)

    def names(state: PodState) -> tuple[str, ...]:
        return tuple(sorted(moved_in[state], key=key))

    return StateChange(
        names(PodState.ONLINE),
        names(PodState.CUTOFF),
        names(PodState.STANDBY),
        names(PodState.DELETED),
    )


def allowed_online(direction: str, wanted: int, online: int) -> int:
    """The online count a ReplicaProfile may ask for, given its ``allowedScalingDirection``
    (Kapacity: "it only cares about online replicas"; podscale enforces it, Kapacity's
    reconciler only declares it): ``Both`` any, ``Neither`` the pods online now, ``Up``
    no fewer and ``Down`` no more than those."""
    if direction == "Neither":
        return online
    if direction == "Up":
        return max(wanted, online)
    if direction == "Down":
        return min(wanted, online)
    return wanted
