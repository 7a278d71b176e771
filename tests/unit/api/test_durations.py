"""Go durations: ``time.ParseDuration``'s grammar and errors, ``Duration.String``'s text.

The scenario-file cases live in ``tests/unit/sim/test_durations.py``; these are the metrics
APIs' windows (metrics-server's ``Duration.String``) and the shared invariants.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.durations import DurationError, format_go_duration, parse_go_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("1m0s", 60),
        ("14.5s", 14.5),
        ("500ms", 0.5),
        ("1h2m3s", 3723),
        ("0", 0),
        ("-1s", -1),
    ],
    ids=["s", "m", "fraction", "ms", "hms", "zero", "negative-as-go"],
)
def test_parse_go_duration(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("30", 'time: missing unit in duration "30"'),
        ("s", 'time: invalid duration "s"'),
        ("1x", 'time: unknown unit "x" in duration "1x"'),
        ("", 'time: invalid duration ""'),
    ],
    ids=["bare", "unit", "bad-unit", "empty"],
)
def test_parse_go_duration_rejects(text: str, message: str) -> None:
    with pytest.raises(DurationError) as raised:
        parse_go_duration(text)
    assert str(raised.value) == message


@given(st.timedeltas(min_value=timedelta(days=-9999), max_value=timedelta(days=9999)))
def test_format_then_parse_is_the_identity(value: timedelta) -> None:
    assert parse_go_duration(format_go_duration(value)) == value
