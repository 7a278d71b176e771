"""Ages and quantities as upstream's printers render them (HumanDuration, Quantity.String)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.printing.format import (
    age_since,
    format_quantity,
    human_duration,
    layout_containers,
)

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)

DURATIONS = [
    (timedelta(seconds=-3), "<invalid>"),
    (timedelta(seconds=-2), "<invalid>"),
    (timedelta(milliseconds=-1999), "0s"),
    (timedelta(seconds=-1), "0s"),
    (timedelta(milliseconds=-500), "0s"),
    (timedelta(0), "0s"),
    (timedelta(seconds=3), "3s"),
    (timedelta(seconds=59, milliseconds=999), "59s"),
    (timedelta(seconds=119), "119s"),
    (timedelta(minutes=2), "2m"),
    (timedelta(minutes=5, seconds=2), "5m2s"),
    (timedelta(minutes=9, seconds=59), "9m59s"),
    (timedelta(minutes=10, seconds=30), "10m"),
    (timedelta(minutes=179), "179m"),
    (timedelta(hours=3), "3h"),
    (timedelta(hours=3, minutes=25), "3h25m"),
    (timedelta(hours=7, minutes=59), "7h59m"),
    (timedelta(hours=8, minutes=30), "8h"),
    (timedelta(hours=47), "47h"),
    (timedelta(days=2), "2d"),
    (timedelta(days=2, hours=3), "2d3h"),
    (timedelta(days=7, hours=23), "7d23h"),
    (timedelta(days=8, hours=5), "8d"),
    (timedelta(days=729), "729d"),
    (timedelta(days=730), "2y"),
    (timedelta(days=775), "2y45d"),
    (timedelta(days=365 * 8 - 1), "7y364d"),
    (timedelta(days=365 * 8 + 40), "8y"),
]


@pytest.mark.parametrize(
    ("elapsed", "expected"), DURATIONS, ids=[expected for _, expected in DURATIONS]
)
def test_human_duration_matches_upstream_buckets(elapsed: timedelta, expected: str) -> None:
    assert human_duration(elapsed) == expected


@given(st.integers(min_value=0, max_value=119))
def test_human_duration_spells_out_seconds_below_two_minutes(seconds: int) -> None:
    assert human_duration(timedelta(seconds=seconds)) == f"{seconds}s"


@given(st.timedeltas(min_value=timedelta(seconds=-1), max_value=timedelta(days=365 * 20)))
def test_human_duration_is_at_most_two_units(elapsed: timedelta) -> None:
    assert re.fullmatch(r"\d+[smhdy](\d+[smhd])?", human_duration(elapsed))


AGES = [
    ("2026-11-22T11:59:57Z", NOW, "3s"),
    ("2026-11-22T11:54:58Z", NOW, "5m2s"),
    ("2026-11-20T09:00:00Z", NOW, "2d3h"),
    ("2026-11-22T11:59:57.250000Z", NOW, "2s"),
    ("2026-11-22T13:59:57+02:00", NOW, "3s"),
    ("2026-11-22T11:59:57Z", NOW.replace(tzinfo=None), "3s"),
    ("2026-11-22T11:59:57Z", NOW.astimezone(timezone(timedelta(hours=-5))), "3s"),
    ("2026-11-22T12:00:10Z", NOW, "<invalid>"),
    (None, NOW, "<unknown>"),
    ("", NOW, "<unknown>"),
    ("yesterday", NOW, "<unknown>"),
    (12345, NOW, "<unknown>"),
]


@pytest.mark.parametrize(
    ("timestamp", "now", "expected"),
    AGES,
    ids=[
        "seconds",
        "minutes-seconds",
        "days-hours",
        "micro-time",
        "offset-timestamp",
        "naive-now-is-utc",
        "aware-now-other-zone",
        "future",
        "missing",
        "empty",
        "garbage",
        "not-a-string",
    ],
)
def test_age_since(timestamp: object, now: datetime, expected: str) -> None:
    assert age_since(timestamp, now) == expected


QUANTITIES = [
    ("100Mi", "100Mi"),
    ("0.5", "500m"),
    ("1536Mi", "1536Mi"),
    ("1.5Gi", "1536Mi"),
    ("1000", "1k"),
    (2, "2"),
    (0.25, "250m"),
    (None, "<nil>"),
    ("not-a-quantity", "not-a-quantity"),
]


@pytest.mark.parametrize(
    ("value", "expected"), QUANTITIES, ids=[str(value) for value, _ in QUANTITIES]
)
def test_format_quantity_canonicalises_like_upstream(value: object, expected: str) -> None:
    assert format_quantity(value) == expected


CONTAINERS = [
    ({"containers": [{"name": "web", "image": "nginx:1.25"}]}, ("web", "nginx:1.25")),
    (
        {"containers": [{"name": "web", "image": "nginx"}, {"name": "log", "image": "busybox"}]},
        ("web,log", "nginx,busybox"),
    ),
    ({"containers": []}, ("", "")),
    (None, ("", "")),
    ({"containers": [{"name": "no-image"}]}, ("no-image", "")),
]


@pytest.mark.parametrize(
    ("pod_spec", "expected"), CONTAINERS, ids=["one", "two", "none", "no-spec", "no-image"]
)
def test_layout_containers(pod_spec: object, expected: tuple[str, str]) -> None:
    assert layout_containers(pod_spec) == expected
