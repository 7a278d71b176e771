"""``trace_document`` gives exactly ``orjson.loads(orjson.dumps(trace_to_dict(trace)))``, the
general path: for any trace (its bytes too, so the keys keep their order), and for values
the one-pass encoder must refuse and leave to the general path."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.hpa.trace import DecisionTrace, MetricTrace, trace_to_dict
from podscale.hpa.trace_json import trace_document
from podscale.hpa.types import CalculationTrace, Recommendation


def general(trace: DecisionTrace) -> Any:
    return orjson.loads(orjson.dumps(trace_to_dict(trace)))


def assert_same(trace: DecisionTrace) -> None:
    try:
        expected = general(trace)
    except TypeError:  # what orjson cannot encode (an int beyond 64 bits): both refuse
        with pytest.raises(TypeError):
            trace_document(trace)
        return
    got = trace_document(trace)
    assert got == expected
    assert orjson.dumps(got) == orjson.dumps(expected)


@settings(max_examples=60, deadline=None)
@given(st.from_type(DecisionTrace))
def test_any_trace_reads_as_the_general_path(trace: DecisionTrace) -> None:
    assert_same(trace)


class Name(str):
    pass


class Color(str, enum.Enum):  # noqa: UP042 (str() is not its value, as _plain keys see)
    RED = "red"


class Count(int):
    pass


@dataclass(frozen=True)
class Extra:
    value: int


AT = datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2)))


def calculation(**changes: Any) -> CalculationTrace:
    return CalculationTrace("cpu", "Utilization", 50, 60, 0.8, (0.1, 0.1), True)._replace(**changes)


def decision(metric: MetricTrace, **changes: Any) -> DecisionTrace:
    base = DecisionTrace("ns/web", AT, 3, 3, 1, 10, "metrics", 3, False, "", metrics=(metric,))
    return base._replace(**changes)


def metric(calc: CalculationTrace) -> MetricTrace:
    return MetricTrace(0, "Resource", "cpu", 3, None, calc)


@pytest.mark.parametrize(
    "trace",
    [
        decision(metric(calculation())),
        decision(metric(calculation(unready_pods=MappingProxyType({"p": "not ready"})))),
        decision(metric(calculation(unready_pods={Name("p"): "pending"}))),
        decision(metric(calculation(unready_pods={Color.RED: "pending"}))),
        decision(metric(calculation(ignored_pods={"p": Name("deleted")}))),
        decision(metric(calculation(current_value=Count(7)))),
        decision(metric(calculation(outcome=Color.RED))),
        decision(metric(calculation(missing_pods=[Extra(1)]))),
        decision(metric(calculation()), notes=[Name("a"), "b"]),
        decision(metric(calculation()), window=timedelta(seconds=90)),
        decision(metric(calculation()), at=datetime(2026, 1, 1, 12, tzinfo=UTC)),
        decision(
            metric(calculation()),
            notes=(Recommendation(2, AT), Recommendation(True, AT)),
        ),
    ],
    ids=[
        "plain",
        "mapping-proxy",
        "str-subclass-key",
        "enum-key",
        "str-subclass-value",
        "int-subclass",
        "enum-value",
        "dataclass",
        "list-with-subclass",
        "duration",
        "utc-time",
        "recommendations",
    ],
)
def test_refused_and_odd_values_read_as_the_general_path(trace: DecisionTrace) -> None:
    assert_same(trace)
