"""Revision bookkeeping: new vs old ReplicaSets, revision annotations, history cleanup.

Behaviour of upstream's ``FindNewReplicaSet``, ``FindOldReplicaSets``, ``MaxRevision``,
``LastRevision``, ``Revision``, ``SetNewReplicaSetAnnotations`` and
``copyDeploymentAnnotationsToReplicaSet`` (``util/deployment_util.go``) and
``cleanupDeployment`` (``sync.go``) with ``ReplicaSetsByRevision``. Template matching uses
``hashing.templates_equal``; the ReplicaSet view is ``replicasets.ReplicaSetState``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.controllers.deployment.fenceposts import Strategy
from podscale.controllers.deployment.hashing import templates_equal
from podscale.controllers.deployment.proportional import (
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    replicas_annotations,
)
from podscale.controllers.deployment.replicasets import (
    ReplicaSetState,
    replica_set_state,
    sort_by_creation,
)

__all__ = [
    "LAST_APPLIED_ANNOTATION",
    "MAX_REVISION_HISTORY_CHARS",
    "REVISION_ANNOTATION",
    "REVISION_HISTORY_ANNOTATION",
    "NewReplicaSetMemo",
    "find_new_replica_set",
    "find_old_replica_sets",
    "last_revision",
    "max_revision",
    "new_replica_set_annotations",
    "replica_sets_to_delete",
    "revision_of",
]

REVISION_ANNOTATION: Final = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION: Final = "deployment.kubernetes.io/revision-history"
LAST_APPLIED_ANNOTATION: Final = "kubectl.kubernetes.io/last-applied-configuration"
DEPRECATED_ROLLBACK_TO_ANNOTATION: Final = "deprecated.deployment.rollback.to"
# The deployment controller caps the revision-history annotation at this many characters.
MAX_REVISION_HISTORY_CHARS: Final = 2000
# Deployment annotations that are bookkeeping, never copied onto its ReplicaSets.
_NOT_COPIED: Final = frozenset(
    {
        LAST_APPLIED_ANNOTATION,
        REVISION_ANNOTATION,
        REVISION_HISTORY_ANNOTATION,
        DESIRED_REPLICAS_ANNOTATION,
        MAX_REPLICAS_ANNOTATION,
        DEPRECATED_ROLLBACK_TO_ANNOTATION,
    }
)


def revision_of(annotations: Mapping[str, str]) -> int:
    """The revision number; 0 when absent. ``ValueError`` when it is not an integer."""
    text = annotations.get(REVISION_ANNOTATION)
    return 0 if text is None else int(text)


def _revisions(replica_sets: Sequence[ReplicaSetState]) -> list[int]:
    found = []
    for rs in replica_sets:
        try:
            found.append(revision_of(rs.annotations))
        except ValueError:
            continue  # upstream logs and skips unparsable revisions
    return found


def max_revision(replica_sets: Sequence[ReplicaSetState]) -> int:
    """The highest revision among ``replica_sets`` (0 when none)."""
    return max(_revisions(replica_sets), default=0)


def last_revision(replica_sets: Sequence[ReplicaSetState]) -> int:
    """The second-highest revision (the one ``kubectl rollout undo`` goes back to)."""
    ordered = sorted(_revisions(replica_sets), reverse=True)
    return ordered[1] if len(ordered) > 1 else 0


def find_new_replica_set(
    template: Mapping[str, Any],
    replica_sets: Sequence[Mapping[str, Any]],
    *,
    state_of: Callable[[Mapping[str, Any]], ReplicaSetState] = replica_set_state,
) -> Mapping[str, Any] | None:
    """The oldest ReplicaSet dict whose template equals ``template`` ignoring the hash label.

    Oldest wins so that, should two match, the controller keeps converging on the same one.
    ``state_of`` reads a ReplicaSet (a ``replicasets.StateMemo`` gives the same result).
    """
    by_name = {str((rs.get("metadata") or {}).get("name", "")): rs for rs in replica_sets}
    for state in sort_by_creation(state_of(rs) for rs in replica_sets):
        candidate = by_name[state.name]
        if templates_equal((candidate.get("spec") or {}).get("template") or {}, template):
            return candidate
    return None


class NewReplicaSetMemo:
    """``find_new_replica_set`` remembered per Deployment, for the very same dicts.

    Exact: the result depends only on the content of the template and the ReplicaSets,
    and an entry is used only when the template and every ReplicaSet (in order) are the
    identical objects of the call that stored it. Those dicts are never changed in place
    (the informer cache's read-only contract) and the entry holds them, so their ids are
    not reused. A Deployment requeued while nothing changed (``requeueStuckDeployment``)
    hits; any new version of any of them misses. One entry per Deployment uid.
    """

    __slots__ = ("_by_uid",)

    def __init__(self) -> None:
        self._by_uid: dict[
            object,
            tuple[Mapping[str, Any], tuple[Mapping[str, Any], ...], Mapping[str, Any] | None],
        ] = {}

    def find(
        self,
        deployment_uid: object,
        template: Mapping[str, Any],
        replica_sets: Sequence[Mapping[str, Any]],
        *,
        state_of: Callable[[Mapping[str, Any]], ReplicaSetState] = replica_set_state,
    ) -> Mapping[str, Any] | None:
        entry = self._by_uid.get(deployment_uid) if deployment_uid else None
        if (
            entry is not None
            and entry[0] is template
            and len(entry[1]) == len(replica_sets)
            and all(held is given for held, given in zip(entry[1], replica_sets, strict=True))
        ):
            return entry[2]
        found = find_new_replica_set(template, replica_sets, state_of=state_of)
        if deployment_uid:
            self._by_uid[deployment_uid] = (template, tuple(replica_sets), found)
        return found

    def forget(self, deployment_uid: object) -> None:
        self._by_uid.pop(deployment_uid, None)

    def __len__(self) -> int:
        return len(self._by_uid)


def find_old_replica_sets(
    new_rs: ReplicaSetState | None, replica_sets: Sequence[ReplicaSetState]
) -> tuple[list[ReplicaSetState], list[ReplicaSetState]]:
    """``(old ReplicaSets with pods wanted, all old ReplicaSets)``: everything but ``new_rs``."""
    everything_old = [rs for rs in replica_sets if new_rs is None or rs.uid != new_rs.uid]
    return [rs for rs in everything_old if rs.replicas != 0], everything_old


def _append_history(history: str, old_revision: str) -> str | None:
    # Keep the newest entries that fit in MAX_REVISION_HISTORY_CHARS; None means "leave as is".
    if not history:
        return old_revision
    entries = history.split(",")
    length = len(history) + len(old_revision) + 1
    start = 0
    while length > MAX_REVISION_HISTORY_CHARS and start < len(entries):
        length -= len(entries[start]) + 1
        start += 1
    if length > MAX_REVISION_HISTORY_CHARS:
        return None
    return ",".join([*entries[start:], old_revision])


def new_replica_set_annotations(
    deployment_annotations: Mapping[str, str],
    rs_annotations: Mapping[str, str],
    new_revision: int,
    *,
    exists: bool,
    replicas: int,
    strategy: Strategy,
) -> tuple[dict[str, str], bool]:
    """The new ReplicaSet's annotations after a sync, and whether they changed.

    Copies the Deployment's own annotations (not the bookkeeping ones), raises the
    revision to ``new_revision`` if lower (a rollback to an old template keeps the old
    numbers in ``revision-history``), and for a ReplicaSet about to be created adds the
    desired/max replicas annotations. An unparsable existing revision leaves everything.
    """
    result = dict(rs_annotations)
    changed = False
    for key, value in deployment_annotations.items():
        if key in _NOT_COPIED or result.get(key) == value:
            continue
        result[key] = value
        changed = True
    old_text = result.get(REVISION_ANNOTATION)
    try:
        old_revision = 0 if not old_text else int(old_text)
    except ValueError:
        return dict(rs_annotations), False
    if old_revision < new_revision:
        result[REVISION_ANNOTATION] = str(new_revision)
        changed = True
        if old_text is not None:
            history = _append_history(result.get(REVISION_HISTORY_ANNOTATION, ""), old_text)
            if history is not None:
                result[REVISION_HISTORY_ANNOTATION] = history
    if not exists:
        wanted = replicas_annotations(replicas, strategy)
        if any(result.get(key) != value for key, value in wanted.items()):
            result.update(wanted)
            changed = True
    return result, changed


def _revision_sort_key(rs: ReplicaSetState) -> tuple[int, datetime, str]:
    # Lowest revision first, ties by creation. An unparsable revision sorts as 0 (upstream
    # falls back to creation order for such pairs; it never arises from this controller).
    try:
        revision = revision_of(rs.annotations)
    except ValueError:
        revision = 0
    return (revision, rs.created, rs.name)


def replica_sets_to_delete(
    old_replica_sets: Sequence[ReplicaSetState], revision_history_limit: int | None
) -> list[str]:
    """Names of old ReplicaSets to delete to honour ``revisionHistoryLimit``.

    ``None`` (or int32 max) keeps everything. Of the old ReplicaSets not already being
    deleted, the lowest revisions beyond the limit go, but only those fully scaled down
    (no pods wanted or reported) and whose status has caught up with their generation.
    """
    if revision_history_limit is None or revision_history_limit == 2**31 - 1:
        return []
    alive = [rs for rs in old_replica_sets if not rs.deleting]
    excess = len(alive) - revision_history_limit
    if excess <= 0:
        return []
    ordered = sorted(alive, key=_revision_sort_key)
    return [
        rs.name
        for rs in ordered[:excess]
        if rs.status_replicas == 0 and rs.replicas == 0 and rs.generation <= rs.observed_generation
    ]
