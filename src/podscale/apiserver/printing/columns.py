"""Column definitions of the server-side Tables, as upstream's printers declare them.

Names, types, formats and priorities follow pkg/printers/internalversion/printers.go
(``AddHandlers``); descriptions are the API field docs upstream takes from ``SwaggerDoc()``.
The server always prints wide (every column, priority 1 included): kubectl hides the
priority-1 columns unless ``-o wide``. The row printers in ``printing.pods``,
``printing.rows`` and ``printing.hpa`` fill cells in exactly this order; ``printing`` pairs
each kind with its columns.
"""

from __future__ import annotations

from typing import Final, TypedDict

__all__ = [
    "CREATED_AT_COLUMNS",
    "DEPLOYMENT_COLUMNS",
    "EVENT_COLUMNS",
    "GENERIC_COLUMNS",
    "HPA_COLUMNS",
    "NAMESPACE_COLUMNS",
    "NODE_COLUMNS",
    "POD_COLUMNS",
    "REPLICA_SET_COLUMNS",
    "STATEFUL_SET_COLUMNS",
    "ColumnDefinition",
]


class ColumnDefinition(TypedDict):
    """One ``meta.k8s.io/v1`` TableColumnDefinition, every field present as upstream sends."""

    name: str
    type: str
    format: str
    description: str
    priority: int


def _column(
    name: str, description: str, *, kind: str = "string", fmt: str = "", priority: int = 0
) -> ColumnDefinition:
    return {
        "name": name,
        "type": kind,
        "format": fmt,
        "description": description,
        "priority": priority,
    }


def _wide(name: str, description: str, *, kind: str = "string") -> ColumnDefinition:
    return _column(name, description, kind=kind, priority=1)


_NAME_DOC: Final = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE_DOC: Final = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_CONTAINERS_DOC: Final = "Names of each container in the template."
_IMAGES_DOC: Final = "Images referenced by each container in the template."
_READY_PODS_DOC: Final = "Number of the pod with ready state"

NAME: Final = _column("Name", _NAME_DOC, fmt="name")
AGE: Final = _column("Age", _AGE_DOC)
# The generic registry's default table (kinds without a printer of their own upstream, such as
# CustomResourceDefinitions): the name and the creation time as an RFC 3339 date.
CREATED_AT_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Created At", _AGE_DOC, kind="date"),
)

GENERIC_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (NAME, AGE)

POD_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    _column("Status", "The aggregate status of the containers in this pod."),
    _column(
        "Restarts",
        "The number of times the containers in this pod have been restarted and when the "
        "last container in this pod has restarted.",
    ),
    AGE,
    _wide(
        "IP",
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
        "not yet allocated.",
    ),
    _wide(
        "Node",
        "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
        "candidate for scheduling by the scheduler defined in schedulerName. Once this field "
        "is set, the kubelet for this node becomes responsible for the lifecycle of this pod. "
        "This field should not be used to express a desire for the pod to be scheduled on a "
        "specific node. "
        "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
    ),
    _wide(
        "Nominated Node",
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
        "cannot be scheduled right away as preemption victims receive their graceful "
        "termination periods. This field does not guarantee that the pod will be scheduled on "
        "this node. Scheduler may decide to place the pod elsewhere if other nodes become "
        "available sooner. Scheduler may also decide to give the resources on this node to a "
        "higher priority pod that is created after preemption. As a result, this field may be "
        "different than PodSpec.nodeName when the pod is scheduled.",
    ),
    _wide(
        "Readiness Gates",
        "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
        "when all its containers are ready AND all conditions specified in the readiness gates "
        'have status equal to "True" More info: '
        "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
    ),
)

_ADDRESSES_DOC: Final = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More "
    "info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field "
    "is declared as mergeable, but the merge key is not sufficiently unique, which can cause "
    "data corruption when it is merged. Callers should instead use a full-replacement patch. "
    "See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can "
    "change during the lifetime of a Node. However, there are some exceptions where this may "
    "not be possible, such as Pods that inherit a Node's address in its own status or "
    "consumers of the downward API (status.hostIP)."
)

NODE_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Status", "The status of the node"),
    _column("Roles", "The roles of the node"),
    AGE,
    _column("Version", "Kubelet Version reported by the node."),
    _wide("Internal-IP", _ADDRESSES_DOC),
    _wide("External-IP", _ADDRESSES_DOC),
    _wide(
        "OS-Image",
        "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
    ),
    _wide(
        "Kernel-Version",
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    ),
    _wide(
        "Container-Runtime",
        "ContainerRuntime Version reported by the node through runtime remote API "
        "(e.g. containerd://1.4.2).",
    ),
)

NAMESPACE_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Status", "The status of the namespace"),
    AGE,
)

EVENT_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    _column(
        "Last Seen", "The time at which the most recent occurrence of this event was recorded."
    ),
    _column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    _column(
        "Reason",
        "This should be a short, machine understandable string that gives the reason for the "
        "transition into the object's current status.",
    ),
    _column("Object", "The object that this event is about."),
    _wide(
        "Subobject",
        "If referring to a piece of an object instead of an entire object, this string should "
        "contain a valid JSON/Go field access statement, such as "
        "desiredState.manifest.containers[2]. For example, if the object reference is to a "
        'container within a pod, this would take on a value like: "spec.containers{name}" '
        '(where "name" refers to the name of the container that triggered the event) or if no '
        'container name is specified "spec.containers[2]" (container with index 2 in this pod). '
        "This syntax is chosen only to have some well-defined way of referencing a part of an "
        "object.",
    ),
    _wide(
        "Source",
        "The component reporting this event. Should be a short machine understandable string.",
    ),
    _column("Message", "A human-readable description of the status of this operation."),
    _wide(
        "First Seen",
        "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    ),
    _wide("Count", "The number of times this event has occurred."),
    _column("Name", _NAME_DOC, fmt="name", priority=1),
)

_RC_DOCS: Final = (
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
    "#what-is-a-replicationcontroller"
)

# Upstream documents the workload columns with the (frozen) extensions/v1beta1 field docs.
REPLICA_SET_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column(
        "Desired",
        "Replicas is the number of desired replicas. This is a pointer to distinguish between "
        f"explicit zero and unspecified. Defaults to 1. More info: {_RC_DOCS}",
        kind="integer",
    ),
    _column(
        "Current",
        f"Replicas is the most recently observed number of replicas. More info: {_RC_DOCS}",
        kind="integer",
    ),
    _column("Ready", "The number of ready replicas for this replica set.", kind="integer"),
    AGE,
    _wide("Containers", _CONTAINERS_DOC),
    _wide("Images", _IMAGES_DOC),
    _wide(
        "Selector",
        "Selector is a label query over pods that should match the replica count. If the "
        "selector is empty, it is defaulted to the labels present on the pod template. Label "
        "keys and values that must match in order to be controlled by this replica set. More "
        "info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ),
)

DEPLOYMENT_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Ready", _READY_PODS_DOC),
    _column(
        "Up-to-date",
        "Total number of non-terminated pods targeted by this deployment that have the desired "
        "template spec.",
    ),
    _column(
        "Available",
        "Total number of available pods (ready for at least minReadySeconds) targeted by this "
        "deployment.",
    ),
    AGE,
    _wide("Containers", _CONTAINERS_DOC),
    _wide("Images", _IMAGES_DOC),
    _wide(
        "Selector",
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
        "the ones affected by this deployment.",
    ),
)

STATEFUL_SET_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Ready", _READY_PODS_DOC),
    AGE,
    _wide("Containers", _CONTAINERS_DOC),
    _wide("Images", _IMAGES_DOC),
)

# Upstream documents these columns with the autoscaling/v2beta1 field docs.
HPA_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column(
        "Reference",
        "scaleTargetRef points to the target resource to scale, and is used to the pods for "
        "which metrics should be collected, as well as to actually change the replica count.",
    ),
    _column(
        "Targets",
        "metrics contains the specifications for which to use to calculate the desired replica "
        "count (the maximum replica count across all metrics will be used).  The desired "
        "replica count is calculated multiplying the ratio between the target value and the "
        "current value by the current number of pods.  Ergo, metrics used must decrease as the "
        "pod count is increased, and vice-versa.  See the individual metric source types for "
        "more information about how each type of metric must respond.",
    ),
    _column(
        "MinPods",
        "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
        "scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
        "feature gate HPAScaleToZero is enabled and at least one Object or External metric is "
        "configured.  Scaling is active as long as at least one metric value is available.",
    ),
    _column(
        "MaxPods",
        "maxReplicas is the upper limit for the number of replicas to which the autoscaler can "
        "scale up. It cannot be less that minReplicas.",
    ),
    _column(
        "Replicas",
        "currentReplicas is current number of replicas of pods managed by this autoscaler, as "
        "last seen by the autoscaler.",
    ),
    AGE,
)
