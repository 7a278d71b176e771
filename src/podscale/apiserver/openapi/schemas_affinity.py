"""OpenAPI schemas of core/v1 Affinity: node affinity and pod (anti-)affinity rules and terms.

The scheduling constraints a PodSpec's ``affinity`` refers to. ``openapi.schemas_pod`` merges
``affinity_schemas`` into ``pod_spec_schemas`` after PodSecurityContext, so the table
``openapi.schemas`` builds keeps its order; the shapes come from ``openapi.dsl``.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    core,
    integer,
    meta,
    ref,
    string,
    struct,
)

__all__ = ["affinity_schemas"]


def affinity_schemas() -> dict[str, Schema]:
    """Schema name -> schema for Affinity and its node and pod parts."""
    return {**_node_affinity_schemas(), **_pod_affinity_schemas()}


def _node_affinity_schemas() -> dict[str, Schema]:
    node_selector = struct(
        "Node selector terms; a node matches if any term matches.",
        {"nodeSelectorTerms": atomic_array(ref(core("NodeSelectorTerm")), "ORed terms.")},
        required=("nodeSelectorTerms",),
    )
    node_selector["x-kubernetes-map-type"] = "atomic"
    term = struct(
        "Node requirements that are ANDed.",
        {
            "matchExpressions": atomic_array(
                ref(core("NodeSelectorRequirement")), "Requirements on node labels."
            ),
            "matchFields": atomic_array(
                ref(core("NodeSelectorRequirement")), "Requirements on node fields."
            ),
        },
    )
    term["x-kubernetes-map-type"] = "atomic"
    return {
        core("NodeAffinity"): struct(
            "Node affinity scheduling rules.",
            {
                "requiredDuringSchedulingIgnoredDuringExecution": ref(
                    core("NodeSelector"), "Hard requirement checked at scheduling time."
                ),
                "preferredDuringSchedulingIgnoredDuringExecution": atomic_array(
                    ref(core("PreferredSchedulingTerm")), "Weighted soft preferences."
                ),
            },
        ),
        core("NodeSelector"): node_selector,
        core("NodeSelectorTerm"): term,
        core("NodeSelectorRequirement"): struct(
            "A key, an operator (In, NotIn, Exists, DoesNotExist, Gt, Lt) and values.",
            {
                "key": string("Label key."),
                "operator": string("The operator."),
                "values": atomic_array(string(), "Values to compare with."),
            },
            required=("key", "operator"),
        ),
        core("PreferredSchedulingTerm"): struct(
            "A weighted node preference.",
            {
                "weight": integer("Weight, 1-100."),
                "preference": ref(core("NodeSelectorTerm"), "The preferred node term."),
            },
            required=("weight", "preference"),
        ),
    }


def _pod_affinity_schemas() -> dict[str, Schema]:
    def rules(description: str) -> Schema:
        return struct(
            description,
            {
                "requiredDuringSchedulingIgnoredDuringExecution": atomic_array(
                    ref(core("PodAffinityTerm")), "Hard requirements."
                ),
                "preferredDuringSchedulingIgnoredDuringExecution": atomic_array(
                    ref(core("WeightedPodAffinityTerm")), "Weighted soft preferences."
                ),
            },
        )

    return {
        core("Affinity"): struct(
            "Scheduling constraints relative to nodes and other pods.",
            {
                "nodeAffinity": ref(core("NodeAffinity"), "Rules on node labels."),
                "podAffinity": ref(core("PodAffinity"), "Co-locate with matching pods."),
                "podAntiAffinity": ref(core("PodAntiAffinity"), "Avoid matching pods."),
            },
        ),
        core("PodAffinity"): rules("Rules to place the pod near matching pods."),
        core("PodAntiAffinity"): rules("Rules to keep the pod away from matching pods."),
        core("PodAffinityTerm"): struct(
            "Pods (selected by labels and namespaces) sharing a topology domain.",
            {
                "labelSelector": ref(meta("LabelSelector"), "Selects the other pods."),
                "namespaces": atomic_array(string(), "Namespaces the selector applies to."),
                "topologyKey": string("Node label naming the topology domain."),
                "namespaceSelector": ref(meta("LabelSelector"), "Selects namespaces."),
                "matchLabelKeys": atomic_array(string(), "Pod label keys added to the selector."),
                "mismatchLabelKeys": atomic_array(string(), "Pod label keys excluded by value."),
            },
            required=("topologyKey",),
        ),
        core("WeightedPodAffinityTerm"): struct(
            "A weighted pod affinity term.",
            {
                "weight": integer("Weight, 1-100."),
                "podAffinityTerm": ref(core("PodAffinityTerm"), "The term."),
            },
            required=("weight", "podAffinityTerm"),
        ),
    }
