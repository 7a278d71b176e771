"""OpenAPI schemas of autoscaling/v2 HorizontalPodAutoscaler status.

The last observed metric values (one status type per metric source, mirroring the spec side in
``openapi.schemas_autoscaling``), the replica counts and the AbleToScale / ScalingActive /
ScalingLimited conditions that ``kubectl describe hpa`` prints.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    autoscaling_v2,
    integer,
    merge_list,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_autoscaling import HPA, METRIC_SOURCES
from podscale.apiserver.openapi.schemas_meta import QUANTITY

__all__ = ["autoscaling_v2_status_schemas"]


def autoscaling_v2_status_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the autoscaling/v2 status types."""
    current = "Current value of the metric."
    status_props = {
        member: ref(autoscaling_v2(f"{prefix}MetricStatus"), f"Status of a metric of {text}.")
        for prefix, member, text in METRIC_SOURCES
    }
    value_status = ref(autoscaling_v2("MetricValueStatus"), current)
    identifier = ref(autoscaling_v2("MetricIdentifier"), "The metric name and selector.")
    return {
        autoscaling_v2(f"{HPA}Status"): struct(
            "What the autoscaler last observed and decided.",
            {
                "observedGeneration": integer("Generation last acted on.", fmt="int64"),
                "lastScaleTime": ref(meta("Time"), "When the replica count last changed."),
                "currentReplicas": integer("Replicas of the target as last seen."),
                "desiredReplicas": integer("Replicas the autoscaler last asked for."),
                "currentMetrics": array(
                    ref(autoscaling_v2("MetricStatus")),
                    "Last read value of each metric.",
                    list_type="atomic",
                ),
                "conditions": merge_list(
                    autoscaling_v2(f"{HPA}Condition"),
                    "AbleToScale, ScalingActive and ScalingLimited.",
                    key="type",
                ),
            },
            required=("desiredReplicas",),
        ),
        autoscaling_v2(f"{HPA}Condition"): struct(
            "A condition of the autoscaler.",
            {
                "type": string("AbleToScale, ScalingActive or ScalingLimited."),
                "status": string("True, False or Unknown."),
                "lastTransitionTime": ref(meta("Time"), "Last time the status changed."),
                "reason": string("Machine-readable reason, e.g. ValidMetricFound."),
                "message": string("Human-readable details."),
            },
            required=("type", "status"),
        ),
        autoscaling_v2("MetricStatus"): struct(
            "The last read value of one metric; type names the member that is set.",
            {
                "type": string("Object, Pods, Resource, ContainerResource or External."),
                **status_props,
            },
            required=("type",),
        ),
        autoscaling_v2("ObjectMetricStatus"): struct(
            "Current value of an Object metric.",
            {
                "metric": identifier,
                "current": value_status,
                "describedObject": ref(
                    autoscaling_v2("CrossVersionObjectReference"), "The object measured."
                ),
            },
            required=("metric", "current", "describedObject"),
        ),
        autoscaling_v2("PodsMetricStatus"): struct(
            "Current value of a Pods metric.",
            {"metric": identifier, "current": value_status},
            required=("metric", "current"),
        ),
        autoscaling_v2("ResourceMetricStatus"): struct(
            "Current value of a Resource metric.",
            {"name": string("Resource name."), "current": value_status},
            required=("name", "current"),
        ),
        autoscaling_v2("ContainerResourceMetricStatus"): struct(
            "Current value of a ContainerResource metric.",
            {
                "name": string("Resource name."),
                "current": value_status,
                "container": string("Container name."),
            },
            required=("name", "current", "container"),
        ),
        autoscaling_v2("ExternalMetricStatus"): struct(
            "Current value of an External metric.",
            {"metric": identifier, "current": value_status},
            required=("metric", "current"),
        ),
        autoscaling_v2("MetricValueStatus"): struct(
            "A current metric value, in the form the target uses.",
            {
                "value": ref(QUANTITY, "Current value."),
                "averageValue": ref(QUANTITY, "Current per-pod average."),
                "averageUtilization": integer("Current per-pod average as % of requests."),
            },
        ),
    }
