"""The demo plot: a valid PNG of the expected size, the same bytes for the same timeline."""

from __future__ import annotations

import struct
import zlib
from datetime import timedelta
from pathlib import Path

import pytest

from podscale.demo.plot import write_plot
from podscale.demo.timeline import Sample, Timeline, TimelineEvent

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def walkthrough_run(name: str = "php-apache") -> Timeline:
    """Idle, 25 req/s from 2m, 50 req/s from 10m, idle from 18m; up to 5, 10, down to 1."""
    timeline = Timeline(name)
    replicas = 1
    sizes = {135: 5, 615: 10, 1395: 1}
    for t in range(0, 1800, 15):
        load = 0.5 if t < 120 else 25.0 if t < 600 else 50.0 if t < 1080 else 0.5
        if t in sizes:
            reason = "All metrics below target" if sizes[t] < replicas else "cpu above target"
            timeline.append_event(
                TimelineEvent(
                    timedelta(seconds=t),
                    "SuccessfulRescale",
                    f"New size: {sizes[t]}; reason: {reason}",
                )
            )
            replicas = sizes[t]
        utilization = None if t == 0 else min(250.0, load * 10 / replicas)
        timeline.append_sample(
            Sample(timedelta(seconds=t), load, utilization, 50, replicas, replicas, replicas)
        )
    return timeline


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data.startswith(PNG_SIGNATURE)
    chunks = []
    position = len(PNG_SIGNATURE)
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) == crc
        chunks.append((kind, body))
        position += 12 + length
    return chunks


@pytest.mark.parametrize(
    "timeline",
    [
        walkthrough_run(),
        Timeline("empty"),
        Timeline("single", samples=[Sample(timedelta(0), 0.0, None, 50, 0, 0, 0)]),
        Timeline(
            "rescale-without-samples",
            events=[
                TimelineEvent(timedelta(seconds=30), "SuccessfulRescale", "New size: 2; reason: x")
            ],
        ),
    ],
    ids=["walkthrough", "empty", "single-idle-sample", "rescale-without-samples"],
)
def test_write_plot_writes_a_valid_png(tmp_path: Path, timeline: Timeline) -> None:
    path = write_plot(timeline, tmp_path / "demo.png")
    data = path.read_bytes()
    chunks = png_chunks(data)
    kinds = [kind for kind, _ in chunks]
    assert kinds[0] == b"IHDR"
    assert kinds[-1] == b"IEND"
    width, height = struct.unpack(">II", chunks[0][1][:8])
    assert (width, height) == (1000, 800)
    assert sum(len(body) for kind, body in chunks if kind == b"IDAT") > 0


def test_write_plot_is_deterministic(tmp_path: Path) -> None:
    first = write_plot(walkthrough_run(), tmp_path / "a.png").read_bytes()
    second = write_plot(walkthrough_run(), tmp_path / "b.png").read_bytes()
    assert first == second


def test_write_plot_depends_on_the_timeline(tmp_path: Path) -> None:
    first = write_plot(walkthrough_run("php-apache"), tmp_path / "a.png").read_bytes()
    second = write_plot(walkthrough_run("other"), tmp_path / "b.png").read_bytes()
    assert first != second


def test_write_plot_leaves_out_the_software_metadata(tmp_path: Path) -> None:
    data = write_plot(walkthrough_run(), tmp_path / "demo.png").read_bytes()
    texts = [body for kind, body in png_chunks(data) if kind in (b"tEXt", b"iTXt", b"zTXt")]
    assert not any(body.startswith(b"Software\x00") for body in texts)
    assert b"matplotlib" not in data
