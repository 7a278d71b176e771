"""PredictiveHorizontalPodAutoscaler validation: the HPA's spec rules under ``spec`` and the
PHPA's own fields, as Kubernetes field errors."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.feature_gates import HPA_SCALE_TO_ZERO
from podscale.controllers.phpa.validation import message, validate_phpa

JSON = dict[str, Any]
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
RPS = {
    "type": "Pods",
    "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "10"}},
}


def phpa(**spec: Any) -> JSON:
    return {
        "apiVersion": "autoscaling.podscale.dev/v1alpha1",
        "kind": "PredictiveHorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 10, **spec},
    }


def errors_of(obj: JSON, **options: Any) -> list[str]:
    return [str(error) for error in validate_phpa(obj, **options)]


@pytest.mark.parametrize(
    "spec",
    [
        {},
        {"prediction": {}},
        {
            "minReplicas": 2,
            "mode": "Preview",
            "metrics": [RPS],
            "prediction": {
                "metrics": ["rps"],
                "history": "35d",
                "algorithm": "holtWinters",
                "quantile": "0.5",
                "leadTime": "2m30s",
                "refreshInterval": "1d",
                "scaleDownLimit": "0%",
            },
            "schedules": [
                {"name": "day", "cron": "* 8-19 * * 1-5", "timeZone": "Asia/Shanghai"},
                {"name": "night", "cron": "0 * 0-5 * * *", "minReplicas": 1, "maxReplicas": 1},
                {"name": "daily", "cron": "@daily"},
            ],
        },
        {"prediction": {"leadTime": "auto", "scaleDownLimit": 50, "quantile": "0.999"}},
    ],
    ids=["bare", "prediction-defaults", "every-field", "auto-lead-integer-limit"],
)
def test_valid_objects_have_no_errors(spec: JSON) -> None:
    assert errors_of(phpa(**spec)) == []


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # The HPA's own rules and paths.
        (
            {"maxReplicas": 0},
            [
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                # minReplicas reads as its default, 1, as the HPA's does.
                "spec.maxReplicas: Invalid value: 0: must be greater than or equal to "
                "`minReplicas`",
            ],
        ),
        (
            {"minReplicas": 5, "maxReplicas": 2},
            ["spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"],
        ),
        (
            {"metrics": [{"type": "Pods", "pods": {"metric": {"name": "rps"}}}]},
            [
                "spec.metrics[0].pods.target.type: Required value: must specify a metric target "
                "type",
                'spec.metrics[0].pods.target.type: Invalid value: "": must be either '
                "Utilization, Value, or AverageValue",
                "spec.metrics[0].pods.target.averageValue: Required value: must specify a "
                "positive target averageValue",
            ],
        ),
        (
            {"behavior": {"scaleUp": {"selectPolicy": "Sometimes"}}},
            [
                'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Sometimes": '
                'supported values: "Disabled", "Max", "Min"'
            ],
        ),
        (
            {"mode": "Dry"},
            ['spec.mode: Unsupported value: "Dry": supported values: "Auto", "Preview"'],
        ),
        (
            {"prediction": {"metrics": ["memory"]}},
            [
                'spec.prediction.metrics[0]: Invalid value: "memory": must name one of '
                "spec.metrics: cpu"
            ],
        ),
        (
            {"metrics": [RPS], "prediction": {"metrics": ["rps", "rps"]}},
            ['spec.prediction.metrics[1]: Duplicate value: "rps"'],
        ),
        (
            {"prediction": {"history": "36d"}},
            ['spec.prediction.history: Invalid value: "36d": must be at most 35d'],
        ),
        (
            {"prediction": {"history": "1w"}},
            [
                'spec.prediction.history: Invalid value: "1w": time: unknown unit "w" in '
                'duration "1w"'
            ],
        ),
        (
            {"prediction": {"history": "0"}},
            ['spec.prediction.history: Invalid value: "0": must be greater than 0'],
        ),
        (
            {"prediction": {"algorithm": "arima"}},
            [
                'spec.prediction.algorithm: Unsupported value: "arima": supported values: '
                '"auto", "dsp", "holtWinters", "mstl", "percentile"'
            ],
        ),
        *(
            (
                {"prediction": {"quantile": q}},
                [
                    f"spec.prediction.quantile: Invalid value: {shown}: must be a decimal "
                    "greater than 0 and less than 1"
                ],
            )
            for q, shown in (("0", '"0"'), ("1", '"1"'), ("1.5", '"1.5"'), ("x", '"x"'))
        ),
        (
            {"prediction": {"leadTime": "-1m"}},
            ['spec.prediction.leadTime: Invalid value: "-1m": must be greater than 0'],
        ),
        (
            {"prediction": {"leadTime": "soon"}},
            ['spec.prediction.leadTime: Invalid value: "soon": time: invalid duration "soon"'],
        ),
        (
            {"prediction": {"refreshInterval": "0s"}},
            ['spec.prediction.refreshInterval: Invalid value: "0s": must be greater than 0'],
        ),
        (
            {"prediction": {"scaleDownLimit": "150%"}},
            [
                'spec.prediction.scaleDownLimit: Invalid value: "150%": must be a percentage '
                "from 0% to 100%"
            ],
        ),
        (
            {"prediction": {"scaleDownLimit": "half"}},
            [
                'spec.prediction.scaleDownLimit: Invalid value: "half": must be a percentage '
                "from 0% to 100%"
            ],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *"}, {"name": "a", "cron": "@daily"}]},
            ['spec.schedules[1].name: Duplicate value: "a"'],
        ),
        (
            {"schedules": [{"cron": "* * * * *"}, {"name": "b"}]},
            ["spec.schedules[0].name: Required value", "spec.schedules[1].cron: Required value"],
        ),
        (
            {"schedules": [{"name": "a", "cron": "61 * * * *"}]},
            [
                'spec.schedules[0].cron: Invalid value: "61 * * * *": minute: end of range (61) '
                "above maximum (59): 61"
            ],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * *"}]},
            [
                'spec.schedules[0].cron: Invalid value: "* * * *": spec: expected exactly 5 '
                "fields, found 4: [* * * *]"
            ],
        ),
        (
            {"schedules": [{"name": "a", "cron": "@every 5m"}]},
            [
                'spec.schedules[0].cron: Invalid value: "@every 5m": an @every schedule has no '
                "fixed minutes to form a window"
            ],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *", "timeZone": "Mars/Olympus"}]},
            ['spec.schedules[0].timeZone: Invalid value: "Mars/Olympus": unknown time zone'],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *", "timeZone": "America"}]},
            ['spec.schedules[0].timeZone: Invalid value: "America": unknown time zone'],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *", "minReplicas": 6, "maxReplicas": 3}]},
            [
                "spec.schedules[0].maxReplicas: Invalid value: 3: must be greater than or equal "
                "to `minReplicas`"
            ],
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *", "minReplicas": 0, "maxReplicas": 0}]},
            [
                "spec.schedules[0].minReplicas: Invalid value: 0: must be greater than or equal "
                "to 1",
                "spec.schedules[0].maxReplicas: Invalid value: 0: must be greater than 0",
            ],
        ),
    ],
    ids=[
        "hpa-max-replicas",
        "hpa-min-above-max",
        "hpa-metric-target",
        "hpa-behavior",
        "mode",
        "prediction-metric-unknown",
        "prediction-metric-twice",
        "history-too-long",
        "history-not-a-duration",
        "history-zero",
        "algorithm",
        "quantile-zero",
        "quantile-one",
        "quantile-above-one",
        "quantile-not-a-decimal",
        "lead-time-negative",
        "lead-time-word",
        "refresh-zero",
        "scale-down-limit-above-100",
        "scale-down-limit-word",
        "schedule-names-unique",
        "schedule-name-and-cron-required",
        "cron-field-range",
        "cron-field-count",
        "cron-every",
        "time-zone-unknown",
        "time-zone-directory",
        "window-bounds-order",
        "window-bounds-minimum",
    ],
)
def test_invalid_objects(spec: JSON, expected: list[str]) -> None:
    assert errors_of(phpa(**spec)) == expected


QUEUE = {
    "type": "External",
    "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "5"}},
}


def test_scale_to_zero_follows_the_hpa_gate() -> None:
    obj = phpa(
        minReplicas=0,
        metrics=[QUEUE],
        schedules=[{"name": "a", "cron": "* * * * *", "minReplicas": 0}],
    )
    assert errors_of(obj) == [
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.schedules[0].minReplicas: Invalid value: 0: must be greater than or equal to 1",
    ]
    assert errors_of(obj, feature_gates=frozenset({HPA_SCALE_TO_ZERO})) == []


def test_an_update_keeps_the_hpas_ratcheting() -> None:
    # minReplicas 0 stays allowed on an object that already had it, as for an HPA.
    old = phpa(minReplicas=0, metrics=[QUEUE])
    assert errors_of(phpa(minReplicas=0, maxReplicas=4, metrics=[QUEUE]), old=old) == []
    assert errors_of(phpa(minReplicas=0, maxReplicas=4, metrics=[QUEUE])) != []


@pytest.mark.parametrize(
    "obj",
    [
        {"metadata": {"name": "x"}},
        {"spec": "nope"},
        {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "behavior": "fast"}},
        {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "schedules": ["x"]}},
        {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "prediction": {"history": 7}}},
        {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "metrics": {"cpu": 80}}},
        {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "prediction": "yes"}},
    ],
    ids=[
        "no-spec",
        "spec-not-object",
        "behavior-not-object",
        "schedule-not-object",
        "number",
        "metrics-not-array",
        "prediction-not-object",
    ],
)
def test_objects_that_skipped_the_schema_get_errors_not_exceptions(obj: JSON) -> None:
    assert validate_phpa(obj) != []


def test_a_wrong_type_is_worded_as_the_schema_words_it() -> None:
    obj = {"spec": {"scaleTargetRef": REF, "maxReplicas": 3, "behavior": "fast"}}
    assert errors_of(obj) == [
        'spec.behavior: Invalid value: "string": spec.behavior in body must be of type '
        'object: "string"'
    ]


def test_the_message_joins_errors_as_an_invalid_status_does() -> None:
    one = validate_phpa(phpa(mode="Dry"))
    two = validate_phpa(phpa(mode="Dry", minReplicas=3, maxReplicas=2))
    assert message(one) == str(one[0])
    assert message(two) == f"[{two[0]}, {two[1]}]"
