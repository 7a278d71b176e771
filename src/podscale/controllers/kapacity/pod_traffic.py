"""The pod writes of the ReplicaProfile controller: the readiness gate and the state label.

Kapacity's ReadinessGate traffic controller turns a pod's traffic on or off by setting the
pod condition ``kind.READINESS_GATE_ONLINE`` True or False; a pod whose spec lists that
condition type in ``readinessGates`` is Ready only while it is True, so Services route to
it only then (the kubelet's side: ``runtime.simulated.pod_status.update_readiness``). The
condition is written only when it is missing or its status differs, with the transition
time ``now`` and no reason, as Kapacity's ``UpdatePodCondition``; podscale sends it as a
strategic merge patch of ``pods/status`` keyed by condition type, so a concurrent kubelet
write of other conditions is not undone. ``set_state`` writes ``kind.POD_STATE_LABEL``
(removed for Online). ``needs_online_gate`` picks the running Online pods that declare the
gate but have no condition yet (a podscale addition, see ``rp_controller``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.controllers.kapacity.kind import POD_STATE_LABEL, READINESS_GATE_ONLINE
from podscale.controllers.kapacity.pod_states import PodState, is_running, state_of
from podscale.controllers.kapacity.reading import format_time
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi

__all__ = ["POD", "declares_gate", "gate_status", "needs_online_gate", "set_gate", "set_state"]

POD: Final = kind_for("v1", "Pod")
_MERGE_PATCH: Final = "application/merge-patch+json"


def _meta(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("metadata") or {}


def gate_status(pod: Mapping[str, Any]) -> str | None:
    """The status of the pod's online condition; None when it has none."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == READINESS_GATE_ONLINE:
            return str(condition.get("status"))
    return None


def declares_gate(pod: Mapping[str, Any]) -> bool:
    gates = (pod.get("spec") or {}).get("readinessGates") or ()
    return any(g.get("conditionType") == READINESS_GATE_ONLINE for g in gates)


def needs_online_gate(pod: Mapping[str, Any]) -> bool:
    """A running Online pod that declares the gate but has no condition for it yet."""
    return (
        is_running(pod)
        and state_of(_meta(pod).get("labels")) is PodState.ONLINE
        and declares_gate(pod)
        and gate_status(pod) is None
    )


async def set_gate(api: ControllerApi, pod: Mapping[str, Any], on: bool, now: datetime) -> None:
    """Set the online condition True (``on``) or False, unless it already is."""
    status = "True" if on else "False"
    if gate_status(pod) == status:
        return
    condition = {
        "type": READINESS_GATE_ONLINE,
        "status": status,
        "lastProbeTime": None,
        "lastTransitionTime": format_time(now),
    }
    await api.patch(
        POD,
        str(_meta(pod).get("namespace") or ""),
        str(_meta(pod).get("name") or ""),
        {"status": {"conditions": [condition]}},
        content_type=STRATEGIC_MERGE_PATCH,
        subresource="status",
    )


async def set_state(api: ControllerApi, pod: Mapping[str, Any], state: PodState) -> None:
    """Label the pod with ``state`` (Online: no label)."""
    value = None if state is PodState.ONLINE else str(state)
    await api.patch(
        POD,
        str(_meta(pod).get("namespace") or ""),
        str(_meta(pod).get("name") or ""),
        {"metadata": {"labels": {POD_STATE_LABEL: value}}},
        content_type=_MERGE_PATCH,
    )
