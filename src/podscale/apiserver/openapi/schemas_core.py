"""OpenAPI schemas of the core/v1 kinds podscale serves: Pod, Node, Namespace and Event.

Also Binding, the body of the ``pods/binding`` subresource (``operations.binding``).

Pod's spec and status come from ``openapi.schemas_pod`` and ``openapi.schemas_pod_status``;
this module adds the kinds themselves, their lists, PodTemplateSpec (embedded by the apps/v1
workloads) and the node and namespace status types.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
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
from podscale.apiserver.openapi.schemas_meta import quantity_map
from podscale.apiserver.openapi.schemas_pod_status import condition

__all__ = ["core_schemas"]


def _kind(description: str, kind: str, spec: str, status: str) -> Schema:
    return struct(
        description,
        {
            **kind_header(),
            "spec": ref(core(spec), f"Desired state of the {kind.lower()}."),
            "status": ref(core(status), f"Observed state of the {kind.lower()}; read-only."),
        },
        gvk=("", "v1", kind),
    )


def _pod_schemas() -> dict[str, Schema]:
    return {
        core("Pod"): _kind(
            "A group of containers scheduled together on one node.", "Pod", "PodSpec", "PodStatus"
        ),
        core("PodList"): list_kind("A list of pods.", core("Pod"), ("", "v1", "PodList")),
        core("Binding"): struct(
            "Ties one object to another: a scheduler binds a pod to a node.",
            {
                **kind_header(),
                "target": ref(core("ObjectReference"), "The object to bind to (a node)."),
            },
            required=("target",),
            gvk=("", "v1", "Binding"),
        ),
        core("PodTemplateSpec"): struct(
            "The pods a workload controller creates: their metadata and spec.",
            {
                "metadata": ref(meta("ObjectMeta"), "Labels and annotations of the pods."),
                "spec": ref(core("PodSpec"), "Spec of the pods."),
            },
        ),
    }


def _node_schemas() -> dict[str, Schema]:
    return {
        core("Node"): _kind("A worker machine.", "Node", "NodeSpec", "NodeStatus"),
        core("NodeList"): list_kind("A list of nodes.", core("Node"), ("", "v1", "NodeList")),
        core("NodeSpec"): struct(
            "How a node is configured.",
            {
                "podCIDR": string("Pod IP range of the node."),
                "podCIDRs": array(
                    string(), "Pod IP ranges of the node.", list_type="set", strategy="merge"
                ),
                "providerID": string("Cloud provider id of the node."),
                "unschedulable": boolean("Keep new pods off the node (cordon)."),
                "taints": array(ref(core("Taint")), "Taints of the node.", list_type="atomic"),
                "externalID": string("Deprecated."),
            },
        ),
        core("Taint"): struct(
            "Repels pods that do not tolerate it.",
            {
                "key": string("Taint key."),
                "value": string("Taint value."),
                "effect": string("NoSchedule, PreferNoSchedule or NoExecute."),
                "timeAdded": ref(meta("Time"), "When a NoExecute taint was added."),
            },
            required=("key", "effect"),
        ),
        core("NodeStatus"): struct(
            "Observed state of a node.",
            {
                "capacity": quantity_map("Total resources of the node."),
                "allocatable": quantity_map("Resources available to pods."),
                "phase": string("Deprecated."),
                "conditions": merge_list(
                    core("NodeCondition"), "Node conditions (Ready...).", key="type"
                ),
                "addresses": merge_list(core("NodeAddress"), "Addresses of the node.", key="type"),
                "daemonEndpoints": ref(core("NodeDaemonEndpoints"), "Kubelet endpoints."),
                "nodeInfo": ref(core("NodeSystemInfo"), "Versions and ids of the node."),
                "images": array(
                    ref(core("ContainerImage")), "Images present on the node.", list_type="atomic"
                ),
                "volumesInUse": array(string(), "Volumes in use.", list_type="atomic"),
                "volumesAttached": array(
                    ref(core("AttachedVolume")), "Volumes attached.", list_type="atomic"
                ),
                "runtimeHandlers": array(
                    ref(core("NodeRuntimeHandler")),
                    "Available runtime handlers.",
                    list_type="atomic",
                ),
                "features": ref(core("NodeFeatures"), "Features the node supports."),
                "declaredFeatures": array(string(), "Declared node features.", list_type="atomic"),
            },
        ),
        core("NodeRuntimeHandler"): struct(
            "A runtime handler of the node.",
            {
                "name": string("Handler name; empty for the default."),
                "features": ref(core("NodeRuntimeHandlerFeatures"), "What the handler supports."),
            },
        ),
        core("NodeRuntimeHandlerFeatures"): struct(
            "Features of a runtime handler.",
            {
                "recursiveReadOnlyMounts": boolean("Supports recursive read-only mounts."),
                "userNamespaces": boolean("Supports user namespaces."),
            },
        ),
        core("NodeFeatures"): struct(
            "Features implemented by the node.",
            {"supplementalGroupsPolicy": boolean("Supports supplementalGroupsPolicy.")},
        ),
        core("NodeSwapStatus"): struct(
            "Swap memory of the node.", {"capacity": integer("Swap bytes.", fmt="int64")}
        ),
        core("NodeCondition"): condition("A condition of a node.", heartbeat=True),
        core("NodeAddress"): struct(
            "An address of a node.",
            {"type": string("Hostname, InternalIP, ExternalIP..."), "address": string("Value.")},
            required=("type", "address"),
        ),
        core("NodeDaemonEndpoints"): struct(
            "Ports of daemons on the node.",
            {"kubeletEndpoint": ref(core("DaemonEndpoint"), "The kubelet's port.")},
        ),
        core("DaemonEndpoint"): struct(
            "A daemon port.", {"Port": integer("Port number.")}, required=("Port",)
        ),
        core("NodeSystemInfo"): struct(
            "Versions and ids reported by the node.",
            {
                name: string(f"{name} of the node.")
                for name in (
                    "machineID",
                    "systemUUID",
                    "bootID",
                    "kernelVersion",
                    "osImage",
                    "containerRuntimeVersion",
                    "kubeletVersion",
                    "kubeProxyVersion",
                    "operatingSystem",
                    "architecture",
                )
            }
            | {"swap": ref(core("NodeSwapStatus"), "Swap memory of the node.")},
        ),
        core("ContainerImage"): struct(
            "An image on a node.",
            {
                "names": array(string(), "Names of the image.", list_type="atomic"),
                "sizeBytes": integer("Size of the image.", fmt="int64"),
            },
        ),
        core("AttachedVolume"): struct(
            "A volume attached to a node.",
            {"name": string("Volume name."), "devicePath": string("Device path.")},
            required=("name", "devicePath"),
        ),
    }


def _namespace_schemas() -> dict[str, Schema]:
    return {
        core("Namespace"): _kind(
            "A scope for names.", "Namespace", "NamespaceSpec", "NamespaceStatus"
        ),
        core("NamespaceList"): list_kind(
            "A list of namespaces.", core("Namespace"), ("", "v1", "NamespaceList")
        ),
        core("NamespaceSpec"): struct(
            "Desired state of a namespace.",
            {"finalizers": array(string(), "Finalizers to run on delete.", list_type="atomic")},
        ),
        core("NamespaceStatus"): struct(
            "Observed state of a namespace.",
            {
                "phase": string("Active or Terminating."),
                "conditions": merge_list(
                    core("NamespaceCondition"), "Namespace conditions.", key="type"
                ),
            },
        ),
        core("NamespaceCondition"): condition("A condition of a namespace."),
    }


def _event_schemas() -> dict[str, Schema]:
    return {
        core("Event"): struct(
            "A report of something that happened to an object.",
            {
                **kind_header(),
                "involvedObject": ref(core("ObjectReference"), "The object the event is about."),
                "reason": string("Short machine-readable reason, e.g. SuccessfulRescale."),
                "message": string("Human-readable description."),
                "source": ref(core("EventSource"), "The component reporting the event."),
                "firstTimestamp": ref(meta("Time"), "First time the event was recorded."),
                "lastTimestamp": ref(meta("Time"), "Most recent time it was recorded."),
                "count": integer("How many times it occurred."),
                "type": string("Normal or Warning."),
                "eventTime": ref(meta("MicroTime"), "When the event was first observed."),
                "series": ref(core("EventSeries"), "Data about a series of events."),
                "action": string("What action was taken or failed."),
                "related": ref(core("ObjectReference"), "A secondary object."),
                "reportingComponent": string("Controller that emitted the event."),
                "reportingInstance": string("Instance of the controller."),
            },
            required=("metadata", "involvedObject"),
            gvk=("", "v1", "Event"),
        ),
        core("EventList"): list_kind("A list of events.", core("Event"), ("", "v1", "EventList")),
        core("EventSource"): struct(
            "The component an event comes from.",
            {"component": string("Component name."), "host": string("Node name.")},
        ),
        core("EventSeries"): struct(
            "A series of repeated events.",
            {
                "count": integer("Occurrences so far."),
                "lastObservedTime": ref(meta("MicroTime"), "Time of the last occurrence."),
            },
        ),
        core("ObjectReference"): _object_reference(),
    }


def _object_reference() -> Schema:
    schema = struct(
        "A reference to an object, by kind, namespace, name and uid.",
        {
            "kind": string("Kind of the referent."),
            "namespace": string("Namespace of the referent."),
            "name": string("Name of the referent."),
            "uid": string("UID of the referent."),
            "apiVersion": string("API version of the referent."),
            "resourceVersion": string("Version of the referent the reference was made at."),
            "fieldPath": string("A path inside the referent, e.g. spec.containers{web}."),
        },
    )
    schema["x-kubernetes-map-type"] = "atomic"
    return schema


def core_schemas() -> dict[str, Schema]:
    """Schema name -> schema for Pod, Node, Namespace, Event and their parts."""
    return {
        **_pod_schemas(),
        **_node_schemas(),
        **_namespace_schemas(),
        **_event_schemas(),
    }
