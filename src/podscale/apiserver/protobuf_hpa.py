"""Protobuf schemas of the HorizontalPodAutoscaler, autoscaling/v1 and autoscaling/v2.

Field numbers come from upstream's ``generated.proto`` files (staging/src/k8s.io/api/
autoscaling/{v1,v2}, apimachinery/pkg/apis/meta/v1, apimachinery/pkg/api/resource); the
JSON names are the Go structs' json tags. ``protobuf_decode`` interprets these schemas;
``protobuf`` picks one by the envelope's apiVersion and kind.

Decoded: ObjectMeta's name, generateName, namespace, labels and annotations (the rest is
server-owned or irrelevant to a create and is skipped), and the whole spec of both versions.
``status`` is skipped: the create strategy discards it anyway.
"""

from __future__ import annotations

from podscale.apiserver.protobuf_decode import FieldKind, FieldSpec, MessageSpec

__all__ = ["HPA_V1", "HPA_V2"]


def _string(name: str, go_name: str = "") -> FieldSpec:
    return FieldSpec(name, FieldKind.STRING, go_name=go_name)


def _int32(name: str) -> FieldSpec:
    return FieldSpec(name, FieldKind.INT32)


def _quantity(name: str) -> FieldSpec:
    return FieldSpec(name, FieldKind.QUANTITY)


def _message(name: str, spec: MessageSpec, *, repeated: bool = False) -> FieldSpec:
    return FieldSpec(name, FieldKind.MESSAGE, repeated=repeated, message=spec)


# -- meta/v1 ------------------------------------------------------------------------------

OBJECT_META = MessageSpec(
    "ObjectMeta",
    {
        1: _string("name"),
        2: _string("generateName"),
        3: _string("namespace"),
        11: FieldSpec("labels", FieldKind.STRING_MAP),
        12: FieldSpec("annotations", FieldKind.STRING_MAP),
    },
)

LABEL_SELECTOR = MessageSpec(
    "LabelSelector",
    {
        1: FieldSpec("matchLabels", FieldKind.STRING_MAP),
        2: _message(
            "matchExpressions",
            MessageSpec(
                "LabelSelectorRequirement",
                {
                    1: _string("key"),
                    2: _string("operator"),
                    3: FieldSpec("values", FieldKind.STRING, repeated=True),
                },
            ),
            repeated=True,
        ),
    },
)

CROSS_VERSION_OBJECT_REFERENCE = MessageSpec(
    "CrossVersionObjectReference",
    {1: _string("kind"), 2: _string("name"), 3: _string("apiVersion", go_name="APIVersion")},
)

# -- autoscaling/v1 -------------------------------------------------------------------------

_V1_SPEC = MessageSpec(
    "HorizontalPodAutoscalerSpec",
    {
        1: _message("scaleTargetRef", CROSS_VERSION_OBJECT_REFERENCE),
        2: _int32("minReplicas"),
        3: _int32("maxReplicas"),
        4: FieldSpec(
            "targetCPUUtilizationPercentage",
            FieldKind.INT32,
            go_name="TargetCPUUtilizationPercentage",
        ),
    },
)

HPA_V1 = MessageSpec(
    "HorizontalPodAutoscaler",
    {1: _message("metadata", OBJECT_META), 2: _message("spec", _V1_SPEC)},
)

# -- autoscaling/v2 -------------------------------------------------------------------------

_METRIC_TARGET = MessageSpec(
    "MetricTarget",
    {
        1: _string("type"),
        2: _quantity("value"),
        3: _quantity("averageValue"),
        4: _int32("averageUtilization"),
    },
)

_METRIC_IDENTIFIER = MessageSpec(
    "MetricIdentifier",
    {1: _string("name"), 2: _message("selector", LABEL_SELECTOR)},
)

_TARGET = _message("target", _METRIC_TARGET)

_METRIC_SPEC = MessageSpec(
    "MetricSpec",
    {
        1: _string("type"),
        2: _message(
            "object",
            MessageSpec(
                "ObjectMetricSource",
                {
                    1: _message("describedObject", CROSS_VERSION_OBJECT_REFERENCE),
                    2: _TARGET,
                    3: _message("metric", _METRIC_IDENTIFIER),
                },
            ),
        ),
        3: _message(
            "pods",
            MessageSpec(
                "PodsMetricSource", {1: _message("metric", _METRIC_IDENTIFIER), 2: _TARGET}
            ),
        ),
        4: _message(
            "resource",
            MessageSpec("ResourceMetricSource", {1: _string("name"), 2: _TARGET}),
        ),
        5: _message(
            "external",
            MessageSpec(
                "ExternalMetricSource", {1: _message("metric", _METRIC_IDENTIFIER), 2: _TARGET}
            ),
        ),
        7: _message(
            "containerResource",
            MessageSpec(
                "ContainerResourceMetricSource",
                {1: _string("name"), 2: _TARGET, 3: _string("container")},
            ),
        ),
    },
)

_SCALING_RULES = MessageSpec(
    "HPAScalingRules",
    {
        1: _string("selectPolicy"),
        2: _message(
            "policies",
            MessageSpec(
                "HPAScalingPolicy",
                {1: _string("type"), 2: _int32("value"), 3: _int32("periodSeconds")},
            ),
            repeated=True,
        ),
        3: _int32("stabilizationWindowSeconds"),
        4: _quantity("tolerance"),
    },
)

_BEHAVIOR = MessageSpec(
    "HorizontalPodAutoscalerBehavior",
    {1: _message("scaleUp", _SCALING_RULES), 2: _message("scaleDown", _SCALING_RULES)},
)

_V2_SPEC = MessageSpec(
    "HorizontalPodAutoscalerSpec",
    {
        1: _message("scaleTargetRef", CROSS_VERSION_OBJECT_REFERENCE),
        2: _int32("minReplicas"),
        3: _int32("maxReplicas"),
        4: _message("metrics", _METRIC_SPEC, repeated=True),
        5: _message("behavior", _BEHAVIOR),
    },
)

HPA_V2 = MessageSpec(
    "HorizontalPodAutoscaler",
    {1: _message("metadata", OBJECT_META), 2: _message("spec", _V2_SPEC)},
)
