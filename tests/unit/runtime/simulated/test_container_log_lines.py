"""``container_log_lines.advance_log`` (level-triggered: a status seen twice adds nothing, a
status that skipped steps still gets every line) and ``container_log_render`` (tail before
since, fixed nine-digit timestamps, a byte budget across chunks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.operations.pod_log_options import PodLogOptions
from podscale.runtime.simulated.container_log_lines import LogCursor, advance_log
from podscale.runtime.simulated.container_log_render import (
    LogBudget,
    format_timestamp,
    render_lines,
    select_lines,
)

T0 = datetime(2026, 3, 1, tzinfo=UTC)
POD: dict[str, Any] = {"metadata": {"name": "p", "uid": "u"}}
RUNNING = {
    "name": "c",
    "image": "i",
    "restartCount": 0,
    "ready": True,
    "state": {"running": {"startedAt": "2026-03-01T00:00:02Z"}},
}
CRASHED = {
    "name": "c",
    "image": "i",
    "restartCount": 0,
    "ready": False,
    "state": {
        "terminated": {
            "exitCode": 1,
            "reason": "Error",
            "startedAt": "2026-03-01T00:00:02Z",
            "finishedAt": "2026-03-01T00:00:09Z",
        }
    },
}
RESTARTED = {
    "name": "c",
    "image": "i",
    "restartCount": 1,
    "ready": False,
    "state": {"running": {"startedAt": "2026-03-01T00:00:19Z"}},
    "lastState": CRASHED["state"],
}
WAITING = {
    "name": "c",
    "image": "i",
    "restartCount": 0,
    "state": {"waiting": {"reason": "ContainerCreating"}},
}


def texts(statuses: list[dict[str, Any]]) -> list[tuple[int, str]]:
    cursor: LogCursor | None = None
    out: list[tuple[int, str]] = []
    for status in statuses:
        lines, cursor = advance_log(POD, status, cursor, T0 + timedelta(seconds=30))
        out += [(line.instance, line.text.split('"c" ')[1]) for line in lines]
    return out


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([WAITING], []),
        ([WAITING, RUNNING, RUNNING], [(0, 'started (image "i")'), (0, "is ready")]),
        (
            [RUNNING, CRASHED],
            [(0, 'started (image "i")'), (0, "is ready"), (0, "exited with code 1 (Error)")],
        ),
        # The crash was never seen: the restart still closes the dead instance's log.
        (
            [RUNNING, RESTARTED],
            [
                (0, 'started (image "i")'),
                (0, "is ready"),
                (0, "exited with code 1 (Error)"),
                (1, 'started (image "i"), restart 1'),
            ],
        ),
    ],
    ids=["waiting", "start-then-ready-once", "crash", "missed-crash"],
)
def test_advance_log(statuses: list[dict[str, Any]], expected: list[tuple[int, str]]) -> None:
    assert texts(statuses) == expected


@given(st.lists(st.sampled_from([WAITING, RUNNING, CRASHED]), max_size=6))
def test_seeing_a_status_again_adds_nothing(statuses: list[dict[str, Any]]) -> None:
    doubled = [s for status in statuses for s in (status, status)]
    assert texts(doubled) == texts(statuses)


LINES = [(T0 + timedelta(seconds=i), f"line {i}") for i in range(5)]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (PodLogOptions(tail_lines=2), ["line 3", "line 4"]),
        (PodLogOptions(since_time=T0 + timedelta(seconds=3)), ["line 3", "line 4"]),
        (PodLogOptions(since_seconds=2), ["line 3", "line 4"]),  # now = t+5
        # Tail first, then since: the last three lines, of which only the newest two pass.
        (PodLogOptions(tail_lines=3, since_seconds=2), ["line 3", "line 4"]),
        (PodLogOptions(tail_lines=1, since_seconds=4), ["line 4"]),
    ],
    ids=["tail", "since-time-inclusive", "since-seconds", "tail-then-since", "tail-one"],
)
def test_select_lines(options: PodLogOptions, expected: list[str]) -> None:
    chosen = select_lines(LINES, options, T0 + timedelta(seconds=5))
    assert [text for _, text in chosen] == expected


def test_timestamps_have_nine_fixed_digits() -> None:
    assert format_timestamp(T0 + timedelta(microseconds=1500)) == "2026-03-01T00:00:00.001500000Z"


def test_the_byte_budget_spans_chunks() -> None:
    budget = LogBudget(10)
    first = render_lines(LINES[:1], False, budget)
    second = render_lines(LINES[1:], False, budget)
    assert (first, second, budget.spent) == (b"line 0\n", b"lin", True)
