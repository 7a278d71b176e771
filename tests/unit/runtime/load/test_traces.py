"""Trace files: each format read from small files written here, the TraceRate options
(time scale, offset, loop, rate scale), errors naming file and line, caching, and the
shared traces when they are present."""

from __future__ import annotations

import io
import tarfile
from datetime import timedelta
from pathlib import Path

import pytest

from podscale.runtime.load import TraceError, TraceRate, load_trace
from podscale.runtime.load import traces as traces_module

REPO = Path(__file__).resolve().parents[4]
# The full-resolution traces sit in the shared folder next to the repository, when present.
SHARED = REPO.parent / "shared" / "traces"
# The NASA trace is bundled with the demo scenarios that play it; the Alibaba one is an example.
EXAMPLE_TRACES = {
    "nasa-1995-per-minute.csv": REPO / "src" / "podscale" / "demo" / "scenarios" / "traces",
    "alibaba-genai-2026-qps.csv": REPO / "examples" / "traces",
}
S = timedelta(seconds=1)
M = timedelta(minutes=1)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def write_archive(tmp_path: Path, text: str, member: str = "workload.txt") -> Path:
    path = tmp_path / "trace.tbz2"
    data = text.encode("ascii")
    with tarfile.open(path, "w:bz2") as archive:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return path


MINUTES = "minute,requests\n0,60\n1,120\n3,30\n"
ALIBABA = (
    "timestamp_anon,request_type,qps_sum\n"
    "1000,API Requests,1.5\n"
    "1000,Generative Requests,2.0\n"
    "1060,API Requests,0.5\n"
    "1060,API Requests,0.25\n"
    "1120,Generative Requests,4.0\n"
)


@pytest.mark.parametrize(
    ("name", "text", "request_type", "t", "expected"),
    [
        ("m.csv", MINUTES, None, timedelta(0), 1.0),
        ("m.csv", MINUTES, None, 59 * S, 1.0),
        ("m.csv", MINUTES, None, M, 2.0),
        ("m.csv", MINUTES, None, 2 * M, 0.0),
        ("m.csv", MINUTES, None, 3 * M + 30 * S, 0.5),
        ("m.csv", MINUTES, None, timedelta(hours=1), 0.5),
        ("s.csv", "second,requests\n0,3\n1,7\n", None, S, 7.0),
        ("a.csv", ALIBABA, None, timedelta(0), 3.5),
        ("a.csv", ALIBABA, None, 60 * S, 2.75),
        ("a.csv", ALIBABA, None, 130 * S, 4.75),
        ("a.csv", ALIBABA, "API Requests", 30 * S, 1.5),
        ("a.csv", ALIBABA, "API Requests", 61 * S, 0.75),
        ("a.csv", ALIBABA, "Generative Requests", 119 * S, 2.0),
        ("a.csv", ALIBABA, "Generative Requests", 120 * S, 4.0),
    ],
    ids=[
        "minute-first",
        "minute-holds-within-minute",
        "minute-second",
        "minute-gap-is-zero",
        "minute-last",
        "minute-holds-after-end",
        "second-csv",
        "alibaba-sum-types",
        "alibaba-other-type-held",
        "alibaba-both-updated",
        "alibaba-filter-first",
        "alibaba-filter-sums-same-timestamp",
        "alibaba-generative-holds",
        "alibaba-generative-next",
    ],
)
def test_csv_formats(
    tmp_path: Path, name: str, text: str, request_type: str | None, t: timedelta, expected: float
) -> None:
    rate = TraceRate(write(tmp_path, name, text), request_type=request_type)
    assert rate.rate_at(t) == pytest.approx(expected)


def test_archive_reads_one_count_per_second(tmp_path: Path) -> None:
    rate = TraceRate(write_archive(tmp_path, "1 2 3\n4 5\n"))
    assert [rate.rate_at(i * S) for i in range(7)] == [1, 2, 3, 4, 5, 5, 5]
    assert rate.series().span == 5


@pytest.mark.parametrize(
    ("options", "t", "expected"),
    [
        ({"time_scale": 2.0}, S, 3.0),
        ({"time_scale": 0.5}, 3 * S, 2.0),
        ({"offset": 2 * S}, timedelta(0), 3.0),
        ({"offset": 2 * S, "time_scale": 2.0}, S, 5.0),
        ({"loop": True}, 5 * S, 1.0),
        ({"loop": True}, 13 * S, 4.0),
        ({"loop": True, "offset": 4 * S}, 2 * S, 2.0),
        ({}, 13 * S, 5.0),
        ({"rate_scale": 10.0}, 2 * S, 30.0),
    ],
    ids=[
        "speedup",
        "slowdown",
        "offset",
        "offset-and-speedup",
        "loop-wraps",
        "loop-twice",
        "loop-with-offset",
        "no-loop-holds-last",
        "rate-scale",
    ],
)
def test_trace_options(
    tmp_path: Path, options: dict[str, object], t: timedelta, expected: float
) -> None:
    path = write_archive(tmp_path, "1 2 3 4 5")
    assert TraceRate(path, **options).rate_at(t) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "text", "request_type", "message"),
    [
        (
            "bad.csv",
            "minute,requests\n0,5\n1,x\n",
            None,
            r"bad\.csv:3: requests 'x' is not a number",
        ),
        ("neg.csv", "minute,requests\n0,-5\n", None, r"neg\.csv:2: requests '-5' must be"),
        ("cols.csv", "minute,requests\n0,5,6\n", None, r"cols\.csv:2: expected 2 columns, found 3"),
        ("order.csv", "minute,requests\n0,5\n2,5\n1,5\n", None, r"order\.csv:4: index 1 does not"),
        ("idx.csv", "minute,requests\nzero,5\n", None, r"idx\.csv:2: index 'zero' is not an"),
        ("hdr.csv", "time,count\n0,5\n", None, r"hdr\.csv:1: unrecognised header 'time,count'"),
        ("empty.csv", "minute,requests\n", None, r"empty\.csv: no samples"),
        ("far.csv", "minute,requests\n0,1\n99999999999,1\n", None, r"far\.csv:3: index 9+ is"),
        ("a.csv", ALIBABA, "Batch", r'no samples with request_type "Batch" \(request types'),
        ("m.csv", MINUTES, "API Requests", r"m\.csv:1: requestType needs"),
        ("a2.csv", ALIBABA + "abc,API Requests,1\n", None, r"a2\.csv:7: timestamp_anon 'abc'"),
    ],
    ids=[
        "not-a-number",
        "negative",
        "columns",
        "out-of-order",
        "bad-index",
        "unknown-header",
        "empty",
        "index-too-far",
        "unknown-request-type",
        "request-type-on-minutes",
        "bad-timestamp",
    ],
)
def test_bad_csv_names_file_and_line(
    tmp_path: Path, name: str, text: str, request_type: str | None, message: str
) -> None:
    rate = TraceRate(write(tmp_path, name, text), request_type=request_type)
    with pytest.raises(TraceError, match=message):
        rate.rate_at(timedelta(0))


@pytest.mark.parametrize(
    ("content", "member", "message"),
    [
        ("1 2\n3 x 4\n", "workload.txt", r"trace\.tbz2:workload\.txt:2: count 'x' is not an"),
        ("1 -2\n", "workload.txt", r"workload\.txt:1: count -2 must be >= 0"),
        ("1 2\n", "other.txt", r"trace\.tbz2: archive has no workload\.txt"),
        ("\n", "workload.txt", r"workload\.txt: no samples"),
    ],
    ids=["not-integer", "negative", "no-member", "empty"],
)
def test_bad_archive_names_file_and_line(
    tmp_path: Path, content: str, member: str, message: str
) -> None:
    with pytest.raises(TraceError, match=message):
        load_trace(write_archive(tmp_path, content, member))


def test_not_an_archive(tmp_path: Path) -> None:
    path = write(tmp_path, "plain.tbz2", "1 2 3")
    with pytest.raises(TraceError, match=r"plain\.tbz2: not a readable bzip2 tar archive"):
        load_trace(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match=r"gone\.csv: no such trace file"):
        TraceRate(tmp_path / "gone.csv").rate_at(timedelta(0))


def test_loaded_once_and_cached(tmp_path: Path) -> None:
    path = write(tmp_path, "c.csv", "minute,requests\n0,60\n")
    first = TraceRate(path).series()
    path.write_text("minute,requests\n0,120\n", encoding="utf-8")
    assert TraceRate(path).series() is first
    assert TraceRate(path).rate_at(timedelta(0)) == 1.0


def test_a_rate_parses_and_resolves_its_path_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A replay reads the rate every simulated second: the path is not resolved each time.
    path = write(tmp_path, "once.csv", "minute,requests\n0,60\n1,120\n")
    rate = TraceRate(path)
    calls: list[Path] = []
    real = traces_module.load_trace

    def counting(given: str | Path, request_type: str | None = None) -> object:
        calls.append(Path(given))
        return real(given, request_type)

    monkeypatch.setattr(traces_module, "load_trace", counting)
    assert [rate.rate_at(t) for t in (0 * S, 59 * S, 60 * S, 10 * M)] == [1.0, 1.0, 2.0, 2.0]
    assert calls == [path]
    # What a rate remembers is not part of its identity.
    assert rate == TraceRate(path)
    assert hash(rate) == hash(TraceRate(path))
    assert "_parsed" not in repr(rate)


def test_lazy_until_first_use(tmp_path: Path) -> None:
    rate = TraceRate(tmp_path / "later.csv")
    write(tmp_path, "later.csv", "minute,requests\n0,600\n")
    assert rate.rate_at(timedelta(0)) == 10.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"time_scale": 0.0}, "time_scale must be"),
        ({"rate_scale": -1.0}, "rate_scale must be"),
        ({"offset": -S}, "offset must not be negative"),
    ],
    ids=["zero-time-scale", "negative-rate-scale", "negative-offset"],
)
def test_trace_rate_refuses_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TraceRate(Path("x.csv"), **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "request_type", "t", "expected"),
    [
        ("nasa-1995-per-minute.csv", None, timedelta(0), 42 / 60),
        ("nasa-1995-per-minute.csv", None, 3 * M, 69 / 60),
        ("alibaba-genai-2026-qps.csv", "API Requests", timedelta(0), 0.09),
    ],
    ids=["nasa-minute-0", "nasa-minute-3", "alibaba-api-first"],
)
def test_real_traces(name: str, request_type: str | None, t: timedelta, expected: float) -> None:
    rate = TraceRate(EXAMPLE_TRACES[name] / name, request_type=request_type)
    assert rate.rate_at(t) == pytest.approx(expected)


# The per-second archives are not copied into the repository (2.5 MB); this cross-check
# runs where the shared traces directory exists.
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared traces not present")


@needs_shared
def test_shared_per_second_archive_matches_per_minute() -> None:
    """The per-minute file is derived from the per-second one: the first minutes agree."""
    seconds = load_trace(SHARED / "nasa-1995-per-second.tbz2")
    minutes = load_trace(SHARED / "nasa-1995-per-minute.csv")
    assert seconds.span == 5_059_950
    for minute in range(3):
        total = sum(seconds.rate_at_offset(minute * 60 + s) for s in range(60))
        assert total / 60 == pytest.approx(minutes.rate_at_offset(minute * 60))
