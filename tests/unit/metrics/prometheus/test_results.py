"""Reading query answers: values in exact milli-units, and every unusable answer refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.metrics.prometheus.errors import BadSample, EmptyResult, PrometheusError
from podscale.metrics.prometheus.results import Sample, parse_query_data, parse_sample_value

AT = 1_700_000_000.5
WHEN = datetime.fromtimestamp(AT, tz=UTC)


@pytest.mark.parametrize(
    ("text", "milli"),
    [
        ("1", 1000),
        ("0.29", 290),
        ("2.5e-3", 2),
        ("0.0009", 0),
        ("-0.0019", -1),
        ("1e15", 10**18),
    ],
    ids=[
        "int",
        "exact-decimal",
        "exponent",
        "below-milli-truncates",
        "negative-toward-zero",
        "big",
    ],
)
def test_sample_values_in_milli_units(text: str, milli: int) -> None:
    assert parse_sample_value(text) == milli


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NaN", "NaN"),
        ("+Inf", r"\+Inf"),
        ("-Inf", "-Inf"),
        ("fast", "'fast' is not a number"),
        (3, "3 is not a number"),
        ("1e40", "out of range"),
    ],
    ids=["nan", "plus-inf", "minus-inf", "text", "not-a-string", "beyond-int64"],
)
def test_unusable_values_are_refused(text: Any, message: str) -> None:
    with pytest.raises(BadSample, match=message):
        parse_sample_value(text)


@given(st.decimals(min_value=-(10**9), max_value=10**9, allow_nan=False, places=6))
def test_milli_units_truncate_toward_zero(number: Any) -> None:
    milli = parse_sample_value(str(number))
    assert abs(milli) <= abs(number * 1000) < abs(milli) + 1


def test_vector() -> None:
    data = {
        "resultType": "vector",
        "result": [
            {"metric": {"pod": "a"}, "value": [AT, "1.5"]},
            {"metric": {}, "value": [AT, "2"]},
        ],
    }
    assert parse_query_data(data) == [
        Sample({"pod": "a"}, 1500, WHEN),
        Sample({}, 2000, WHEN),
    ]


def test_scalar() -> None:
    assert parse_query_data({"resultType": "scalar", "result": [AT, "42"]}) == [
        Sample({}, 42000, WHEN)
    ]


def test_nan_in_a_vector_names_the_series() -> None:
    data = {"resultType": "vector", "result": [{"metric": {"pod": "a"}, "value": [AT, "NaN"]}]}
    with pytest.raises(BadSample, match=re.escape('for {pod="a"}')):
        parse_query_data(data)


def test_empty_vector_is_not_zero() -> None:
    with pytest.raises(EmptyResult, match="no series returned for query up"):
        parse_query_data({"resultType": "vector", "result": []}, "up")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"resultType": "matrix", "result": []}, "unexpected result type 'matrix'"),
        ({"resultType": "string", "result": [AT, "x"]}, "unexpected result type 'string'"),
        ({"resultType": "vector", "result": [{"metric": {}, "value": [AT]}]}, "malformed sample"),
        ({"resultType": "vector", "result": [{"metric": {}, "value": ["x", "1"]}]}, "timestamp"),
        ([], "data is not an object"),
    ],
    ids=["matrix", "string", "short-pair", "bad-timestamp", "not-an-object"],
)
def test_malformed_or_unexpected_answers(data: Any, message: str) -> None:
    with pytest.raises(PrometheusError, match=message):
        parse_query_data(data)
