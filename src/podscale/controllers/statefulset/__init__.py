"""The StatefulSet controller: ordered pods with stable names, enough to be an HPA target.

Pure modules (no I/O, ``now`` always a parameter): ``identity`` (ordinals, names, labels,
new pods), ``revision`` (the ``controller-revision-hash`` a template gets), ``health`` (pod
predicates), ``ownership`` (adoption and release of member pods), ``status`` (status and
event texts), ``plan`` (one sync: what to create, update and delete, in which order).
The shell is ``controller.StatefulSetController``, with its pod I/O in ``pod_control``.
Not supported: ``volumeClaimTemplates`` (no claims are made) and ControllerRevision
objects (not a podscale kind: revisions are names only, pods come from the live template).
"""

from __future__ import annotations

from podscale.controllers.statefulset.identity import (
    POD_INDEX_LABEL,
    POD_NAME_LABEL,
    REVISION_LABEL,
    new_stateful_pod,
    stateful_pod_name,
)
from podscale.controllers.statefulset.plan import PodAction, SyncPlan, plan_sync
from podscale.controllers.statefulset.revision import revision_name
from podscale.controllers.statefulset.status import stateful_set_status

__all__ = [
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "PodAction",
    "SyncPlan",
    "new_stateful_pod",
    "plan_sync",
    "revision_name",
    "stateful_pod_name",
    "stateful_set_status",
]
