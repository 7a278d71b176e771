"""OpenAPI schemas of core/v1 PodStatus, container statuses and the shared condition shape.

What the kubelet reports about a pod: phase, conditions, IPs and per-container state. Exported
pods (``kubectl get pod -o json``) carry all of it, so strict validation must know it too.
``openapi.schemas_core`` uses ``condition`` for node and namespace conditions as well.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    boolean,
    core,
    integer,
    map_of,
    merge_list,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import QUANTITY

__all__ = ["condition", "pod_status_schemas"]


def condition(
    description: str,
    *,
    observed_generation: bool = False,
    probe_time: bool = False,
    heartbeat: bool = False,
) -> Schema:
    """A core/v1 condition: type and status plus the optional members some kinds add."""
    properties: dict[str, Schema] = {
        "type": string("Type of the condition."),
        "status": string("True, False or Unknown."),
    }
    if observed_generation:
        properties["observedGeneration"] = integer(
            "Generation the condition was set for.", fmt="int64"
        )
    if probe_time:
        properties["lastProbeTime"] = ref(meta("Time"), "Last time the condition was probed.")
    if heartbeat:
        properties["lastHeartbeatTime"] = ref(meta("Time"), "Last time it was reported.")
    properties |= {
        "lastTransitionTime": ref(meta("Time"), "Last time the status changed."),
        "reason": string("Machine-readable reason of the last transition."),
        "message": string("Human-readable details of the last transition."),
    }
    return struct(description, properties, required=("type", "status"))


def _statuses(description: str) -> Schema:
    return array(ref(core("ContainerStatus")), description, list_type="atomic")


def _pod_status() -> Schema:
    return struct(
        "Observed state of a pod.",
        {
            "observedGeneration": integer("Pod generation observed.", fmt="int64"),
            "phase": string("Pending, Running, Succeeded, Failed or Unknown."),
            "conditions": merge_list(
                core("PodCondition"), "Current pod conditions (Ready...).", key="type"
            ),
            "message": string("Why the pod is in this phase."),
            "reason": string("Brief reason, e.g. Evicted."),
            "nominatedNodeName": string("Node the pod may preempt onto."),
            "hostIP": string("IP of the node."),
            "hostIPs": merge_list(core("HostIP"), "IPs of the node.", key="ip"),
            "podIP": string("IP allocated to the pod."),
            "podIPs": merge_list(core("PodIP"), "IPs allocated to the pod.", key="ip"),
            "startTime": ref(meta("Time"), "When the kubelet acknowledged the pod."),
            "initContainerStatuses": _statuses("Status of each init container."),
            "containerStatuses": _statuses("Status of each container."),
            "ephemeralContainerStatuses": _statuses("Status of each ephemeral container."),
            "qosClass": string("Guaranteed, Burstable or BestEffort."),
            "resize": string("Status of an in-place resize."),
            "resourceClaimStatuses": merge_list(
                core("PodResourceClaimStatus"),
                "Generated names of the pod's resource claims.",
                strategy="merge,retainKeys",
            ),
        },
    )


def _container_status() -> Schema:
    return struct(
        "Observed state of one container.",
        {
            "name": string("Container name."),
            "state": ref(core("ContainerState"), "Current state."),
            "lastState": ref(core("ContainerState"), "Last termination state."),
            "ready": boolean("Whether the container passes its readiness probe."),
            "restartCount": integer("Number of restarts."),
            "image": string("Image the container runs."),
            "imageID": string("Resolved image id."),
            "containerID": string("Runtime container id, <type>://<id>."),
            "started": boolean("Whether the startup probe passed."),
            "allocatedResources": map_of(ref(QUANTITY), "Resources allocated to the container."),
            "resources": ref(core("ResourceRequirements"), "Resources actually applied."),
            "volumeMounts": merge_list(
                core("VolumeMountStatus"), "Mounts as applied.", key="mountPath"
            ),
            "user": ref(core("ContainerUser"), "Identity the first process runs as."),
            "allocatedResourcesStatus": merge_list(
                core("ResourceStatus"), "Health of allocated devices."
            ),
            "stopSignal": string("Signal used to stop the container."),
        },
        required=("name", "ready", "restartCount", "image", "imageID"),
    )


def _container_parts() -> dict[str, Schema]:
    return {
        core("ContainerState"): struct(
            "The state of a container; at most one member is set.",
            {
                "waiting": ref(core("ContainerStateWaiting"), "Not yet running."),
                "running": ref(core("ContainerStateRunning"), "Running."),
                "terminated": ref(core("ContainerStateTerminated"), "Exited."),
            },
        ),
        core("ContainerStateWaiting"): struct(
            "A waiting container.",
            {"reason": string("Why it is waiting."), "message": string("Details.")},
        ),
        core("ContainerStateRunning"): struct(
            "A running container.", {"startedAt": ref(meta("Time"), "When it started.")}
        ),
        core("ContainerStateTerminated"): struct(
            "A terminated container.",
            {
                "exitCode": integer("Exit status."),
                "signal": integer("Signal that killed it."),
                "reason": string("Why it terminated."),
                "message": string("Details."),
                "startedAt": ref(meta("Time"), "When it started."),
                "finishedAt": ref(meta("Time"), "When it terminated."),
                "containerID": string("Runtime container id."),
            },
            required=("exitCode",),
        ),
        core("VolumeMountStatus"): struct(
            "A volume mount as the runtime applied it.",
            {
                "name": string("Volume name."),
                "mountPath": string("Path inside the container."),
                "readOnly": boolean("Mounted read-only."),
                "recursiveReadOnly": string("Disabled or Enabled."),
            },
            required=("name", "mountPath"),
        ),
        core("ContainerUser"): struct(
            "The identity of a container's first process.",
            {"linux": ref(core("LinuxContainerUser"), "Linux uid and gids.")},
        ),
        core("LinuxContainerUser"): struct(
            "Linux user and groups.",
            {
                "uid": integer("User id.", fmt="int64"),
                "gid": integer("Primary group id.", fmt="int64"),
                "supplementalGroups": array(
                    integer(fmt="int64"), "Supplemental group ids.", list_type="atomic"
                ),
            },
            required=("uid", "gid"),
        ),
        core("ResourceStatus"): struct(
            "Health of the devices behind one allocated resource.",
            {
                "name": string("Resource name."),
                "resources": merge_list(
                    core("ResourceHealth"), "Per-device health.", key="resourceID"
                ),
            },
            required=("name",),
        ),
        core("ResourceHealth"): struct(
            "Health of one device.",
            {
                "resourceID": string("Device id."),
                "health": string("Healthy, Unhealthy or Unknown."),
            },
            required=("resourceID",),
        ),
    }


def pod_status_schemas() -> dict[str, Schema]:
    """Schema name -> schema for PodStatus and the container status types."""
    return {
        core("PodStatus"): _pod_status(),
        core("PodCondition"): condition(
            "A condition of a pod.", observed_generation=True, probe_time=True
        ),
        core("HostIP"): struct("An IP of the node.", {"ip": string("The IP.")}, required=("ip",)),
        core("PodIP"): struct("An IP of the pod.", {"ip": string("The IP.")}, required=("ip",)),
        core("PodResourceClaimStatus"): struct(
            "The generated ResourceClaim of one pod resource claim.",
            {
                "name": string("Name of the pod's claim entry."),
                "resourceClaimName": string("Name of the generated ResourceClaim."),
            },
            required=("name",),
        ),
        core("ContainerStatus"): _container_status(),
        **_container_parts(),
    }
