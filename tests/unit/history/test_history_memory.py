"""MemoryHistory: writes per minute (last wins), reads at whole-minute steps, keys, state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from podscale.history import MemoryHistory, Point, SeriesKey

T0 = datetime(2026, 3, 1, tzinfo=UTC)
KEY = SeriesKey("default", "Deployment", "web", "cpu_usage")
MIN = timedelta(minutes=1)


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


@pytest.mark.parametrize(
    ("written", "step", "expected"),
    [
        ([(0, 1.0), (1, 3.0)], MIN, [(0, 1.0), (1, 3.0)]),
        ([(0, 1.0), (0.5, 7.0)], MIN, [(0, 7.0)]),
        ([(0, 1.0), (1, 3.0), (2, 5.0)], 2 * MIN, [(0, 2.0), (2, 5.0)]),
        ([(3, 1.0), (0, 3.0)], MIN, [(0, 3.0), (3, 1.0)]),
        ([(0, 1.0), (9, 2.0)], 3 * MIN, [(0, 1.0), (9, 2.0)]),
        ([(-1, 9.0), (0, 1.0), (10, 2.0)], MIN, [(0, 1.0)]),
    ],
    ids=[
        "one-per-minute",
        "same-minute-last-wins",
        "step-means",
        "written-out-of-order",
        "empty-steps-absent",
        "start-inclusive-end-exclusive",
    ],
)
def test_read(
    written: list[tuple[float, float]],
    step: timedelta,
    expected: list[tuple[float, float]],
) -> None:
    store = MemoryHistory()
    store.write(KEY, [Point(_at(m), v) for m, v in written])
    assert store.read(KEY, T0, _at(10), step) == [Point(_at(m), v) for m, v in expected]


@pytest.mark.parametrize(
    "step",
    [timedelta(seconds=30), timedelta(seconds=90), timedelta(0)],
    ids=["under-a-minute", "not-whole-minutes", "zero"],
)
def test_read_refuses_steps_that_are_not_whole_minutes(step: timedelta) -> None:
    with pytest.raises(ValueError, match="whole number of minutes"):
        MemoryHistory().read(KEY, T0, _at(10), step)


def test_keys_sorted_and_filtered_by_namespace() -> None:
    store = MemoryHistory()
    other = SeriesKey("prod", "Deployment", "api", "memory_usage")
    store.write(other, [Point(T0, 1.0)])
    store.write(KEY, [Point(T0, 1.0)])
    assert store.keys() == [KEY, other]
    assert store.keys("prod") == [other]
    assert store.keys("none") == []


def test_state_documents_by_uid_and_name() -> None:
    store = MemoryHistory()
    assert store.get_state("u1", "hpa/history") is None
    store.put_state("u1", "hpa/history", {"a": 1})
    store.put_state("u1", "hpa/last-decision", {"b": 2})
    store.put_state("u2", "hpa/history", {"c": 3})
    store.put_state("u1", "hpa/history", {"a": 4})
    assert store.get_state("u1", "hpa/history") == {"a": 4}
    assert store.state_of("u1") == {"hpa/history": {"a": 4}, "hpa/last-decision": {"b": 2}}
    store.delete_state("u1")
    assert store.state_of("u1") == {}
    assert store.get_state("u2", "hpa/history") == {"c": 3}


def test_an_empty_write_stores_no_series() -> None:
    store = MemoryHistory()
    store.write(KEY, [])
    assert store.keys() == []
