"""KEDA's trigger metadata: required fields, Go's number errors, metric names, targets,
and the cron trigger's window, each row named for the KEDA behaviour it reproduces."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.triggers.cron import CronTrigger, cron_active, cron_desired
from podscale.controllers.keda.triggers.gojson import GoJSONError, decode
from podscale.controllers.keda.triggers.metrics_api import MetricsApiTrigger
from podscale.controllers.keda.triggers.prometheus import PrometheusTrigger
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.keda.triggers.spec import TriggerError, normalize_string, target_milli

CRON = {
    "timezone": "Asia/Kolkata",
    "start": "0 6 * * *",
    "end": "0 20 * * *",
    "desiredReplicas": "10",
}
PROM = {"serverAddress": "http://prometheus:9090", "query": "sum(queue)", "threshold": "5"}
API = {"url": "http://api/metrics", "valueLocation": "queue.depth", "targetValue": "5"}
WORKLOAD = {"podSelector": "app=worker", "value": "2"}


def _trigger(kind: str, metadata: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "metadata": dict(metadata), **extra}


def _without(metadata: Mapping[str, str], key: str) -> dict[str, str]:
    return {k: v for k, v in metadata.items() if k != key}


def _missing(name: str) -> str:
    return f'missing required parameter "{name}" in [triggerMetadata]'


CRON_PREFIX = "error parsing cron metadata: "
PROM_PREFIX = "error parsing prometheus metadata: " * 2
API_PREFIX = "error parsing metric API metadata: error parsing metrics API metadata: "
WORKLOAD_PREFIX = "error parsing kubernetes workload metadata: " * 2

REFUSED = [
    # cron: the typed config reports each missing field, then Validate runs on what is left.
    (_trigger("cron", _without(CRON, "timezone")), CRON_PREFIX + _missing("timezone")),
    (
        _trigger("cron", _without(CRON, "start")),
        CRON_PREFIX + _missing("start") + "\nerror parsing start schedule: empty spec string",
    ),
    (
        _trigger("cron", _without(CRON, "end")),
        CRON_PREFIX + _missing("end") + "\nerror parsing end schedule: empty spec string",
    ),
    (
        _trigger("cron", _without(CRON, "desiredReplicas")),
        CRON_PREFIX + _missing("desiredReplicas") + "\nno desiredReplicas specified",
    ),
    (
        _trigger("cron", {**CRON, "desiredReplicas": "ten"}),
        CRON_PREFIX + 'unable to set param "desiredReplicas" value "ten": unable to unmarshal '
        "to field type int64: invalid character 'e' in literal true (expecting 'r')"
        "\nno desiredReplicas specified",
    ),
    (
        _trigger("cron", {**CRON, "desiredReplicas": "1.5"}),
        CRON_PREFIX + 'unable to set param "desiredReplicas" value "1.5": unable to unmarshal '
        "to field type int64: json: cannot unmarshal number 1.5 into Go value of type int64"
        "\nno desiredReplicas specified",
    ),
    (
        _trigger("cron", {**CRON, "desiredReplicas": "0"}),
        CRON_PREFIX + "no desiredReplicas specified",
    ),
    (
        _trigger("cron", {**CRON, "end": CRON["start"]}),
        CRON_PREFIX + "start and end can not have exactly same time input",
    ),
    (
        _trigger("cron", {**CRON, "start": "0 6 * *"}),
        CRON_PREFIX + "error parsing start schedule: expected exactly 5 fields, found 4: [0 6 * *]",
    ),
    (
        _trigger("cron", {**CRON, "end": "0 25 * * *"}),
        CRON_PREFIX + "error parsing end schedule: end of range (25) above maximum (23): 25",
    ),
    (
        _trigger("cron", {**CRON, "start": "@daily"}),
        CRON_PREFIX + "error parsing start schedule: parser does not accept descriptors: @daily",
    ),
    (
        _trigger("cron", {**CRON, "start": "CRON_TZ=Mars/Base 0 6 * * *"}),
        CRON_PREFIX + "error parsing start schedule: provided bad location Mars/Base: "
        "unknown time zone Mars/Base",
    ),
    (
        _trigger("cron", {**CRON, "desiredReplicas": "1"}, metricType="Utilization"),
        "error getting scaler metric type: 'Utilization' metric type is unsupported for "
        "external metrics, allowed values are 'Value' or 'AverageValue'",
    ),
    # prometheus
    (
        _trigger("prometheus", _without(PROM, "serverAddress")),
        PROM_PREFIX + _missing("serverAddress"),
    ),
    (_trigger("prometheus", _without(PROM, "query")), PROM_PREFIX + _missing("query")),
    (_trigger("prometheus", _without(PROM, "threshold")), PROM_PREFIX + _missing("threshold")),
    (
        _trigger("prometheus", {**PROM, "threshold": "5m"}),
        PROM_PREFIX + 'unable to set param "threshold" value "5m": unable to unmarshal to field '
        "type float64: invalid character 'm' after top-level value",
    ),
    (
        _trigger("prometheus", {**PROM, "activationThreshold": '"2"'}),
        PROM_PREFIX + 'unable to set param "activationThreshold" value "\\"2\\"": unable to '
        "unmarshal to field type float64: json: cannot unmarshal string into Go value of type "
        "float64",
    ),
    (
        _trigger("prometheus", {**PROM, "ignoreNullValues": "yes"}),
        PROM_PREFIX + 'unable to set param "ignoreNullValues" value "yes": unable to unmarshal to '
        "field type bool: invalid character 'y' looking for beginning of value",
    ),
    (
        _trigger("prometheus", {**PROM, "ignoreNullValues": "1"}),
        PROM_PREFIX + 'unable to set param "ignoreNullValues" value "1": unable to unmarshal to '
        "field type bool: json: cannot unmarshal number into Go value of type bool",
    ),
    (
        _trigger("prometheus", {**PROM, "customHeaders": "X-Org=a,broken"}),
        PROM_PREFIX + 'unable to set param "customHeaders" value "X-Org=a,broken": expected '
        'format key=value, got "broken"',
    ),
    (
        _trigger("prometheus", {**PROM, "timeout": "-5"}),
        "error parsing prometheus metadata: timeout must be greater than 0: -5",
    ),
    # metrics-api
    (_trigger("metrics-api", _without(API, "url")), API_PREFIX + _missing("url")),
    (
        _trigger("metrics-api", _without(API, "valueLocation")),
        API_PREFIX + _missing("valueLocation"),
    ),
    (
        _trigger("metrics-api", _without(API, "targetValue")),
        "error parsing metric API metadata: no targetValue given in metadata",
    ),
    (
        _trigger("metrics-api", {**API, "targetValue": "-"}),
        API_PREFIX + 'unable to set param "targetValue" value "-": unable to unmarshal to field '
        "type float64: unexpected end of JSON input",
    ),
    (
        _trigger("metrics-api", {**API, "activationTargetValue": "1e999"}),
        API_PREFIX + 'unable to set param "activationTargetValue" value "1e999": unable to '
        "unmarshal to field type float64: json: cannot unmarshal number 1e999 into Go value of "
        "type float64",
    ),
    (
        _trigger("metrics-api", {**API, "format": "csv"}),
        API_PREFIX + 'parameter "format" value "csv" must be one of [prometheus json xml yaml]',
    ),
    (
        _trigger("metrics-api", {**API, "aggregationType": "median"}),
        API_PREFIX + 'parameter "aggregationType" value "median" must be one of '
        "[average sum max min]",
    ),
    # kubernetes-workload
    (
        _trigger("kubernetes-workload", _without(WORKLOAD, "podSelector")),
        WORKLOAD_PREFIX + _missing("podSelector"),
    ),
    (
        _trigger("kubernetes-workload", _without(WORKLOAD, "value")),
        WORKLOAD_PREFIX + "value must be a float greater than 0",
    ),
    (
        _trigger("kubernetes-workload", {**WORKLOAD, "value": "-1"}),
        WORKLOAD_PREFIX + "value must be a float greater than 0",
    ),
    (
        _trigger("kubernetes-workload", {**WORKLOAD, "podSelector": "app in (a"}),
        "error parsing kubernetes workload metadata: error parsing pod selector: unable to parse "
        "requirement: found '', expected: ',' or ')'",
    ),
    # cpu / memory
    (
        _trigger("cpu", {"value": "50"}),
        "error parsing cpu metadata: unknown metric type: , allowed values are 'Utilization' or "
        "'AverageValue'",
    ),
    (
        _trigger("cpu", {"value": "50"}, metricType="Value"),
        "error parsing cpu metadata: unknown metric type: Value, allowed values are "
        "'Utilization' or 'AverageValue'",
    ),
    (
        _trigger("memory", {"type": "Average", "value": "50"}),
        'error parsing memory metadata: parameter "type" value "Average" must be one of '
        "[Utilization AverageValue]",
    ),
    (
        _trigger("cpu", {}, metricType="Utilization"),
        "error parsing cpu metadata: " + _missing("value"),
    ),
    (
        _trigger("cpu", {"value": "50.5"}, metricType="Utilization"),
        'error parsing cpu metadata: strconv.ParseInt: parsing "50.5": invalid syntax',
    ),
    (
        _trigger("cpu", {"value": "4294967296"}, metricType="Utilization"),
        'error parsing cpu metadata: strconv.ParseInt: parsing "4294967296": value out of range',
    ),
    (
        _trigger("memory", {"value": "1Gx"}, metricType="AverageValue"),
        "error parsing memory metadata: quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (_trigger("rabbitmq", {}), "no scaler found for type: rabbitmq"),
]

REFUSED_IDS = [
    "cron-timezone-required",
    "cron-start-required-then-validate-parses-empty",
    "cron-end-required-then-validate-parses-empty",
    "cron-desiredReplicas-required-and-nonzero",
    "cron-desiredReplicas-go-json-syntax-error",
    "cron-desiredReplicas-fraction-not-int64",
    "cron-desiredReplicas-zero-refused",
    "cron-start-equals-end-refused",
    "cron-five-fields-required",
    "cron-field-range-robfig-message",
    "cron-descriptors-not-accepted",
    "cron-bad-CRON_TZ-prefix",
    "external-scaler-refuses-Utilization",
    "prometheus-serverAddress-required",
    "prometheus-query-required",
    "prometheus-threshold-required",
    "prometheus-threshold-trailing-garbage",
    "prometheus-activationThreshold-json-string-type-error",
    "prometheus-ignoreNullValues-not-a-bool",
    "prometheus-ignoreNullValues-number-type-error",
    "prometheus-customHeaders-map-format",
    "prometheus-negative-timeout",
    "metrics-api-url-required",
    "metrics-api-valueLocation-required",
    "metrics-api-targetValue-required",
    "metrics-api-targetValue-truncated-number",
    "metrics-api-activationTargetValue-overflow",
    "metrics-api-format-enum",
    "metrics-api-aggregationType-enum",
    "workload-podSelector-required",
    "workload-value-defaults-to-zero-and-is-refused",
    "workload-value-must-be-positive",
    "workload-podSelector-labels-parse-error",
    "cpu-needs-a-metric-type",
    "cpu-Value-metric-type-unknown",
    "memory-legacy-type-enum",
    "cpu-value-required",
    "cpu-utilization-int32-syntax",
    "cpu-utilization-int32-range",
    "memory-average-value-bad-quantity",
    "unknown-trigger-type",
]


@pytest.mark.parametrize(("trigger", "message"), REFUSED, ids=REFUSED_IDS)
def test_bad_metadata_is_refused_with_kedas_message(trigger: dict[str, Any], message: str) -> None:
    with pytest.raises(TriggerError) as caught:
        parse_trigger(0, trigger)
    assert str(caught.value) == message


ACCEPTED = [
    (0, _trigger("cron", CRON), "s0-cron-Asia-Kolkata-06xxx-020xxx", "AverageValue", 1.0, None),
    (
        2,
        _trigger("cron", {**CRON, "start": "*/30 8-17 ? * 1-5", "end": "15 18 * * *"}),
        "s2-cron-Asia-Kolkata-xSl308-17Qmx1-5-1518xxx",
        "AverageValue",
        1.0,
        None,
    ),
    (1, _trigger("prometheus", PROM), "s1-prometheus", "AverageValue", 5.0, 0.0),
    (
        0,
        _trigger("prometheus", {**PROM, "activationThreshold": "2.5"}, metricType="Value"),
        "s0-prometheus",
        "Value",
        5.0,
        2.5,
    ),
    (3, _trigger("metrics-api", API), "s3-metric-api-queue-depth", "AverageValue", 5.0, 0.0),
    (
        0,
        _trigger(
            "metrics-api", {**API, "valueLocation": "data.0:x/y%z", "activationTargetValue": "1"}
        ),
        "s0-metric-api-data-0-x-y-z",
        "AverageValue",
        5.0,
        1.0,
    ),
    (0, _trigger("kubernetes-workload", WORKLOAD), "s0-workload-team.a", "AverageValue", 2.0, 0.0),
    (
        1,
        _trigger("kubernetes-workload", {**WORKLOAD, "namespace": "*", "activationValue": "3"}),
        "s1-workload-",
        "AverageValue",
        2.0,
        3.0,
    ),
    (
        0,
        _trigger("cpu", {"value": "60"}, metricType="Utilization"),
        "cpu",
        "Utilization",
        60.0,
        0.0,
    ),
    (
        4,
        _trigger("memory", {"type": "AverageValue", "value": "512Mi", "activationValue": "1Mi"}),
        "memory",
        "AverageValue",
        512 * 2**20,
        2**20,
    ),
]

ACCEPTED_IDS = [
    "cron-metric-name-zone-and-schedules",
    "cron-metric-name-escapes-star-slash-question",
    "prometheus-metric-name-is-indexed-constant",
    "prometheus-metricType-Value-and-activation",
    "metrics-api-metric-name-from-valueLocation",
    "metrics-api-normalizes-dot-colon-slash-percent",
    "workload-metric-name-from-scaledobject-namespace-dots-kept-then-normalized",
    "workload-star-namespace-means-all",
    "cpu-utilization-resource-metric",
    "memory-legacy-type-average-value-quantity",
]


@pytest.mark.parametrize(
    ("index", "trigger", "metric", "metric_type", "target", "activation"),
    ACCEPTED,
    ids=ACCEPTED_IDS,
)
def test_metric_names_targets_and_activation(
    index: int,
    trigger: dict[str, Any],
    metric: str,
    metric_type: str,
    target: float,
    activation: float | None,
) -> None:
    spec = parse_trigger(index, trigger, namespace="team-a")
    expected = metric.replace("team.a", "team-a")
    assert (spec.metric_name, spec.metric_type) == (expected, metric_type)
    assert (spec.target_value, spec.activation_target) == (target, activation)
    assert spec.index == index
    assert spec.type == trigger["type"]


def test_defaults_follow_keda() -> None:
    prom = parse_trigger(0, _trigger("prometheus", PROM)).details
    api = parse_trigger(0, _trigger("metrics-api", API)).details
    assert isinstance(prom, PrometheusTrigger)
    assert isinstance(api, MetricsApiTrigger)
    assert prom.ignore_null_values is True
    assert prom.unsafe_ssl is False
    assert (api.format, api.aggregation_type) == ("json", "average")


def test_metadata_values_are_trimmed_and_empty_counts_as_missing() -> None:
    spec = parse_trigger(0, _trigger("prometheus", {**PROM, "threshold": "  7 "}))
    assert spec.target_value == 7.0
    with pytest.raises(TriggerError, match='missing required parameter "query"'):
        parse_trigger(0, _trigger("prometheus", {**PROM, "query": "   "}))


def test_name_and_cached_metrics_are_kept() -> None:
    spec = parse_trigger(0, _trigger("prometheus", PROM, name="queue", useCachedMetrics=True))
    assert (spec.name, spec.use_cached_metrics) == ("queue", True)


def _cron(metadata: Mapping[str, str]) -> CronTrigger:
    details = parse_trigger(0, _trigger("cron", metadata)).details
    assert isinstance(details, CronTrigger)
    return details


WINDOWS = [
    # Asia/Kolkata is UTC+05:30: 06:00-20:00 local is 00:30-14:30 UTC.
    (CRON, datetime(2026, 3, 2, 0, 29, tzinfo=UTC), 1),
    (CRON, datetime(2026, 3, 2, 0, 30, tzinfo=UTC), 10),
    (CRON, datetime(2026, 3, 2, 14, 29, 59, tzinfo=UTC), 10),
    (CRON, datetime(2026, 3, 2, 14, 30, tzinfo=UTC), 1),
    # A window over midnight: 22:00-02:00 in New York.
    (
        {**CRON, "timezone": "America/New_York", "start": "0 22 * * *", "end": "0 2 * * *"},
        datetime(2026, 7, 1, 3, 30, tzinfo=UTC),
        10,
    ),
    (
        {**CRON, "timezone": "America/New_York", "start": "0 22 * * *", "end": "0 2 * * *"},
        datetime(2026, 7, 1, 6, 30, tzinfo=UTC),
        1,
    ),
    # Weekdays only: a Saturday is outside.
    (
        {**CRON, "timezone": "Europe/Berlin", "start": "0 8 * * 1-5", "end": "0 18 * * 1-5"},
        datetime(2026, 3, 7, 10, 0, tzinfo=UTC),
        1,
    ),
    (
        {**CRON, "timezone": "Europe/Berlin", "start": "0 8 * * 1-5", "end": "0 18 * * 1-5"},
        datetime(2026, 3, 6, 10, 0, tzinfo=UTC),
        10,
    ),
    # Summer time moves the UTC window: 08:00 Berlin is 06:00 UTC in July.
    (
        {**CRON, "timezone": "Europe/Berlin", "start": "0 8 * * *", "end": "0 9 * * *"},
        datetime(2026, 7, 1, 6, 30, tzinfo=UTC),
        10,
    ),
    (
        {**CRON, "timezone": "Europe/Berlin", "start": "0 8 * * *", "end": "0 9 * * *"},
        datetime(2026, 1, 15, 6, 30, tzinfo=UTC),
        1,
    ),
]

WINDOW_IDS = [
    "before-start-reports-one",
    "at-start-active",
    "last-second-before-end-active",
    "at-end-inactive",
    "window-across-midnight-active",
    "window-across-midnight-inactive-after-end",
    "weekday-window-inactive-on-saturday",
    "weekday-window-active-on-friday",
    "zone-summer-time-active",
    "zone-winter-time-same-utc-inactive",
]


@pytest.mark.parametrize(("metadata", "now", "desired"), WINDOWS, ids=WINDOW_IDS)
def test_cron_window_reports_desired_replicas_inside_else_one(
    metadata: Mapping[str, str], now: datetime, desired: int
) -> None:
    trigger = _cron(metadata)
    assert cron_desired(trigger, now) == desired
    assert cron_active(trigger, now) is (desired == 10)


def test_cron_unknown_zone_fails_when_read_not_when_parsed() -> None:
    trigger = _cron({**CRON, "timezone": "Mars/Olympus"})
    with pytest.raises(
        TriggerError, match=r"^unable to load timezone: unknown time zone Mars/Olympus$"
    ):
        cron_desired(trigger, datetime(2026, 1, 1, tzinfo=UTC))


GO_JSON = [
    ("12", "int64", 12),
    ("-0.5e2", "float64", -50.0),
    ("null", "float64", 0.0),
    ("true", "bool", True),
    ("01", "float64", "invalid character '1' after top-level value"),
    ("1.", "float64", "unexpected end of JSON input"),
    ("1.x", "float64", "invalid character 'x' after decimal point in numeric literal"),
    ("1ex", "float64", "invalid character 'x' in exponent of numeric literal"),
    ("-x", "float64", "invalid character 'x' in numeric literal"),
    ("nul", "float64", "unexpected end of JSON input"),
    ('"a', "float64", "unexpected end of JSON input"),
    ("[1]", "float64", "json: cannot unmarshal array into Go value of type float64"),
    (
        "9223372036854775808",
        "int64",
        "json: cannot unmarshal number 9223372036854775808 into Go value of type int64",
    ),
]


@pytest.mark.parametrize(
    ("text", "go_type", "expected"),
    GO_JSON,
    ids=[
        "int",
        "float-exponent",
        "null-zero-value",
        "bool",
        "leading-zero",
        "dot-at-end",
        "dot-then-letter",
        "exponent-letter",
        "minus-letter",
        "truncated-literal",
        "unterminated-string",
        "array-type-error",
        "int64-overflow",
    ],
)
def test_go_json_decode(text: str, go_type: Any, expected: object) -> None:
    if isinstance(expected, str):
        with pytest.raises(GoJSONError) as caught:
            decode(text, go_type)
        assert str(caught.value) == expected
    else:
        assert decode(text, go_type) == expected


@given(st.text(alphabet="ab/.:%-x", max_size=20))
def test_normalized_names_keep_no_separator_kedas_metric_names_refuse(text: str) -> None:
    normalized = normalize_string(text)
    assert len(normalized) == len(text)
    assert not set(normalized) & set("/.:%")


@pytest.mark.parametrize(
    ("value", "milli"),
    [(5.0, 5000), (0.0004, 0), (-1.5, -1500), (2.0005, 2000)],
    ids=["whole", "below-a-milli-truncates-to-zero", "negative-toward-zero", "fraction-truncated"],
)
def test_target_milli_truncates_as_go_int64_conversion(value: float, milli: int) -> None:
    assert target_milli(value) == milli
