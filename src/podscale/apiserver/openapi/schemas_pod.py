"""OpenAPI schemas of core/v1 PodSpec: scheduling, pod security, DNS and the container lists.

Builds on ``openapi.schemas_container`` (Container) and ``openapi.schemas_volume`` (Volume);
the node and pod (anti-)affinity types come from ``openapi.schemas_affinity``, in the same
table. ``openapi.schemas_core`` wraps PodSpec into Pod and PodTemplateSpec.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    boolean,
    core,
    integer,
    map_of,
    merge_list,
    meta,
    ref,
    string,
    string_map,
    struct,
)
from podscale.apiserver.openapi.schemas_affinity import affinity_schemas
from podscale.apiserver.openapi.schemas_meta import QUANTITY

__all__ = ["pod_spec_schemas"]


def _pod_spec() -> Schema:
    node_selector = string_map("Labels a node must have for the pod to be scheduled there.")
    node_selector["x-kubernetes-map-type"] = "atomic"
    return struct(
        "The desired behaviour of a pod: its containers, volumes and scheduling constraints.",
        {
            "volumes": merge_list(
                core("Volume"), "Volumes containers may mount.", strategy="merge,retainKeys"
            ),
            "initContainers": merge_list(
                core("Container"), "Containers run to completion, in order, before the others."
            ),
            "containers": merge_list(core("Container"), "The pod's containers; at least one."),
            "ephemeralContainers": merge_list(
                core("EphemeralContainer"), "Debug containers added to the running pod."
            ),
            "restartPolicy": string("Always, OnFailure or Never (default Always)."),
            "terminationGracePeriodSeconds": integer(
                "Seconds given to stop gracefully (default 30).", fmt="int64"
            ),
            "activeDeadlineSeconds": integer(
                "Seconds the pod may run before it is failed.", fmt="int64"
            ),
            "dnsPolicy": string("ClusterFirst, ClusterFirstWithHostNet, Default or None."),
            "nodeSelector": node_selector,
            "serviceAccountName": string("Service account the pod runs as."),
            "serviceAccount": string("Deprecated alias of serviceAccountName."),
            "automountServiceAccountToken": boolean("Mount the service account token."),
            "nodeName": string("The node the pod is bound to; set by the scheduler."),
            "hostNetwork": boolean("Use the host's network namespace."),
            "hostPID": boolean("Use the host's PID namespace."),
            "hostIPC": boolean("Use the host's IPC namespace."),
            "shareProcessNamespace": boolean("Share one PID namespace among the containers."),
            "securityContext": ref(core("PodSecurityContext"), "Pod-level security options."),
            "imagePullSecrets": merge_list(
                core("LocalObjectReference"), "Secrets used to pull the images."
            ),
            "hostname": string("Hostname of the pod (default: the pod name)."),
            "subdomain": string("Subdomain, giving the FQDN hostname.subdomain.ns.svc."),
            "affinity": ref(core("Affinity"), "Node and pod (anti-)affinity constraints."),
            "schedulerName": string("Scheduler to dispatch the pod to."),
            "tolerations": atomic_array(ref(core("Toleration")), "Taints the pod tolerates."),
            "hostAliases": merge_list(core("HostAlias"), "Extra /etc/hosts entries.", key="ip"),
            "priorityClassName": string("Name of the pod's PriorityClass."),
            "priority": integer("Priority value, resolved from the priority class."),
            "dnsConfig": ref(core("PodDNSConfig"), "Extra DNS parameters."),
            "readinessGates": atomic_array(
                ref(core("PodReadinessGate")), "Extra conditions required for readiness."
            ),
            "runtimeClassName": string("RuntimeClass used to run the pod."),
            "enableServiceLinks": boolean("Inject service environment variables."),
            "preemptionPolicy": string("Never or PreemptLowerPriority."),
            "overhead": map_of(ref(QUANTITY), "Resources consumed by the pod sandbox."),
            "topologySpreadConstraints": merge_list(
                core("TopologySpreadConstraint"),
                "How pods are spread across topology domains.",
                key="topologyKey",
                map_keys=("topologyKey", "whenUnsatisfiable"),
            ),
            "setHostnameAsFQDN": boolean("Set the hostname to the FQDN."),
            "os": ref(core("PodOS"), "Operating system the pod needs."),
            "hostUsers": boolean("Use the host's user namespace."),
            "schedulingGates": merge_list(
                core("PodSchedulingGate"), "Gates that hold the pod back from scheduling."
            ),
            "resourceClaims": merge_list(
                core("PodResourceClaim"),
                "Dynamic resource claims of the pod.",
                strategy="merge,retainKeys",
            ),
            "resources": ref(core("ResourceRequirements"), "Pod-level resource requirements."),
            "hostnameOverride": string("Hostname to use instead of the generated one."),
        },
        required=("containers",),
    )


def _pod_security_context() -> Schema:
    return struct(
        "Security options applied to every container of the pod.",
        {
            "seLinuxOptions": ref(core("SELinuxOptions"), "SELinux context for containers."),
            "windowsOptions": ref(core("WindowsSecurityContextOptions"), "Windows options."),
            "runAsUser": integer("UID to run entrypoints as.", fmt="int64"),
            "runAsGroup": integer("GID to run entrypoints as.", fmt="int64"),
            "runAsNonRoot": boolean("Refuse to start containers running as root."),
            "supplementalGroups": atomic_array(
                integer(fmt="int64"), "Extra groups for the first process."
            ),
            "supplementalGroupsPolicy": string("Merge or Strict."),
            "fsGroup": integer("Group owning the pod's volumes.", fmt="int64"),
            "sysctls": atomic_array(ref(core("Sysctl")), "Namespaced sysctls to set."),
            "fsGroupChangePolicy": string("OnRootMismatch or Always."),
            "seccompProfile": ref(core("SeccompProfile"), "Seccomp profile for containers."),
            "appArmorProfile": ref(core("AppArmorProfile"), "AppArmor profile for containers."),
            "seLinuxChangePolicy": string("Recursive or MountOption."),
        },
    )


def _misc_schemas() -> dict[str, Schema]:
    return {
        core("Toleration"): struct(
            "Lets the pod schedule onto nodes with a matching taint.",
            {
                "key": string("Taint key; empty with Exists matches all taints."),
                "operator": string("Exists or Equal (default Equal)."),
                "value": string("Taint value for Equal."),
                "effect": string("NoSchedule, PreferNoSchedule or NoExecute."),
                "tolerationSeconds": integer(
                    "How long a NoExecute taint is tolerated.", fmt="int64"
                ),
            },
        ),
        core("HostAlias"): struct(
            "An /etc/hosts entry.",
            {"ip": string("IP address."), "hostnames": atomic_array(string(), "Host names.")},
            required=("ip",),
        ),
        core("PodDNSConfig"): struct(
            "DNS parameters merged into the generated resolv.conf.",
            {
                "nameservers": atomic_array(string(), "Name server IPs."),
                "searches": atomic_array(string(), "Search domains."),
                "options": atomic_array(ref(core("PodDNSConfigOption")), "Resolver options."),
            },
        ),
        core("PodDNSConfigOption"): struct(
            "A resolver option.", {"name": string("Option name."), "value": string("Value.")}
        ),
        core("PodReadinessGate"): struct(
            "A pod condition that must be true for readiness.",
            {"conditionType": string("The condition type.")},
            required=("conditionType",),
        ),
        core("TopologySpreadConstraint"): struct(
            "Spread matching pods evenly across a topology.",
            {
                "maxSkew": integer("Maximum allowed difference between domains."),
                "topologyKey": string("Node label naming the domain."),
                "whenUnsatisfiable": string("DoNotSchedule or ScheduleAnyway."),
                "labelSelector": ref(meta("LabelSelector"), "Selects the pods counted."),
                "minDomains": integer("Minimum number of eligible domains."),
                "nodeAffinityPolicy": string("Honor or Ignore."),
                "nodeTaintsPolicy": string("Honor or Ignore."),
                "matchLabelKeys": atomic_array(string(), "Pod label keys added to the selector."),
            },
            required=("maxSkew", "topologyKey", "whenUnsatisfiable"),
        ),
        core("Sysctl"): struct(
            "A kernel parameter.",
            {"name": string("Parameter name."), "value": string("Parameter value.")},
            required=("name", "value"),
        ),
        core("PodOS"): struct(
            "The pod's operating system.", {"name": string("linux or windows.")}, required=("name",)
        ),
        core("PodSchedulingGate"): struct(
            "A scheduling gate.", {"name": string("Gate name.")}, required=("name",)
        ),
        core("PodResourceClaim"): struct(
            "A dynamic resource claim of the pod.",
            {
                "name": string("Name referenced by containers."),
                "resourceClaimName": string("An existing ResourceClaim."),
                "resourceClaimTemplateName": string("A template to create the claim from."),
            },
            required=("name",),
        ),
        core("LocalObjectReference"): _local_reference(),
    }


def _local_reference() -> Schema:
    schema = struct(
        "Refers to an object in the same namespace by name.",
        {"name": string("Name of the referent.")},
    )
    schema["x-kubernetes-map-type"] = "atomic"
    return schema


def pod_spec_schemas() -> dict[str, Schema]:
    """Schema name -> schema for PodSpec and its scheduling/security parts."""
    return {
        core("PodSpec"): _pod_spec(),
        core("PodSecurityContext"): _pod_security_context(),
        **affinity_schemas(),
        **_misc_schemas(),
    }
