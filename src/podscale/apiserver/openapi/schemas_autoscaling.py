"""OpenAPI schemas of the autoscaling/v2 HorizontalPodAutoscaler spec, complete.

Every metric source type (Object, Pods, Resource, ContainerResource, External), the metric
target, and behavior with policies, selectPolicy, stabilization windows and the configurable
tolerance. Status is in ``openapi.schemas_autoscaling_status``; the CPU-only v1 form and Scale
are in ``openapi.schemas_autoscaling_v1``, reusing ``hpa_kind`` and ``cross_version_reference``.
Descriptions are podscale's own, short but informative: ``kubectl explain hpa.spec`` prints them.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    autoscaling_v1,
    autoscaling_v2,
    integer,
    kind_header,
    list_kind,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import QUANTITY

__all__ = [
    "HPA",
    "METRIC_SOURCES",
    "autoscaling_v2_schemas",
    "cross_version_reference",
    "hpa_kind",
]

HPA = "HorizontalPodAutoscaler"
# (type prefix, member, what it measures): the same members appear in MetricSpec and
# MetricStatus, pointing at <Prefix>MetricSource and <Prefix>MetricStatus respectively.
METRIC_SOURCES = (
    ("Object", "object", "a single Kubernetes object, e.g. hits-per-second on an Ingress"),
    ("Pods", "pods", "every pod of the target, averaged, e.g. transactions per second"),
    ("Resource", "resource", "a resource (cpu, memory) of the target's pods, from requests"),
    (
        "ContainerResource",
        "containerResource",
        "a resource of one named container in each pod of the target",
    ),
    ("External", "external", "a metric from outside the cluster, e.g. a queue length"),
)


def hpa_kind(version: str) -> Schema:
    """The HorizontalPodAutoscaler kind schema of ``version`` (v1 and v2 share its shape)."""
    name = autoscaling_v2 if version == "v2" else autoscaling_v1
    return struct(
        "Automatically scales the replica count of a workload that has a scale subresource.",
        {
            **kind_header(),
            "spec": ref(name(f"{HPA}Spec"), "What to scale, within which bounds, on what."),
            "status": ref(name(f"{HPA}Status"), "The autoscaler's last observations."),
        },
        gvk=("autoscaling", version, HPA),
    )


def cross_version_reference() -> Schema:
    """CrossVersionObjectReference, identical in v1 and v2."""
    return struct(
        "Identifies the referred object by apiVersion, kind and name.",
        {
            "apiVersion": string("API version of the referent, e.g. apps/v1."),
            "kind": string("Kind of the referent, e.g. Deployment."),
            "name": string("Name of the referent."),
        },
        required=("kind", "name"),
    )


def _v2_spec_schemas() -> dict[str, Schema]:
    source_props = {
        member: ref(autoscaling_v2(f"{prefix}MetricSource"), f"A metric of {text}.")
        for prefix, member, text in METRIC_SOURCES
    }
    return {
        autoscaling_v2(f"{HPA}Spec"): struct(
            "Desired behaviour of a HorizontalPodAutoscaler.",
            {
                "scaleTargetRef": ref(
                    autoscaling_v2("CrossVersionObjectReference"),
                    "The workload to scale (its /scale).",
                ),
                "minReplicas": integer(
                    "Lower replica bound (default 1); 0 is allowed with HPAScaleToZero "
                    "and an Object or External metric."
                ),
                "maxReplicas": integer("Upper replica bound; must be >= minReplicas."),
                "metrics": array(
                    ref(autoscaling_v2("MetricSpec")),
                    "Metrics to scale on; each proposes a replica count and the largest wins. "
                    "Default: 80% average CPU utilization.",
                    list_type="atomic",
                ),
                "behavior": ref(
                    autoscaling_v2(f"{HPA}Behavior"),
                    "Scaling behaviour up and down; defaults apply where unset.",
                ),
            },
            required=("scaleTargetRef", "maxReplicas"),
        ),
        autoscaling_v2("MetricSpec"): struct(
            "One metric to scale on; type names the member that is set.",
            {
                "type": string("Object, Pods, Resource, ContainerResource or External."),
                **source_props,
            },
            required=("type",),
        ),
        autoscaling_v2("ObjectMetricSource"): struct(
            "A metric describing one Kubernetes object.",
            {
                "describedObject": ref(
                    autoscaling_v2("CrossVersionObjectReference"), "The object measured."
                ),
                "target": ref(autoscaling_v2("MetricTarget"), "Target value or average value."),
                "metric": ref(autoscaling_v2("MetricIdentifier"), "The metric name and selector."),
            },
            required=("describedObject", "target", "metric"),
        ),
        autoscaling_v2("PodsMetricSource"): struct(
            "A metric averaged over the target's pods; only AverageValue targets.",
            {
                "metric": ref(autoscaling_v2("MetricIdentifier"), "The metric name and selector."),
                "target": ref(autoscaling_v2("MetricTarget"), "Target average value."),
            },
            required=("metric", "target"),
        ),
        autoscaling_v2("ResourceMetricSource"): struct(
            "A resource metric of the target's pods (as in their requests and limits).",
            {
                "name": string("Resource name, e.g. cpu or memory."),
                "target": ref(
                    autoscaling_v2("MetricTarget"), "Target utilization or average value."
                ),
            },
            required=("name", "target"),
        ),
        autoscaling_v2("ContainerResourceMetricSource"): struct(
            "A resource metric of one container in each of the target's pods.",
            {
                "name": string("Resource name, e.g. cpu or memory."),
                "target": ref(
                    autoscaling_v2("MetricTarget"), "Target utilization or average value."
                ),
                "container": string("Name of the container in the target's pods."),
            },
            required=("name", "target", "container"),
        ),
        autoscaling_v2("ExternalMetricSource"): struct(
            "A metric not tied to any Kubernetes object.",
            {
                "metric": ref(autoscaling_v2("MetricIdentifier"), "The metric name and selector."),
                "target": ref(autoscaling_v2("MetricTarget"), "Target value or average value."),
            },
            required=("metric", "target"),
        ),
        autoscaling_v2("MetricIdentifier"): struct(
            "Names a metric, optionally narrowed by a label selector.",
            {
                "name": string("Name of the metric."),
                "selector": ref(
                    meta("LabelSelector"), "Narrows the metric's series; empty selects all."
                ),
            },
            required=("name",),
        ),
        autoscaling_v2("MetricTarget"): struct(
            "The target for a metric; type says which value field is used.",
            {
                "type": string("Utilization, Value or AverageValue."),
                "value": ref(QUANTITY, "Target value of the metric, for type Value."),
                "averageValue": ref(
                    QUANTITY, "Target per-pod average of the metric, for type AverageValue."
                ),
                "averageUtilization": integer(
                    "Target per-pod average as a percentage of the pods' requests, for type "
                    "Utilization (Resource and ContainerResource only)."
                ),
            },
            required=("type",),
        ),
    }


def _v2_behavior_schemas() -> dict[str, Schema]:
    return {
        autoscaling_v2(f"{HPA}Behavior"): struct(
            "How fast the target may be scaled up and down.",
            {
                "scaleUp": ref(
                    autoscaling_v2("HPAScalingRules"),
                    "Rules for scaling up. Default: the larger of +4 pods or +100% per 60s, "
                    "no stabilization.",
                ),
                "scaleDown": ref(
                    autoscaling_v2("HPAScalingRules"),
                    "Rules for scaling down. Default: down to minReplicas at once (100% per "
                    "15s) after a 300s stabilization window.",
                ),
            },
        ),
        autoscaling_v2("HPAScalingRules"): struct(
            "Scaling rules for one direction, applied after the desired count is computed.",
            {
                "stabilizationWindowSeconds": integer(
                    "Seconds of past recommendations considered, to prevent flapping "
                    "(0-3600; default 0 up, 300 down)."
                ),
                "selectPolicy": string(
                    "Which policy applies when several do: Max (default), Min or Disabled."
                ),
                "policies": array(
                    ref(autoscaling_v2("HPAScalingPolicy")),
                    "Limits on the change per period; selectPolicy picks among them.",
                    list_type="atomic",
                ),
                "tolerance": ref(
                    QUANTITY,
                    "Fraction the usage ratio may deviate from 1.0 without scaling in this "
                    "direction, e.g. 0.05 (default: the controller's, 0.1). Needs the "
                    "HPAConfigurableTolerance feature gate.",
                ),
            },
        ),
        autoscaling_v2("HPAScalingPolicy"): struct(
            "One limit on how much the replica count may change within a period.",
            {
                "type": string("Pods (absolute count) or Percent (of current replicas)."),
                "value": integer("The allowed change; must be greater than zero."),
                "periodSeconds": integer("Window the policy must hold over, in seconds (1-1800)."),
            },
            required=("type", "value", "periodSeconds"),
        ),
    }


def autoscaling_v2_schemas() -> dict[str, Schema]:
    """Schema name -> schema for autoscaling/v2."""
    return {
        autoscaling_v2(HPA): hpa_kind("v2"),
        autoscaling_v2(f"{HPA}List"): list_kind(
            "A list of autoscalers.", autoscaling_v2(HPA), ("autoscaling", "v2", f"{HPA}List")
        ),
        autoscaling_v2("CrossVersionObjectReference"): cross_version_reference(),
        **_v2_spec_schemas(),
        **_v2_behavior_schemas(),
    }
