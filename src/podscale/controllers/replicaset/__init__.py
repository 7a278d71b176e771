"""The ReplicaSet controller's pure decisions, over plain JSON dicts.

Modules: ``podstate`` (active/ready/available predicates), ``ordering`` (scale-down order),
``decisions`` (create/delete plan, slow start), ``template`` (new pods and their names),
``ownership`` (adoption and release), ``status`` (status and ReplicaFailure, event texts),
``expectations`` (what a sync waits to observe). The reconcile loop that performs these
decisions lives in the controller runtime and imports from here.
"""

from __future__ import annotations

from podscale.controllers.replicaset.decisions import (
    BURST_REPLICAS,
    ReplicaPlan,
    filter_active_pods,
    plan_replicas,
    slow_start_batches,
)
from podscale.controllers.replicaset.expectations import (
    EXPECTATIONS_TIMEOUT,
    ExpectationRecord,
    Expectations,
)
from podscale.controllers.replicaset.ordering import (
    CONTROLLER_DEFAULT_FEATURE_GATES,
    DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS,
    LOGARITHMIC_SCALE_DOWN,
    POD_DELETION_COST,
    POD_DELETION_COST_ANNOTATION,
    deletion_cost,
    rank_by_related_pods,
    sort_for_deletion,
)
from podscale.controllers.replicaset.ownership import (
    adoption_patch,
    claim_action,
    classify_ownership,
    release_patch,
    replica_sets_for_pod,
)
from podscale.controllers.replicaset.podstate import (
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    is_pod_terminating,
    next_availability_check,
)
from podscale.controllers.replicaset.status import (
    REPLICA_FAILURE,
    created_event_message,
    deleted_event_message,
    failed_create_event_message,
    failed_delete_event_message,
    replica_set_status,
)
from podscale.controllers.replicaset.template import (
    controller_ref,
    pod_from_template,
    pod_name,
    random_suffix,
)

__all__ = [
    "BURST_REPLICAS",
    "CONTROLLER_DEFAULT_FEATURE_GATES",
    "DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS",
    "EXPECTATIONS_TIMEOUT",
    "LOGARITHMIC_SCALE_DOWN",
    "POD_DELETION_COST",
    "POD_DELETION_COST_ANNOTATION",
    "REPLICA_FAILURE",
    "ExpectationRecord",
    "Expectations",
    "ReplicaPlan",
    "adoption_patch",
    "claim_action",
    "classify_ownership",
    "controller_ref",
    "created_event_message",
    "deleted_event_message",
    "deletion_cost",
    "failed_create_event_message",
    "failed_delete_event_message",
    "filter_active_pods",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "is_pod_terminating",
    "next_availability_check",
    "plan_replicas",
    "pod_from_template",
    "pod_name",
    "random_suffix",
    "rank_by_related_pods",
    "release_patch",
    "replica_set_status",
    "replica_sets_for_pod",
    "slow_start_batches",
    "sort_for_deletion",
]
