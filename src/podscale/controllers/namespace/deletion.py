"""What the namespace controller decides while it empties a Terminating namespace: pure.

Upstream's ``pkg/controller/namespace/deletion`` (``namespaced_resources_deleter.go`` and
``status_condition_utils.go``) rendered as functions over plain values; ``controller``
gathers the inputs (live lists of every kind in the namespace) and writes the results.

- ``deletable_kinds``: every namespaced kind of those served (discovery's, custom kinds
  included) that can be listed and deleted, one version per kind (the preferred one).
- ``pod_estimate``: seconds the pods may still need (the longest
  ``terminationGracePeriodSeconds`` of a pod not yet Succeeded/Failed), 0 once that much
  time has passed since the namespace's ``deletionTimestamp``.
- ``assess``: after a kind's delete pass, what of it remains: a count, the finalizers that
  hold items, and the kind's estimate (15 s when only finalizers hold items; an error when
  items remain with neither an estimate nor a finalizer).
- ``deletion_conditions`` / ``merge_conditions``: the five ``Namespace*`` conditions with
  upstream's reasons and messages (``discovery_failure_message`` for group versions
  discovery could not list); a condition's ``lastTransitionTime`` moves only when its
  status does.
- ``without_finalizer``: the ``spec.finalizers`` the controller writes through ``/finalize``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.api.timestamps import parse_time_or_none

__all__ = [
    "CONDITION_TYPES",
    "FINALIZER_ESTIMATE_SECONDS",
    "KUBERNETES_FINALIZER",
    "KindResult",
    "assess",
    "deletable_kinds",
    "deletion_conditions",
    "discovery_failure_message",
    "gvr_string",
    "merge_conditions",
    "pod_estimate",
    "requeue_seconds",
    "without_finalizer",
]

JSON = dict[str, Any]

KUBERNETES_FINALIZER: Final = "kubernetes"
# Upstream's default wait for items that only finalizers hold (finalizerEstimateSeconds).
FINALIZER_ESTIMATE_SECONDS: Final = 15
_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})

# The condition types the deleter maintains, in upstream's order, with their "ok" variants.
CONDITION_TYPES: Final = (
    "NamespaceDeletionDiscoveryFailure",
    "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
)
_OK: Final[Mapping[str, tuple[str, str]]] = {
    "NamespaceDeletionDiscoveryFailure": (
        "ResourcesDiscovered",
        "All resources successfully discovered",
    ),
    "NamespaceDeletionGroupVersionParsingFailure": (
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    "NamespaceDeletionContentFailure": (
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    "NamespaceContentRemaining": ("ContentRemoved", "All content successfully removed"),
    "NamespaceFinalizersRemaining": (
        "ContentHasNoFinalizers",
        "All content-preserving finalizers finished",
    ),
}


def deletable_kinds(kinds: Iterable[KindInfo]) -> tuple[KindInfo, ...]:
    """The namespaced kinds to empty a namespace of, one served version each."""
    return tuple(
        info
        for info in kinds
        if info.top_level
        and info.preferred
        and info.namespaced
        and {"delete", "list"} <= set(info.verbs)
    )


def gvr_string(info: KindInfo) -> str:
    """Go's ``GroupVersionResource.String()``: ``apps/v1, Resource=deployments``."""
    return f"{info.group}/{info.version}, Resource={info.plural}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _parse(text: Any) -> datetime | None:
    return parse_time_or_none(text)


def pod_estimate(pods: Sequence[JSON], deleted_at: Any, now: datetime) -> int:
    """``estimateGracefulTermination`` for pods: the longest grace period of a running pod,
    or 0 once that long has passed since the namespace was deleted."""
    estimate = 0
    for pod in pods:
        if (pod.get("status") or {}).get("phase") in _TERMINAL_PHASES:
            continue
        grace = _int((pod.get("spec") or {}).get("terminationGracePeriodSeconds"))
        if grace is not None and grace > estimate:
            estimate = grace
    since = _parse(deleted_at)
    if since is not None and (now - since).total_seconds() >= estimate:
        return 0
    return estimate


@dataclass(frozen=True, slots=True)
class KindResult:
    """What remains of one kind after its delete pass (``error``: upstream's message)."""

    remaining: int = 0
    estimate: int = 0
    finalizers: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None


def assess(info: KindInfo, namespace: str, remaining: Sequence[JSON], estimate: int) -> KindResult:
    """``deleteAllContentForGroupVersionResource`` after deleting: items still listed are
    fine while the kind has an estimate or a finalizer holds them, else an error."""
    if not remaining:
        return KindResult()
    finalizers: dict[str, int] = {}
    for item in remaining:
        for name in (item.get("metadata") or {}).get("finalizers") or []:
            finalizers[str(name)] = finalizers.get(str(name), 0) + 1
    if estimate:
        return KindResult(len(remaining), estimate, finalizers)
    if finalizers:
        return KindResult(len(remaining), FINALIZER_ESTIMATE_SECONDS, finalizers)
    error = f"unexpected items still remain in namespace: {namespace} for gvr: {gvr_string(info)}"
    return KindResult(len(remaining), 0, {}, error)


def _condition(kind: str, status: str, reason: str, message: str, now: str) -> JSON:
    return {
        "type": kind,
        "status": status,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def discovery_failure_message(group_versions: Sequence[str]) -> str:
    """The ``NamespaceDeletionDiscoveryFailure`` message for group versions discovery
    could not list."""
    return (
        f"Discovery failed for some groups, {len(group_versions)} failing: unable to retrieve "
        "the complete list of server APIs: " + ", ".join(sorted(group_versions))
    )


def deletion_conditions(
    results: Mapping[KindInfo, KindResult],
    errors: Sequence[str],
    now: str,
    undiscovered: Sequence[str] = (),
) -> list[JSON]:
    """The failing conditions of one pass (discovery failures, ``ProcessContentTotals`` and
    the delete-content errors); every type not listed is set to its "ok" variant by
    ``merge_conditions``."""
    conditions: list[JSON] = []
    if undiscovered:
        message = discovery_failure_message(undiscovered)
        conditions.append(
            _condition("NamespaceDeletionDiscoveryFailure", "True", "DiscoveryFailed", message, now)
        )
    if errors:
        message = f"Failed to delete all resource types, {len(errors)} remaining: " + ", ".join(
            sorted(errors)
        )
        conditions.append(
            _condition(
                "NamespaceDeletionContentFailure", "True", "ContentDeletionFailed", message, now
            )
        )
    remaining = sorted(
        f"{info.plural}.{info.group} has {result.remaining} resource instances"
        for info, result in results.items()
        if result.remaining
    )
    if remaining:
        message = "Some resources are remaining: " + ", ".join(remaining)
        conditions.append(
            _condition("NamespaceContentRemaining", "True", "SomeResourcesRemain", message, now)
        )
    totals: dict[str, int] = {}
    for result in results.values():
        if result.remaining:
            for name, count in result.finalizers.items():
                totals[name] = totals.get(name, 0) + count
    held = sorted(
        f"{name} in {count} resource instances" for name, count in totals.items() if count
    )
    if held:
        message = "Some content in the namespace has finalizers remaining: " + ", ".join(held)
        conditions.append(
            _condition("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain", message, now)
        )
    return conditions


def merge_conditions(
    current: Sequence[JSON], failing: Sequence[JSON], now: str
) -> tuple[list[JSON], bool]:
    """``updateConditions``: each maintained type takes its failing variant or its "ok"
    one; a changed status moves ``lastTransitionTime``, a changed reason or message alone
    does not. Conditions of other types are kept. Returns (conditions, changed)."""
    merged = [dict(condition) for condition in current if isinstance(condition, dict)]
    changed = False
    for kind in CONDITION_TYPES:
        wanted = next((c for c in failing if c["type"] == kind), None)
        if wanted is None:
            reason, message = _OK[kind]
            wanted = _condition(kind, "False", reason, message, now)
        old = next((c for c in merged if c.get("type") == kind), None)
        if old is None:
            merged.append(dict(wanted))
            changed = True
            continue
        fields = ("status", "reason", "message")
        if any(old.get(name) != wanted[name] for name in fields):
            if old.get("status") != wanted["status"]:
                old["lastTransitionTime"] = now
            for name in fields:
                old[name] = wanted[name]
            changed = True
    return merged, changed


def requeue_seconds(estimate: int) -> int:
    """How long the controller waits before looking again while content remains."""
    return estimate // 2 + 1


def without_finalizer(finalizers: Iterable[Any], token: str = KUBERNETES_FINALIZER) -> list[str]:
    """``finalizeNamespace``: the other finalizers, deduplicated and sorted (a set upstream)."""
    return sorted({str(name) for name in finalizers if name != token})
