"""OpenAPI schemas of the application kinds: ConfigMap, Secret, Service, ServiceAccount (core/v1),
PodDisruptionBudget (policy/v1) and Lease (coordination.k8s.io/v1), with their parts.

Every field upstream's types have is listed, so strict field validation (``kubectl apply``
sends ``fieldValidation=Strict``) accepts any manifest a cluster accepts and ``kubectl explain``
can describe them; list markers follow upstream's (Service ports merge on ``port`` and are keyed
by port and protocol). ``openapi.schemas`` merges this table with the others.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    boolean,
    core,
    integer,
    kind_header,
    list_kind,
    map_of,
    merge_list,
    meta,
    ref,
    string,
    string_map,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import INT_OR_STRING

__all__ = ["app_schemas"]


def policy(name: str) -> str:
    return f"io.k8s.api.policy.v1.{name}"


def coordination(name: str) -> str:
    return f"io.k8s.api.coordination.v1.{name}"


def _config_schemas() -> dict[str, Schema]:
    immutable = boolean("If true, data cannot change (only metadata); it cannot be unset.")
    return {
        core("ConfigMap"): struct(
            "Configuration data for pods to consume.",
            {
                **kind_header(),
                "data": string_map("UTF-8 values by key."),
                "binaryData": map_of(
                    {"type": "string", "format": "byte"}, "Binary values by key, base64 encoded."
                ),
                "immutable": immutable,
            },
            gvk=("", "v1", "ConfigMap"),
        ),
        core("ConfigMapList"): list_kind(
            "A list of ConfigMaps.", core("ConfigMap"), ("", "v1", "ConfigMapList")
        ),
        core("Secret"): struct(
            "Sensitive data (passwords, tokens, keys) for pods to consume.",
            {
                **kind_header(),
                "data": map_of(
                    {"type": "string", "format": "byte"}, "Values by key, base64 encoded."
                ),
                "stringData": string_map(
                    "Write-only plain-text values, merged into data on write (they win)."
                ),
                "type": string("How the data is used; Opaque unless a well-known type."),
                "immutable": immutable,
            },
            gvk=("", "v1", "Secret"),
        ),
        core("SecretList"): list_kind(
            "A list of Secrets.", core("Secret"), ("", "v1", "SecretList")
        ),
        core("ServiceAccount"): struct(
            "An identity for the processes of pods.",
            {
                **kind_header(),
                "secrets": merge_list(
                    core("ObjectReference"), "Secrets the account's pods may use (legacy)."
                ),
                "imagePullSecrets": atomic_array(
                    ref(core("LocalObjectReference")), "Secrets pods of this account pull with."
                ),
                "automountServiceAccountToken": boolean("Whether pods mount an API token."),
            },
            gvk=("", "v1", "ServiceAccount"),
        ),
        core("ServiceAccountList"): list_kind(
            "A list of ServiceAccounts.", core("ServiceAccount"), ("", "v1", "ServiceAccountList")
        ),
    }


def _service_spec() -> Schema:
    ports = merge_list(
        core("ServicePort"), "Ports the Service exposes.", key="port", map_keys=("port", "protocol")
    )
    selector = string_map("Route to pods whose labels match; none means unmanaged endpoints.")
    selector["x-kubernetes-map-type"] = "atomic"
    return struct(
        "Desired state of a Service.",
        {
            "ports": ports,
            "selector": selector,
            "clusterIP": string("The virtual IP; allocated when empty, None for headless."),
            "clusterIPs": atomic_array(string(), "The virtual IPs, one per IP family."),
            "type": string("ClusterIP, NodePort, LoadBalancer or ExternalName."),
            "externalIPs": atomic_array(string(), "Extra IPs nodes accept traffic for."),
            "sessionAffinity": string("ClientIP or None."),
            "loadBalancerIP": string("Deprecated: a load balancer address to ask for."),
            "loadBalancerSourceRanges": atomic_array(
                string(), "Client ranges a load balancer allows."
            ),
            "externalName": string("The DNS name an ExternalName Service aliases."),
            "externalTrafficPolicy": string("Cluster or Local, for external traffic."),
            "healthCheckNodePort": integer("Node port of the health check (Local policy)."),
            "publishNotReadyAddresses": boolean("Publish endpoints of pods that are not ready."),
            "sessionAffinityConfig": ref(core("SessionAffinityConfig"), "Affinity settings."),
            "ipFamilies": atomic_array(string(), "IPv4 and/or IPv6, in order of the cluster IPs."),
            "ipFamilyPolicy": string("SingleStack, PreferDualStack or RequireDualStack."),
            "allocateLoadBalancerNodePorts": boolean("Allocate node ports for a LoadBalancer."),
            "loadBalancerClass": string("The load balancer implementation to use."),
            "internalTrafficPolicy": string("Cluster or Local, for traffic from inside."),
            "trafficDistribution": string("Preference for routing, e.g. PreferClose."),
        },
    )


def _service_schemas() -> dict[str, Schema]:
    conditions = merge_list(meta("Condition"), "Current conditions.", key="type")
    return {
        core("Service"): struct(
            "A stable virtual address and name for a set of pods.",
            {
                **kind_header(),
                "spec": ref(core("ServiceSpec"), "Desired state of the Service."),
                "status": ref(core("ServiceStatus"), "Observed state of the Service; read-only."),
            },
            gvk=("", "v1", "Service"),
        ),
        core("ServiceList"): list_kind(
            "A list of Services.", core("Service"), ("", "v1", "ServiceList")
        ),
        core("ServiceSpec"): _service_spec(),
        core("ServicePort"): struct(
            "One port of a Service.",
            {
                "name": string("Port name; required when there are several."),
                "protocol": string("TCP, UDP or SCTP."),
                "appProtocol": string("Application protocol, e.g. http."),
                "port": integer("The port the Service exposes."),
                "targetPort": ref(INT_OR_STRING, "Pod port number or name; defaults to port."),
                "nodePort": integer("The port on every node (NodePort, LoadBalancer)."),
            },
            required=("port",),
        ),
        core("SessionAffinityConfig"): struct(
            "Session affinity settings.",
            {"clientIP": ref(core("ClientIPConfig"), "ClientIP affinity settings.")},
        ),
        core("ClientIPConfig"): struct(
            "ClientIP affinity settings.",
            {"timeoutSeconds": integer("Seconds a client sticks to one endpoint.")},
        ),
        core("ServiceStatus"): struct(
            "Observed state of a Service.",
            {
                "loadBalancer": ref(core("LoadBalancerStatus"), "The load balancer, if any."),
                "conditions": conditions,
            },
        ),
        core("LoadBalancerStatus"): struct(
            "A load balancer's state.",
            {
                "ingress": atomic_array(
                    ref(core("LoadBalancerIngress")), "Where the load balancer listens."
                )
            },
        ),
        core("LoadBalancerIngress"): struct(
            "One ingress point of a load balancer.",
            {
                "ip": string("IP address."),
                "hostname": string("DNS name."),
                "ipMode": string("VIP or Proxy."),
                "ports": atomic_array(ref(core("PortStatus")), "Per-port state."),
            },
        ),
        core("PortStatus"): struct(
            "State of one load balancer port.",
            {
                "port": integer("Port number."),
                "protocol": string("TCP, UDP or SCTP."),
                "error": string("Why the port is not working, if it is not."),
            },
            required=("port", "protocol"),
        ),
    }


def _policy_schemas() -> dict[str, Schema]:
    gvk = ("policy", "v1", "PodDisruptionBudget")
    counter = "int32"
    return {
        policy("PodDisruptionBudget"): struct(
            "Limits how many pods of a set voluntary disruptions may take down at once.",
            {
                **kind_header(),
                "spec": ref(policy("PodDisruptionBudgetSpec"), "Desired budget."),
                "status": ref(policy("PodDisruptionBudgetStatus"), "Observed budget; read-only."),
            },
            gvk=gvk,
        ),
        policy("PodDisruptionBudgetList"): list_kind(
            "A list of PodDisruptionBudgets.",
            policy("PodDisruptionBudget"),
            ("policy", "v1", "PodDisruptionBudgetList"),
        ),
        policy("PodDisruptionBudgetSpec"): struct(
            "Desired budget.",
            {
                "minAvailable": ref(INT_OR_STRING, "Pods that must stay available (or %)."),
                "selector": ref(meta("LabelSelector"), "The pods the budget covers."),
                "maxUnavailable": ref(INT_OR_STRING, "Pods that may be unavailable (or %)."),
                "unhealthyPodEvictionPolicy": string("IfHealthyBudget or AlwaysAllow."),
            },
        ),
        policy("PodDisruptionBudgetStatus"): struct(
            "Observed budget.",
            {
                "observedGeneration": integer("Generation last observed.", fmt="int64"),
                "disruptedPods": map_of(ref(meta("Time")), "Pods being evicted, by name."),
                "disruptionsAllowed": integer("Disruptions allowed now.", fmt=counter),
                "currentHealthy": integer("Healthy pods now.", fmt=counter),
                "desiredHealthy": integer("Healthy pods wanted.", fmt=counter),
                "expectedPods": integer("Pods the budget counts.", fmt=counter),
                "conditions": merge_list(meta("Condition"), "Current conditions.", key="type"),
            },
            required=("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"),
        ),
        meta("Condition"): struct(
            "One aspect of an object's state.",
            {
                "type": string("Condition type, in CamelCase."),
                "status": string("True, False or Unknown."),
                "observedGeneration": integer("Generation the condition is about.", fmt="int64"),
                "lastTransitionTime": ref(meta("Time"), "When the status last changed."),
                "reason": string("Machine-readable reason, in CamelCase."),
                "message": string("Human-readable details."),
            },
            required=("type", "status", "lastTransitionTime", "reason", "message"),
        ),
    }


def _lease_schemas() -> dict[str, Schema]:
    return {
        coordination("Lease"): struct(
            "A lease: who holds a lock (leader election, node heartbeats) and until when.",
            {**kind_header(), "spec": ref(coordination("LeaseSpec"), "The lease.")},
            gvk=("coordination.k8s.io", "v1", "Lease"),
        ),
        coordination("LeaseList"): list_kind(
            "A list of Leases.", coordination("Lease"), ("coordination.k8s.io", "v1", "LeaseList")
        ),
        coordination("LeaseSpec"): struct(
            "The lease.",
            {
                "holderIdentity": string("Who holds the lease."),
                "leaseDurationSeconds": integer("Seconds a holder waits after the last renewal."),
                "acquireTime": ref(meta("MicroTime"), "When the current holder acquired it."),
                "renewTime": ref(meta("MicroTime"), "When the holder last renewed it."),
                "leaseTransitions": integer("How often the holder changed."),
                "strategy": string("How a coordinated leader is picked."),
                "preferredHolder": string("The holder a coordinated election prefers."),
            },
        ),
    }


def app_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the application kinds and their parts."""
    return {
        **_config_schemas(),
        **_service_schemas(),
        **_policy_schemas(),
        **_lease_schemas(),
    }
