"""OpenAPI schemas of autoscaling/v1: the CPU-only HorizontalPodAutoscaler, and Scale.

Scale is the body of every ``/scale`` subresource, whatever the parent's group. The v1 HPA keeps
its kind and reference shapes in step with v2 by reusing ``openapi.schemas_autoscaling``.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    autoscaling_v1,
    integer,
    kind_header,
    list_kind,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_autoscaling import HPA, cross_version_reference, hpa_kind

__all__ = ["autoscaling_v1_schemas"]


def autoscaling_v1_schemas() -> dict[str, Schema]:
    """Schema name -> schema for autoscaling/v1 HorizontalPodAutoscaler and Scale."""
    return {
        autoscaling_v1(HPA): hpa_kind("v1"),
        autoscaling_v1(f"{HPA}List"): list_kind(
            "A list of autoscalers.", autoscaling_v1(HPA), ("autoscaling", "v1", f"{HPA}List")
        ),
        autoscaling_v1(f"{HPA}Spec"): struct(
            "Desired behaviour of an autoscaler (CPU only).",
            {
                "scaleTargetRef": ref(
                    autoscaling_v1("CrossVersionObjectReference"),
                    "The workload to scale (its /scale).",
                ),
                "minReplicas": integer("Lower replica bound (default 1)."),
                "maxReplicas": integer("Upper replica bound."),
                "targetCPUUtilizationPercentage": integer(
                    "Target average CPU utilization as % of requests (default 80)."
                ),
            },
            required=("scaleTargetRef", "maxReplicas"),
        ),
        autoscaling_v1(f"{HPA}Status"): struct(
            "Current state of an autoscaler.",
            {
                "observedGeneration": integer("Generation last acted on.", fmt="int64"),
                "lastScaleTime": ref(meta("Time"), "When the replica count last changed."),
                "currentReplicas": integer("Replicas of the target as last seen."),
                "desiredReplicas": integer("Replicas the autoscaler last asked for."),
                "currentCPUUtilizationPercentage": integer("Current average CPU utilization."),
            },
            required=("currentReplicas", "desiredReplicas"),
        ),
        autoscaling_v1("CrossVersionObjectReference"): cross_version_reference(),
        autoscaling_v1("Scale"): struct(
            "The scale subresource of a workload: its desired and observed replicas.",
            {
                **kind_header(),
                "spec": ref(autoscaling_v1("ScaleSpec"), "Desired scale."),
                "status": ref(autoscaling_v1("ScaleStatus"), "Observed scale; read-only."),
            },
            gvk=("autoscaling", "v1", "Scale"),
        ),
        autoscaling_v1("ScaleSpec"): struct(
            "Desired scale.", {"replicas": integer("Desired number of replicas.")}
        ),
        autoscaling_v1("ScaleStatus"): struct(
            "Observed scale.",
            {
                "replicas": integer("Observed number of replicas."),
                "selector": string("Label selector of the pods, in string form (app=web)."),
            },
            required=("replicas",),
        ),
    }
