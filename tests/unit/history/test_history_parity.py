"""The memory and SQLite stores answer every read of raw (not yet downsampled) points alike."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.history import MemoryHistory, Point, SeriesKey
from podscale.history.sqlite import SqliteHistory
from podscale.testing.clock import FakeClock

T0 = datetime(2026, 3, 1, tzinfo=UTC)
KEYS = [
    SeriesKey("default", "Deployment", "web", "cpu_usage"),
    SeriesKey("prod", "StatefulSet", "db", "metric/0/requests"),
]

writes = st.lists(
    st.tuples(
        st.sampled_from(KEYS),
        st.lists(
            st.tuples(
                st.integers(0, 24 * 3600),  # seconds after T0: minutes repeat
                st.floats(-1e9, 1e9, allow_nan=False),
            ),
            max_size=30,
        ),
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(
    writes=writes,
    start=st.integers(-120, 24 * 60),
    length=st.integers(0, 25 * 60),
    step=st.integers(1, 180),
)
def test_memory_and_sqlite_read_alike(
    writes: list[tuple[SeriesKey, list[tuple[int, float]]]], start: int, length: int, step: int
) -> None:
    memory = MemoryHistory()
    with tempfile.TemporaryDirectory() as directory:
        sqlite = SqliteHistory(Path(directory) / "h.db", FakeClock(T0))
        for key, points in writes:
            batch = [Point(T0 + timedelta(seconds=s), v) for s, v in points]
            memory.write(key, batch)
            sqlite.write(key, batch)
        begin = T0 + timedelta(minutes=start)
        end = begin + timedelta(minutes=length)
        assert sqlite.keys() == memory.keys()
        for key in KEYS:
            assert sqlite.read(key, begin, end, timedelta(minutes=step)) == memory.read(
                key, begin, end, timedelta(minutes=step)
            )
        sqlite.close()
