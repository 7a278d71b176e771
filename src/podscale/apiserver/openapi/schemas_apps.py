"""OpenAPI schemas of the apps/v1 workloads: Deployment, ReplicaSet and StatefulSet.

They embed core/v1 PodTemplateSpec (``openapi.schemas_core``) and, for StatefulSet, core/v1
PersistentVolumeClaim (``openapi.schemas_volume``); ``openapi`` pulls those into the apps/v1
document by following references.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    apps,
    array,
    boolean,
    core,
    integer,
    kind_header,
    list_kind,
    merge_list,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import INT_OR_STRING

__all__ = ["apps_schemas"]

_WORKLOADS = ("Deployment", "ReplicaSet", "StatefulSet")
# Deployment and ReplicaSet only (DeploymentReplicaSetTerminatingReplicas); StatefulSet has none.
_TERMINATING = integer("Pods being terminated (deletionTimestamp set, not yet gone).")


def _kind(description: str, kind: str) -> Schema:
    return struct(
        description,
        {
            **kind_header(),
            "spec": ref(apps(f"{kind}Spec"), f"Desired behaviour of the {kind}."),
            "status": ref(apps(f"{kind}Status"), f"Observed state of the {kind}; read-only."),
        },
        gvk=("apps", "v1", kind),
    )


def _common_spec() -> dict[str, Schema]:
    return {
        "replicas": integer("Desired number of pods (default 1)."),
        "selector": ref(meta("LabelSelector"), "Selects the pods; must match the template."),
        "template": ref(core("PodTemplateSpec"), "The pods to create."),
        "minReadySeconds": integer("Seconds a pod must be ready to count as available."),
    }


def _conditions(kind: str) -> Schema:
    return merge_list(apps(f"{kind}Condition"), f"Latest observations of the {kind}.", key="type")


def _condition(kind: str, *, update_time: bool = False) -> Schema:
    properties: dict[str, Schema] = {
        "type": string("Type of the condition."),
        "status": string("True, False or Unknown."),
    }
    if update_time:
        properties["lastUpdateTime"] = ref(meta("Time"), "Last time the condition was updated.")
    properties |= {
        "lastTransitionTime": ref(meta("Time"), "Last time the status changed."),
        "reason": string("Machine-readable reason of the last transition."),
        "message": string("Human-readable details of the last transition."),
    }
    return struct(f"A condition of a {kind}.", properties, required=("type", "status"))


def _replica_counts() -> dict[str, Schema]:
    return {
        "observedGeneration": integer("Generation last acted on.", fmt="int64"),
        "replicas": integer("Number of pods targeted."),
        "readyReplicas": integer("Pods that are ready."),
        "availableReplicas": integer("Pods ready for at least minReadySeconds."),
    }


def _deployment_schemas() -> dict[str, Schema]:
    return {
        apps("DeploymentSpec"): struct(
            "Desired state of a Deployment.",
            {
                **_common_spec(),
                "strategy": ref(apps("DeploymentStrategy"), "How pods are replaced."),
                "revisionHistoryLimit": integer("Old ReplicaSets kept for rollback."),
                "paused": boolean("Pause rollouts."),
                "progressDeadlineSeconds": integer("Seconds before a rollout counts as stuck."),
            },
            required=("selector", "template"),
        ),
        apps("DeploymentStrategy"): struct(
            "How existing pods are replaced by new ones.",
            {
                "type": string("Recreate or RollingUpdate (default)."),
                "rollingUpdate": ref(
                    apps("RollingUpdateDeployment"), "Parameters of a rolling update."
                ),
            },
        ),
        apps("RollingUpdateDeployment"): struct(
            "Limits of a rolling update.",
            {
                "maxUnavailable": ref(INT_OR_STRING, "Pods that may be unavailable (25%)."),
                "maxSurge": ref(INT_OR_STRING, "Pods above the desired count (25%)."),
            },
        ),
        apps("DeploymentStatus"): struct(
            "Observed state of a Deployment.",
            {
                **_replica_counts(),
                "terminatingReplicas": _TERMINATING,
                "updatedReplicas": integer("Pods with the current template."),
                "unavailableReplicas": integer("Pods still needed for full availability."),
                "conditions": _conditions("Deployment"),
                "collisionCount": integer("Hash collision count for new ReplicaSets."),
            },
        ),
        apps("DeploymentCondition"): _condition("Deployment", update_time=True),
    }


def _replica_set_schemas() -> dict[str, Schema]:
    return {
        apps("ReplicaSetSpec"): struct(
            "Desired state of a ReplicaSet.", _common_spec(), required=("selector",)
        ),
        apps("ReplicaSetStatus"): struct(
            "Observed state of a ReplicaSet.",
            {
                **_replica_counts(),
                "terminatingReplicas": _TERMINATING,
                "fullyLabeledReplicas": integer("Pods whose labels match the template's."),
                "conditions": _conditions("ReplicaSet"),
            },
            required=("replicas",),
        ),
        apps("ReplicaSetCondition"): _condition("ReplicaSet"),
    }


def _stateful_set_schemas() -> dict[str, Schema]:
    return {
        apps("StatefulSetSpec"): struct(
            "Desired state of a StatefulSet.",
            {
                **_common_spec(),
                "volumeClaimTemplates": array(
                    ref(core("PersistentVolumeClaim")),
                    "Claims created for each pod.",
                    list_type="atomic",
                ),
                "serviceName": string("Headless service governing the pods' network identity."),
                "podManagementPolicy": string("OrderedReady (default) or Parallel."),
                "updateStrategy": ref(apps("StatefulSetUpdateStrategy"), "How pods are updated."),
                "revisionHistoryLimit": integer("Revisions kept."),
                "persistentVolumeClaimRetentionPolicy": ref(
                    apps("StatefulSetPersistentVolumeClaimRetentionPolicy"),
                    "What happens to claims on delete and scale-down.",
                ),
                "ordinals": ref(apps("StatefulSetOrdinals"), "Numbering of the replicas."),
            },
            required=("selector", "template"),
        ),
        apps("StatefulSetUpdateStrategy"): struct(
            "How a StatefulSet updates its pods.",
            {
                "type": string("RollingUpdate (default) or OnDelete."),
                "rollingUpdate": ref(
                    apps("RollingUpdateStatefulSetStrategy"), "Parameters of a rolling update."
                ),
            },
        ),
        apps("RollingUpdateStatefulSetStrategy"): struct(
            "Limits of a StatefulSet rolling update.",
            {
                "partition": integer("Only ordinals at or above this are updated."),
                "maxUnavailable": ref(INT_OR_STRING, "Pods that may be unavailable."),
            },
        ),
        apps("StatefulSetPersistentVolumeClaimRetentionPolicy"): struct(
            "Lifecycle of the claims created from volumeClaimTemplates.",
            {
                "whenDeleted": string("Retain (default) or Delete."),
                "whenScaled": string("Retain (default) or Delete."),
            },
        ),
        apps("StatefulSetOrdinals"): struct(
            "Replica numbering.", {"start": integer("First ordinal (default 0).")}
        ),
        apps("StatefulSetStatus"): struct(
            "Observed state of a StatefulSet.",
            {
                **_replica_counts(),
                "currentReplicas": integer("Pods at currentRevision."),
                "updatedReplicas": integer("Pods at updateRevision."),
                "currentRevision": string("Revision of the current pods."),
                "updateRevision": string("Revision being rolled out."),
                "collisionCount": integer("Hash collision count."),
                "conditions": _conditions("StatefulSet"),
            },
            required=("replicas",),
        ),
        apps("StatefulSetCondition"): _condition("StatefulSet"),
    }


def apps_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the apps/v1 kinds, their lists and parts."""
    schemas: dict[str, Schema] = {
        apps("Deployment"): _kind("Declarative updates of pods through ReplicaSets.", "Deployment"),
        apps("ReplicaSet"): _kind("Keeps a number of identical pods running.", "ReplicaSet"),
        apps("StatefulSet"): _kind("Pods with stable identity and storage.", "StatefulSet"),
    }
    for kind in _WORKLOADS:
        schemas[apps(f"{kind}List")] = list_kind(
            f"A list of {kind}s.", apps(kind), ("apps", "v1", f"{kind}List")
        )
    return {
        **schemas,
        **_deployment_schemas(),
        **_replica_set_schemas(),
        **_stateful_set_schemas(),
    }
