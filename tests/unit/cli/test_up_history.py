"""``podscale up --history-retention``: parsed (days and weeks as Prometheus writes them),
checked before anything starts, and carried to ``UpOptions``; and the history store
``podscale up`` opens in its data directory (``plane.history``), read from Prometheus when
one is configured."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from podscale.cli import up_command
from podscale.cli.main import cli
from podscale.cli.up_flags import parse_retention
from podscale.history import HistoryStore, MemoryHistory, Point, SeriesKey
from podscale.history.composite import SplitHistory, close_history
from podscale.metrics.prometheus import AdapterConfig
from podscale.metrics.prometheus.history import PrometheusHistory
from podscale.plane import history as plane_history
from podscale.plane.files import ControlPlaneError
from podscale.plane.options import UpOptions
from podscale.plane.prometheus import PrometheusOptions
from podscale.store.clock import SystemClock

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
KEY = SeriesKey("default", "Deployment", "web", "cpu_usage")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("15d", timedelta(days=15)),
        ("2w", timedelta(weeks=2)),
        ("1w3d12h", timedelta(days=10, hours=12)),
        ("36h", timedelta(hours=36)),
        ("90m", timedelta(minutes=90)),
        ("1d30m", timedelta(days=1, minutes=30)),
    ],
    ids=["days", "weeks", "weeks-days-hours", "go-hours", "go-minutes", "days-then-go"],
)
def test_parse_retention(text: str, expected: timedelta) -> None:
    assert parse_retention(text) == expected


@pytest.mark.parametrize("text", ["", "d", "15x", "1.5d", "3d2w"], ids=str)
def test_parse_retention_refuses(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - DurationError is a ValueError
        parse_retention(text)


@pytest.mark.parametrize(
    ("value", "message"),
    [("0d", "must be positive"), ("soon", "invalid duration"), ("-1h", "must be positive")],
    ids=["zero", "not-a-duration", "negative"],
)
def test_a_bad_retention_is_refused_before_anything_starts(
    tmp_path: Path, value: str, message: str
) -> None:
    args = ["up", "--data-dir", str(tmp_path / "d"), f"--history-retention={value}"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [([], timedelta(days=15)), (["--history-retention", "30d"], timedelta(days=30))],
    ids=["default", "given"],
)
def test_the_retention_reaches_the_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], expected: timedelta
) -> None:
    seen: list[UpOptions] = []

    def assemble(options: UpOptions) -> Any:
        seen.append(options)
        raise ControlPlaneError("stop here")

    monkeypatch.setattr(up_command, "assemble_control_plane", assemble)
    result = CliRunner().invoke(cli, ["up", "--data-dir", str(tmp_path), *args])
    assert "stop here" in result.output
    assert seen[0].history_retention == expected


def memory_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> list[tuple[Path, timedelta]]:
    """Stand the SQLite backend in with ``MemoryHistory``; returns the calls."""
    calls: list[tuple[Path, timedelta]] = []

    def open_memory(path: Path, _clock: Any, retention: timedelta) -> HistoryStore:
        calls.append((path, retention))
        return MemoryHistory()

    monkeypatch.setattr(plane_history, "sqlite_history", open_memory)
    return calls


def test_up_keeps_its_history_in_the_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = memory_backend(monkeypatch)
    options = UpOptions(data_dir=tmp_path, history_retention=timedelta(days=3))
    history = plane_history.open_history(options, SystemClock())
    assert isinstance(history, MemoryHistory)
    assert calls == [(tmp_path / "history.db", timedelta(days=3))]


def test_with_prometheus_reads_go_to_prometheus_and_writes_to_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    memory_backend(monkeypatch)
    prometheus = PrometheusOptions("http://prometheus:9090", AdapterConfig())
    options = UpOptions(data_dir=tmp_path, prometheus=prometheus)
    history = plane_history.open_history(options, SystemClock())
    assert isinstance(history, SplitHistory)
    assert isinstance(history.store, MemoryHistory)
    assert isinstance(history.reader, PrometheusHistory)
    assert history.reader.url == "http://prometheus:9090"


class AtClock:
    """The points' own time: retention counts from here, not from today."""

    def now(self) -> datetime:
        return AT


def test_the_sqlite_backend_opens_a_working_history(tmp_path: Path) -> None:
    store = plane_history.sqlite_history(tmp_path / "history.db", AtClock(), timedelta(days=1))
    try:
        store.write(KEY, [Point(AT, 1.5)])
        assert store.read(KEY, AT, AT + timedelta(minutes=1), timedelta(minutes=1)) == [
            Point(AT, 1.5)
        ]
        store.put_state("uid-1", "hpa/history", {"a": 1})
        assert store.get_state("uid-1", "hpa/history") == {"a": 1}
    finally:
        close_history(store)


class Closing(MemoryHistory):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_split_history_reads_from_the_reader_and_keeps_the_rest() -> None:
    store, reader = Closing(), Closing()
    reader.write(KEY, [Point(AT, 7.0)])
    split = SplitHistory(store, reader)
    split.write(KEY, [Point(AT, 1.0)])
    split.put_state("uid", "doc", {"x": 1})
    minute = timedelta(minutes=1)
    assert split.read(KEY, AT, AT + minute, minute) == [Point(AT, 7.0)]
    assert store.read(KEY, AT, AT + minute, minute) == [Point(AT, 1.0)]
    assert split.keys() == [KEY]
    assert (split.get_state("uid", "doc"), store.get_state("uid", "doc")) == ({"x": 1}, {"x": 1})
    split.delete_state("uid")
    assert store.get_state("uid", "doc") is None
    split.close()
    assert (store.closed, reader.closed) == (True, True)


def test_close_history_leaves_a_store_without_close_alone() -> None:
    close_history(MemoryHistory())  # nothing to close, nothing raised


def test_a_prometheus_reader_in_a_split_history_asks_prometheus() -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        data = {"resultType": "matrix", "result": []}
        return httpx.Response(200, json={"status": "success", "data": data})

    reader = PrometheusHistory("http://p:9090", transport=httpx.MockTransport(handler))
    split = SplitHistory(MemoryHistory(), reader)
    assert split.read(KEY, AT, AT + timedelta(minutes=5), timedelta(minutes=1)) == []
    assert asked == ["/api/v1/query_range"]
