"""Which pods a StatefulSet claims: adoption and release, restricted to its members.

Upstream's ``getPodsForStatefulSet`` (pkg/controller/statefulset/stateful_set.go) runs
``PodControllerRefManager.ClaimPods`` (pkg/controller/controller_ref_manager.go) with one
extra filter, ``isMemberOf``: a pod "matches" only when the selector matches *and* its name
is ``<set>-<ordinal>``. So an orphan named otherwise is never adopted, and an owned pod
that is renamed-away or stops matching the selector is released. A set being deleted adopts
and releases nothing; a terminating orphan, or one in another namespace, is not adopted.
The patches are strategic-merge patches with the pod's uid as precondition.
Neighbours: ``identity`` (membership, the ownerReference); the I/O is in ``pod_control``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from podscale.api.selectors import selector_from_label_selector
from podscale.controllers import runtime_owners
from podscale.controllers.statefulset.identity import controller_ref, is_member

__all__ = ["ClaimAction", "adoption_patch", "claim_action", "release_patch"]

ClaimAction = Literal["keep", "adopt", "release", "ignore"]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _controller_uid(pod: Mapping[str, Any]) -> str | None:
    for ref in _meta(pod).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return str(ref.get("uid", ""))
    return None


def _matches(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    selector = selector_from_label_selector((sts.get("spec") or {}).get("selector"))
    return selector.matches(_meta(pod).get("labels") or {}) and is_member(sts, pod)


def claim_action(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> ClaimAction:
    """What the set does about ``pod``; only kept and adopted pods are its replicas.

    Raises ``ValueError`` for an invalid selector (the caller checks it first)."""
    deleting = bool(_meta(sts).get("deletionTimestamp"))
    owner = _controller_uid(pod)
    if owner is not None:
        if owner != str(_meta(sts).get("uid", "")):
            return "ignore"
        if _matches(sts, pod):
            return "keep"
        return "ignore" if deleting else "release"
    if deleting or not _matches(sts, pod) or _meta(pod).get("deletionTimestamp"):
        return "ignore"
    if (_meta(pod).get("namespace") or "") != (_meta(sts).get("namespace") or ""):
        return "ignore"
    return "adopt"


def adoption_patch(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch making the StatefulSet ``sts`` the pod's controller."""
    return runtime_owners.adoption_patch(controller_ref(sts), pod)


def release_patch(sts: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch removing the ownerReference to ``sts`` from the pod."""
    return runtime_owners.release_patch(sts, pod)
