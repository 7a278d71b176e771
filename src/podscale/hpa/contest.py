"""Who else writes the target's ``spec.replicas``: observing a fight with the autoscaler.

Beyond upstream (kubernetes#25238): when a manifest applier (``kubectl apply``, a GitOps
controller) keeps resetting ``spec.replicas`` of a workload an HPA scales, the workload
flaps between the two values and nothing says why. The HPA controller
(``podscale.controllers.hpa``) keeps a ``ContestState`` per HPA and calls, each sync:

- ``needs_owners``: whether the replicas read through ``/scale`` moved away from the value
  last accounted for (this autoscaler's own write, or a write already observed); only then
  does the controller read the target object for its ``metadata.managedFields`` (``/scale``
  carries none), so a quiet HPA costs no extra read;
- ``observe``: the writer of the new value from those entries (plain JSON, the ``fieldsV1``
  encoding): the newest entry owning ``f:spec.f:replicas`` other than the autoscaler's own
  ``{<its manager>, subresource scale}``. A value written under the autoscaler's own
  identity (another in-process scaler such as a CronHPA or KEDA sharing
  ``kube-controller-manager``) is not a fight, nor is a move to or from ``0`` (scaling
  disabled on purpose, and enabled again: the HPA does not write back). A target
  carrying no managedFields at all (a server that keeps none) still reports the change,
  by an unknown writer;
- ``settle``: the observed write judged by the decision that followed it (the autoscaler
  would undo it: contested; it agrees: accepted, and no fight);
- ``record_own_write``: after this autoscaler's own ``/scale`` write.

``contest_verdict`` turns the state into the condition, event and trace entry; the state
travels as the ``REPLICAS_WRITES_STATE`` document (``contest_to_dict``/``contest_from_dict``).
Pure: ``now`` is a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from podscale.api.timestamps import format_time, parse_time_or_none

__all__ = [
    "AUTOSCALER_MANAGER",
    "MAX_WRITES",
    "REPLICAS_WRITES_STATE",
    "SCALE_SUBRESOURCE",
    "ContestState",
    "ContestTrace",
    "ReplicasWrite",
    "contest_from_dict",
    "contest_to_dict",
    "needs_owners",
    "observe",
    "record_own_write",
    "replicas_owners",
    "settle",
]

# The name of the state document (under the HPA's uid) holding its ``ContestState``;
# ``podscale describe hpa`` reads it to list the last writes.
REPLICAS_WRITES_STATE: Final = "hpa/replicas-writes"
# kube-controller-manager's user-agent prefix: the manager of every write its controllers
# make, the HPA's ``/scale`` writes included (those carry subresource ``scale``).
AUTOSCALER_MANAGER: Final = "kube-controller-manager"
SCALE_SUBRESOURCE: Final = "scale"
# How many observed writes the state keeps (``describe`` lists them; the loop needs two).
MAX_WRITES: Final = 10


class ReplicasWrite(NamedTuple):
    """One write of ``spec.replicas`` by someone other than the autoscaler."""

    manager: str  # "" when no managedFields entry of the target names one: unknown
    operation: str  # "Apply" or "Update" ("" when unknown)
    subresource: str  # "" (the object itself) or "scale"
    time: str  # the managedFields entry's time, else when the autoscaler saw it (RFC 3339)
    replicas: int  # the value written
    replaced: int | None = None  # the value it replaced (what the autoscaler had set)
    # Whether the autoscaler disagreed with the value (``settle``): only those are a fight.
    contested: bool = True


class ContestTrace(NamedTuple):
    """The decision trace's account of a fight (``DecisionTrace.contest``)."""

    reason: str  # the condition's and event's reason
    message: str
    manager: str  # the last writer ("" unknown)
    writes_in_window: int  # that manager's writes inside the window
    last: ReplicasWrite
    observed: bool = False  # the last write was first seen in this sync


class ContestState(NamedTuple):
    """What one HPA remembers about its target's replicas."""

    expected: int | None = None  # the value accounted for; None before the first sync
    hpa_replicas: int | None = None  # the autoscaler's own last write and its time
    hpa_time: str | None = None
    writes: tuple[ReplicasWrite, ...] = ()  # observed writes, oldest first, bounded


def _owns_replicas(entry: Mapping[str, Any]) -> bool:
    fields = entry.get("fieldsV1")
    if not isinstance(fields, Mapping):
        return False
    spec = fields.get("f:spec")
    return isinstance(spec, Mapping) and "f:replicas" in spec


def replicas_owners(managed_fields: Sequence[Any]) -> list[Mapping[str, Any]]:
    """The ``managedFields`` entries owning ``spec.replicas``, in list order."""
    return [e for e in managed_fields if isinstance(e, Mapping) and _owns_replicas(e)]


def _is_own(entry: Mapping[str, Any], own_manager: str) -> bool:
    return (
        entry.get("manager") == own_manager
        and (entry.get("subresource") or "") == SCALE_SUBRESOURCE
    )


def _entry_time(entry: Mapping[str, Any]) -> datetime:
    return parse_time_or_none(entry.get("time")) or datetime.min.replace(tzinfo=UTC)


def needs_owners(state: ContestState, replicas: int) -> bool:
    """Whether ``replicas`` (read now) is a change nobody has been accounted for yet.

    Not at the first sight (nothing expected yet), nor to or from 0: upstream's HPA leaves
    a target scaled to zero alone (``ScalingDisabled``), so disabling it and enabling it
    again are deliberate, not a fight."""
    expected = state.expected
    return expected is not None and replicas != expected and 0 not in (replicas, expected)


def observe(
    state: ContestState,
    *,
    replicas: int,
    managed_fields: Sequence[Any] | None,
    now: datetime,
    own_manager: str = AUTOSCALER_MANAGER,
) -> tuple[ContestState, ReplicasWrite | None]:
    """The state after reading ``replicas`` (and, when ``needs_owners``, the target's
    ``managedFields``: None or empty when it carries none), and the write observed."""
    if not needs_owners(state, replicas):
        return state._replace(expected=replicas), None
    owners = replicas_owners(managed_fields or ())
    foreign = [e for e in owners if not _is_own(e, own_manager)]
    if managed_fields and not foreign and owners:
        # Written under the autoscaler's own identity: not a fight.
        return state._replace(expected=replicas), None
    if foreign:
        # Several owners share a value applied alike; the newest entry is the last writer
        # (an Update removes every other manager's ownership of a value it changes).
        entry = max(foreign, key=_entry_time)
        write = ReplicasWrite(
            manager=str(entry.get("manager") or ""),
            operation=str(entry.get("operation") or ""),
            subresource=str(entry.get("subresource") or ""),
            time=str(entry.get("time") or format_time(now)),
            replicas=replicas,
            replaced=state.expected,
        )
    else:
        write = ReplicasWrite("", "", "", format_time(now), replicas, state.expected)
    writes = (*state.writes, write)[-MAX_WRITES:]
    return state._replace(expected=replicas, writes=writes), write


def settle(
    state: ContestState, write: ReplicasWrite, *, contested: bool
) -> tuple[ContestState, ReplicasWrite]:
    """``write`` (the last one observed) judged by the decision that followed it: contested
    when the autoscaler would undo it, accepted otherwise (a CronHPA raising the target to
    the HPA's new minimum, a ``kubectl scale`` to what the metrics want anyway)."""
    if write.contested == contested or not state.writes or state.writes[-1] != write:
        return state, write
    settled = write._replace(contested=contested)
    return state._replace(writes=(*state.writes[:-1], settled)), settled


def record_own_write(state: ContestState, replicas: int, now: datetime) -> ContestState:
    """The state after the autoscaler itself wrote ``replicas`` through ``/scale``."""
    return state._replace(expected=replicas, hpa_replicas=replicas, hpa_time=format_time(now))


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def contest_to_dict(state: ContestState) -> dict[str, Any]:
    """The ``REPLICAS_WRITES_STATE`` document of ``state``."""
    document: dict[str, Any] = {"expectedReplicas": state.expected}
    if state.hpa_replicas is not None:
        document["lastAutoscalerWrite"] = {"replicas": state.hpa_replicas, "time": state.hpa_time}
    document["writes"] = [
        {
            "manager": w.manager,
            "operation": w.operation,
            "subresource": w.subresource,
            "time": w.time,
            "replicas": w.replicas,
            "replaced": w.replaced,
            "contested": w.contested,
        }
        for w in state.writes
    ]
    return document


def contest_from_dict(document: Any) -> ContestState:
    """The state a stored document holds; an unreadable part is dropped (never raises)."""
    if not isinstance(document, Mapping):
        return ContestState()
    own = document.get("lastAutoscalerWrite")
    own = own if isinstance(own, Mapping) else {}
    writes = []
    for item in document.get("writes") or ():
        if not isinstance(item, Mapping) or _int_or_none(item.get("replicas")) is None:
            continue
        writes.append(
            ReplicasWrite(
                manager=str(item.get("manager") or ""),
                operation=str(item.get("operation") or ""),
                subresource=str(item.get("subresource") or ""),
                time=str(item.get("time") or ""),
                replicas=int(item["replicas"]),
                replaced=_int_or_none(item.get("replaced")),
                contested=item.get("contested") is not False,
            )
        )
    hpa_time = own.get("time")
    return ContestState(
        expected=_int_or_none(document.get("expectedReplicas")),
        hpa_replicas=_int_or_none(own.get("replicas")),
        hpa_time=hpa_time if isinstance(hpa_time, str) else None,
        writes=tuple(writes[-MAX_WRITES:]),
    )
