"""Recorded request-rate traces as a rate source (``TraceRate``), and their file readers.

The third kind of ``RateSource`` next to the shapes in ``podscale.runtime.load.rates``;
scenarios (``podscale.scenario.loader``) name a trace file and these options. Readable files
(``examples/traces/README.md`` describes the ones shipped with the project):

* ``minute,requests`` CSV: requests per minute, one row per minute index; converted to
  requests per second. A minute missing from the file had no requests (rate 0).
* ``second,requests`` CSV: the same at one-second resolution.
* ``timestamp_anon,request_type,qps_sum`` CSV (Alibaba): already per second, sampled at
  irregular instants. Rows are filtered by ``request_type`` when one is given; rows at the
  same timestamp are summed, and each request type keeps its last value until its next
  sample, so the unfiltered series is the sum of the types' current rates.
* ``.tbz2`` / ``.tar.bz2`` archives holding ``workload.txt``: whitespace-separated integer
  request counts, one per second.

Interpolation is step-hold: a sample's rate holds until the next sample. ``TraceRate`` maps
scenario time to trace time as ``offset + t * time_scale``; past the end of the trace the
last sample holds, unless ``loop`` wraps around. ``past_rates`` reads before the start too
(``podscale.runtime.load.rates.rate_history``): the rows before the offset, nothing (None)
before the trace's beginning, a looped trace wrapping backwards. Files are read lazily, on the first
``rate_at``, and parsed once per process (``load_trace`` caches). A malformed file raises
``TraceError`` naming the file and the line.
"""

from __future__ import annotations

import bisect
import csv
import io
import itertools
import math
import statistics
import tarfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Final

__all__ = ["TraceError", "TraceRate", "TraceSeries", "load_trace"]

_HEADER_MINUTE: Final = ("minute", "requests")
_HEADER_SECOND: Final = ("second", "requests")
_HEADER_ALIBABA: Final = ("timestamp_anon", "request_type", "qps_sum")
_ARCHIVE_SUFFIXES: Final = (".tbz2", ".tar.bz2")
_ARCHIVE_MEMBER: Final = "workload.txt"
# Gaps are filled with zeros; a typo like minute 10**12 must not exhaust memory.
MAX_SAMPLES: Final = 50_000_000


class TraceError(ValueError):
    """A trace file that cannot be read; the message starts with ``<file>[:<line>]:``."""


@dataclass(frozen=True, slots=True, eq=False)
class TraceSeries:
    """A parsed trace: ``rates[i]`` requests/s hold from sample ``i``'s start to the next.

    Regular traces have ``interval`` set and ``starts`` empty (sample ``i`` starts at
    ``i * interval``); irregular ones list each sample's start in seconds, the first at 0.
    ``span`` is where the trace ends: after the last sample's own interval.
    """

    source: str
    rates: Sequence[float]
    span: float
    interval: float | None = None
    starts: Sequence[float] = ()

    def rate_at_offset(self, seconds: float) -> float:
        """The rate ``seconds`` into the trace (clamped into ``[0, span)``)."""
        if self.interval is not None:
            index = int(seconds // self.interval)
        else:
            index = bisect.bisect_right(self.starts, seconds) - 1
        return self.rates[min(max(index, 0), len(self.rates) - 1)]


def _fail(path: Path, line: int | None, what: str) -> TraceError:
    where = f"{path}:{line}" if line is not None else str(path)
    return TraceError(f"{where}: {what}")


def _number(path: Path, line: int, column: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _fail(path, line, f"{column} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise _fail(path, line, f"{column} {text!r} must be a finite number >= 0")
    return value


def _index(path: Path, line: int, column: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _fail(path, line, f"{column} {text!r} is not an integer") from None
    if value < 0:
        raise _fail(path, line, f"{column} {text!r} must be >= 0")
    return value


def _rows(path: Path, reader: Iterator[list[str]], width: int) -> Iterator[tuple[int, list[str]]]:
    for row in reader:
        line = getattr(reader, "line_num", 0)
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) != width:
            raise _fail(path, line, f"expected {width} columns, found {len(row)}")
        yield line, [cell.strip() for cell in row]


def _read_indexed(path: Path, reader: Iterator[list[str]], seconds_per_row: float) -> TraceSeries:
    rates = array("d")
    last = -1
    for line, (index_text, count_text) in _rows(path, reader, 2):
        index = _index(path, line, "index", index_text)
        if index <= last:
            raise _fail(path, line, f"index {index} does not follow {last}")
        if index >= MAX_SAMPLES:
            raise _fail(path, line, f"index {index} is beyond the {MAX_SAMPLES} samples allowed")
        rates.extend([0.0] * (index - last - 1))
        rates.append(_number(path, line, "requests", count_text) / seconds_per_row)
        last = index
    if not rates:
        raise _fail(path, None, "no samples")
    return TraceSeries(str(path), rates, len(rates) * seconds_per_row, interval=seconds_per_row)


def _read_alibaba(path: Path, reader: Iterator[list[str]], request_type: str | None) -> TraceSeries:
    per_instant: dict[int, dict[str, float]] = {}
    seen_types: set[str] = set()
    for line, (stamp_text, kind, qps_text) in _rows(path, reader, 3):
        stamp = _index(path, line, "timestamp_anon", stamp_text)
        qps = _number(path, line, "qps_sum", qps_text)
        seen_types.add(kind)
        if request_type is not None and kind != request_type:
            continue
        by_type = per_instant.setdefault(stamp, {})
        by_type[kind] = by_type.get(kind, 0.0) + qps
    if not per_instant:
        found = ", ".join(f'"{t}"' for t in sorted(seen_types)) or "none"
        wanted = f' with request_type "{request_type}"' if request_type is not None else ""
        raise _fail(path, None, f"no samples{wanted} (request types found: {found})")
    instants = sorted(per_instant)
    current: dict[str, float] = {}
    starts, rates = array("d"), array("d")
    for stamp in instants:
        current.update(per_instant[stamp])
        starts.append(float(stamp - instants[0]))
        rates.append(sum(current.values()))
    gaps = [b - a for a, b in itertools.pairwise(instants)]
    last_interval = statistics.median(gaps) if gaps else 1.0
    return TraceSeries(str(path), rates, starts[-1] + last_interval, starts=starts)


def _read_csv(path: Path, request_type: str | None) -> TraceSeries:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = tuple(cell.strip() for cell in next(reader, []))
        if request_type is not None and header != _HEADER_ALIBABA:
            raise _fail(path, 1, "requestType needs a timestamp_anon,request_type,qps_sum trace")
        if header == _HEADER_MINUTE:
            return _read_indexed(path, reader, 60.0)
        if header == _HEADER_SECOND:
            return _read_indexed(path, reader, 1.0)
        if header == _HEADER_ALIBABA:
            return _read_alibaba(path, reader, request_type)
    expected = " or ".join(",".join(h) for h in (_HEADER_MINUTE, _HEADER_SECOND, _HEADER_ALIBABA))
    raise _fail(path, 1, f"unrecognised header {','.join(header)!r}: expected {expected}")


def _read_archive(path: Path) -> TraceSeries:
    try:
        with tarfile.open(path, "r:bz2") as archive:
            member = next(
                (m for m in archive.getmembers() if Path(m.name).name == _ARCHIVE_MEMBER), None
            )
            handle = archive.extractfile(member) if member is not None else None
            if handle is None:
                raise _fail(path, None, f"archive has no {_ARCHIVE_MEMBER}")
            text = handle.read().decode("ascii", errors="replace")
    except (tarfile.TarError, OSError, EOFError) as e:
        # tarfile reports a non-bzip2 file as ReadError, bz2 a corrupt stream as OSError.
        raise _fail(path, None, f"not a readable bzip2 tar archive: {e}") from None
    rates = array("d")
    inner = Path(f"{path}:{_ARCHIVE_MEMBER}")
    for line, content in enumerate(io.StringIO(text), start=1):
        tokens = content.split()
        try:
            values = array("d", map(int, tokens))
        except ValueError:
            bad = next(t for t in tokens if not t.lstrip("-").isdigit())
            raise _fail(inner, line, f"count {bad!r} is not an integer") from None
        if values and min(values) < 0:
            raise _fail(inner, line, f"count {int(min(values))} must be >= 0")
        rates.extend(values)
    if not rates:
        raise _fail(inner, None, "no samples")
    return TraceSeries(str(path), rates, float(len(rates)), interval=1.0)


@lru_cache(maxsize=16)
def _load_cached(path: Path, request_type: str | None) -> TraceSeries:
    if not path.is_file():
        raise _fail(path, None, "no such trace file")
    if path.name.endswith(_ARCHIVE_SUFFIXES):
        if request_type is not None:
            raise _fail(path, None, "requestType needs a timestamp_anon,request_type,qps_sum trace")
        return _read_archive(path)
    return _read_csv(path, request_type)


def load_trace(path: str | Path, request_type: str | None = None) -> TraceSeries:
    """Parse a trace file once per process; later calls return the cached series."""
    return _load_cached(Path(path).resolve(), request_type)


@dataclass(frozen=True, slots=True)
class TraceRate:
    """A recorded trace replayed as a ``RateSource``.

    ``time_scale`` is the speed-up (2.0 plays two trace seconds per scenario second),
    ``offset`` where in the trace the scenario starts, ``rate_scale`` a multiplier on the
    recorded rates (to fit a small trace to a bigger deployment), ``loop`` wraps around at
    the end instead of holding the last sample.
    """

    path: Path
    request_type: str | None = None
    time_scale: float = 1.0
    offset: timedelta = timedelta(0)
    loop: bool = False
    rate_scale: float = 1.0
    # The series once parsed: ``load_trace`` resolves the path on every call (a system
    # call per component), and a replay asks for the rate every simulated second.
    _parsed: list[TraceSeries] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.time_scale) and self.time_scale > 0):
            raise ValueError("time_scale must be a finite number > 0")
        if not (math.isfinite(self.rate_scale) and self.rate_scale >= 0):
            raise ValueError("rate_scale must be a finite number >= 0")
        if self.offset < timedelta(0):
            raise ValueError("offset must not be negative")

    def series(self) -> TraceSeries:
        """The parsed trace (read on first use, then kept by this rate)."""
        if not self._parsed:
            self._parsed.append(load_trace(self.path, self.request_type))
        return self._parsed[0]

    def rate_at(self, t: timedelta) -> float:
        series = self.series()
        position = self.offset.total_seconds() + max(t.total_seconds(), 0.0) * self.time_scale
        if self.loop:
            position %= series.span
        return series.rate_at_offset(position) * self.rate_scale

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]:
        """``rate_at`` of each (``BatchRates``): ``rates_at_seconds`` of their seconds."""
        return self.rates_at_seconds([t.total_seconds() for t in ts])

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]:
        """``rate_at`` of each second, the series and fields read once and a regular
        trace's ``rate_at_offset`` inlined; ``SecondsRates`` for whole seconds, which a
        timedelta reads back as the same float."""
        series = self.series()
        offset, scale, factor = self.offset.total_seconds(), self.time_scale, self.rate_scale
        at, loop, span = series.rate_at_offset, self.loop, series.span
        interval, values, last = series.interval, series.rates, len(series.rates) - 1
        rates = []
        for s in seconds:
            position = offset + max(s, 0.0) * scale
            if loop:
                position %= span
            if interval is None:
                rates.append(at(position) * factor)
            else:
                rates.append(values[min(max(int(position // interval), 0), last)] * factor)
        return rates

    def past_rates(self) -> Callable[[float], float | None]:
        """The rate at any second since the start, negative ones included; None before
        the trace's first row (a looped trace has no beginning: it wraps)."""
        series = self.series()  # once, not per second: a week is 604,800 reads
        offset, scale, factor = self.offset.total_seconds(), self.time_scale, self.rate_scale

        def at(seconds: float) -> float | None:
            position = offset + seconds * scale
            if self.loop:
                position %= series.span
            elif position < 0:
                return None
            return series.rate_at_offset(position) * factor

        return at
