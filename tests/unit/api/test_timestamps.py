"""RFC 3339 as ``metav1.Time`` and ``MicroTime`` write it, and read back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.timestamps import (
    format_micro_time,
    format_time,
    parse_time,
    parse_time_or_none,
)

CET = timezone(timedelta(hours=1))


@pytest.mark.parametrize(
    ("moment", "seconds", "micro"),
    [
        (
            datetime(2026, 11, 22, 10, 0, 0, 250_000, tzinfo=UTC),
            "2026-11-22T10:00:00Z",
            "2026-11-22T10:00:00.250000Z",
        ),
        (
            datetime(2026, 11, 22, 11, 0, 5, tzinfo=CET),
            "2026-11-22T10:00:05Z",
            "2026-11-22T10:00:05.000000Z",
        ),
        (datetime(2026, 1, 2, 3, 4, 5), "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.000000Z"),
        (
            datetime(1, 1, 1, tzinfo=UTC),
            "0001-01-01T00:00:00Z",
            "0001-01-01T00:00:00.000000Z",
        ),
    ],
    ids=["utc", "offset", "naive-is-utc", "go-zero-time"],
)
def test_format(moment: datetime, seconds: str, micro: str) -> None:
    assert (format_time(moment), format_micro_time(moment)) == (seconds, micro)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-11-22T10:00:00Z", datetime(2026, 11, 22, 10, tzinfo=UTC)),
        ("2026-11-22T10:00:00.5Z", datetime(2026, 11, 22, 10, 0, 0, 500_000, tzinfo=UTC)),
        ("2026-11-22T11:00:00+01:00", datetime(2026, 11, 22, 10, tzinfo=UTC)),
        ("2026-11-22T10:00:00", datetime(2026, 11, 22, 10, tzinfo=UTC)),
    ],
    ids=["z", "fraction", "offset", "naive-is-utc"],
)
def test_parse(text: str, moment: datetime) -> None:
    assert parse_time(text) == moment
    assert parse_time(text).tzinfo is not None


@pytest.mark.parametrize("value", [None, "", 5, "yesterday"], ids=["none", "empty", "int", "bad"])
def test_parse_time_or_none_is_lenient(value: object) -> None:
    assert parse_time_or_none(value) is None
    if isinstance(value, str) and value:
        with pytest.raises(ValueError, match="Invalid isoformat"):
            parse_time(value)


@given(st.datetimes(min_value=datetime(1, 1, 2), timezones=st.just(UTC)))
def test_micro_time_round_trips(moment: datetime) -> None:
    assert parse_time(format_micro_time(moment)) == moment
    assert parse_time(format_time(moment)) == moment.replace(microsecond=0)
