"""Adoption and release: how a ReplicaSet relates to a pod, and the patches that change it.

Mirrors upstream's ``PodControllerRefManager.ClaimPods``/``ClaimObject``
(pkg/controller/controller_ref_manager.go): a pod whose controller ownerReference names
another uid belongs to someone else; one controlled by this ReplicaSet is kept while its
labels match and released once they stop matching; an orphan (no *controller* reference,
even if it lists the ReplicaSet as a plain owner) is adopted when it matches. Neither
adoption nor release happens while the ReplicaSet is being deleted, and a terminating
orphan or one in another namespace is never adopted. ``replica_sets_for_pod`` is the
lister's ``GetPodReplicaSets``, used to wake the ReplicaSets that might adopt an orphan.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from podscale.api.selectors import SelectorError, selector_from_label_selector
from podscale.controllers import runtime_owners
from podscale.controllers.replicaset.template import controller_ref

__all__ = [
    "ClaimAction",
    "Ownership",
    "adoption_patch",
    "claim_action",
    "classify_ownership",
    "release_patch",
    "replica_sets_for_pod",
]

Ownership = Literal[
    "owned", "orphan-match", "owned-no-longer-matching", "other-controller", "unrelated"
]
ClaimAction = Literal["keep", "adopt", "release", "ignore"]


def _controller_uid(pod: Mapping[str, Any]) -> str | None:
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return str(ref.get("uid", ""))
    return None


def _matches(rs: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    selector = selector_from_label_selector((rs.get("spec") or {}).get("selector"))
    return selector.matches((pod.get("metadata") or {}).get("labels") or {})


def classify_ownership(rs: Mapping[str, Any], pod: Mapping[str, Any]) -> Ownership:
    """Where ``pod`` stands relative to ``rs``, from ownerReferences and the selector."""
    controller = _controller_uid(pod)
    rs_meta = rs.get("metadata") or {}
    if controller is not None:
        if controller != str(rs_meta.get("uid", "")):
            return "other-controller"
        return "owned" if _matches(rs, pod) else "owned-no-longer-matching"
    pod_meta = pod.get("metadata") or {}
    if pod_meta.get("namespace", "") != rs_meta.get("namespace", ""):
        return "unrelated"
    if pod_meta.get("deletionTimestamp") or not _matches(rs, pod):
        return "unrelated"
    return "orphan-match"


def claim_action(rs: Mapping[str, Any], pod: Mapping[str, Any]) -> ClaimAction:
    """What the controller does about ``pod``: keep it, adopt, release, or ignore it.

    Only kept and adopted pods count as the ReplicaSet's replicas. A ReplicaSet being
    deleted keeps what it controls but adopts and releases nothing.
    """
    ownership = classify_ownership(rs, pod)
    deleting = bool((rs.get("metadata") or {}).get("deletionTimestamp"))
    if ownership == "owned":
        return "keep"
    if ownership == "orphan-match" and not deleting:
        return "adopt"
    if ownership == "owned-no-longer-matching" and not deleting:
        return "release"
    return "ignore"


def adoption_patch(rs: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch making the ReplicaSet ``rs`` the pod's controller."""
    return runtime_owners.adoption_patch(controller_ref(rs), pod)


def release_patch(rs: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Any]:
    """Strategic-merge patch removing the ownerReference to ``rs`` from the pod."""
    return runtime_owners.release_patch(rs, pod)


def replica_sets_for_pod(
    pod: Mapping[str, Any], replica_sets: Iterable[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The ReplicaSets of the pod's namespace whose selector matches its labels.

    As upstream's ``GetPodReplicaSets``: a pod without labels has none, and a ReplicaSet
    whose selector is invalid, missing or empty matches nothing (not everything).
    """
    pod_meta = pod.get("metadata") or {}
    labels = pod_meta.get("labels") or {}
    if not labels:
        return []
    matching: list[Mapping[str, Any]] = []
    for rs in replica_sets:
        if (rs.get("metadata") or {}).get("namespace", "") != pod_meta.get("namespace", ""):
            continue
        raw = (rs.get("spec") or {}).get("selector")
        try:
            selector = selector_from_label_selector(raw)
        except SelectorError:
            continue
        if raw is None or selector.empty() or not selector.matches(labels):
            continue
        matching.append(rs)
    return matching
