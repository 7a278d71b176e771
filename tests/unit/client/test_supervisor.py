"""The supervisor (podscale.client.supervisor): its pure backoff schedule, restarts after a
failure on virtual time, the fault in readiness and metrics, and a log that cannot flood."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.client.supervisor import (
    DEFAULT_BACKOFF,
    Backoff,
    Supervisor,
    backoff_delay,
    backoff_schedule,
    next_failure_count,
)
from podscale.runtime import VirtualClock, run_virtual

START = datetime(2026, 5, 1, tzinfo=UTC)
SECONDS = [timedelta(seconds=s) for s in (1, 2, 4, 8, 16, 30, 30, 30)]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (DEFAULT_BACKOFF, SECONDS),
        (
            Backoff(initial=timedelta(milliseconds=500), factor=3, cap=timedelta(seconds=10)),
            [timedelta(seconds=s) for s in (0.5, 1.5, 4.5, 10, 10)],
        ),
        (Backoff(initial=timedelta(seconds=5), factor=1), [timedelta(seconds=5)] * 3),
    ],
    ids=["default-1s-doubling-to-30s", "factor-3-cap-10s", "constant"],
)
def test_backoff_schedule(policy: Backoff, expected: list[timedelta]) -> None:
    assert backoff_schedule(policy, len(expected)) == expected


@given(st.integers(min_value=1, max_value=10_000))
def test_backoff_never_exceeds_the_cap_and_never_shrinks(failures: int) -> None:
    delay = backoff_delay(DEFAULT_BACKOFF, failures)
    assert DEFAULT_BACKOFF.initial <= delay <= DEFAULT_BACKOFF.cap
    assert backoff_delay(DEFAULT_BACKOFF, failures + 1) >= delay


@pytest.mark.parametrize(
    ("previous", "ran_for", "expected"),
    [
        (0, timedelta(0), 1),
        (3, timedelta(seconds=5), 4),
        (7, timedelta(minutes=2), 1),
        (7, timedelta(hours=1), 1),
    ],
    ids=["first", "crash-loop", "healthy-stretch-resets", "long-run-resets"],
)
def test_a_healthy_stretch_resets_the_count(
    previous: int, ran_for: timedelta, expected: int
) -> None:
    assert next_failure_count(DEFAULT_BACKOFF, previous, ran_for) == expected


@pytest.mark.parametrize(
    "options",
    [
        {"initial": timedelta(0)},
        {"initial": timedelta(seconds=5), "cap": timedelta(seconds=1)},
        {"factor": 0.5},
    ],
    ids=["zero-initial", "cap-below-initial", "shrinking-factor"],
)
def test_bad_backoffs_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="backoff needs"):
        Backoff(**options)  # type: ignore[arg-type]


class Flaky:
    """Fails its first ``failures`` runs, then runs until cancelled; records start times."""

    def __init__(self, clock: VirtualClock, failures: int) -> None:
        self.clock = clock
        self.failures = failures
        self.starts: list[float] = []

    async def __call__(self) -> None:
        self.starts.append(self.clock.elapsed())
        if len(self.starts) <= self.failures:
            raise RuntimeError(f"boom {len(self.starts)}")
        await asyncio.Event().wait()


def test_a_failed_component_restarts_with_backoff_and_shows_in_readiness() -> None:
    clock = VirtualClock(START)
    supervisor = Supervisor(clock)
    flaky = Flaky(clock, failures=3)
    seen: dict[str, object] = {}

    async def main() -> None:
        task = asyncio.create_task(supervisor.run("flaky", flaky))
        await asyncio.sleep(2.5)  # second backoff: 1 s after the first run, 2 s after this
        (check,) = supervisor.checks()
        seen["during"] = (check.name, check.check(), supervisor.in_backoff("flaky"))
        seen["metrics_during"] = supervisor.render_metrics()
        await asyncio.sleep(60)
        seen["after"] = (check.check(), supervisor.failures("flaky"))
        seen["metrics_after"] = supervisor.render_metrics()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_virtual(main(), start=START, until=timedelta(hours=1))
    assert flaky.starts == [0.0, 1.0, 3.0, 7.0]  # 1 s, 2 s, 4 s apart
    assert seen["during"] == ("flaky", "restarting after a failure: RuntimeError: boom 2", True)
    assert 'podscale_supervised_component_backoff{component="flaky"} 1.0\n' in str(
        seen["metrics_during"]
    )
    assert seen["after"] == (None, 3)
    metrics = str(seen["metrics_after"])
    assert "# TYPE podscale_supervised_component_failures_total counter\n" in metrics
    assert 'podscale_supervised_component_failures_total{component="flaky"} 3.0\n' in metrics
    assert 'podscale_supervised_component_backoff{component="flaky"} 0.0\n' in metrics


def test_a_component_that_returns_ends_its_supervision() -> None:
    clock = VirtualClock(START)
    supervisor = Supervisor(clock)
    runs: list[float] = []

    async def once() -> None:
        runs.append(clock.elapsed())
        if len(runs) == 1:
            raise OSError("connection reset")

    async def main() -> None:
        await supervisor.run("once", once)

    run_virtual(main(), start=START, until=timedelta(minutes=1))
    assert runs == [0.0, 1.0]
    assert (supervisor.failures("once"), supervisor.check("once")) == (1, None)
    assert supervisor.last_error("once") == "OSError: connection reset"


def test_a_crash_loop_logs_one_warning_per_interval_and_tracebacks_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = VirtualClock(START)
    supervisor = Supervisor(clock, log_interval=timedelta(minutes=1))
    flaky = Flaky(clock, failures=10)  # restarts at 1, 3, 7, 15, 31, 61, 91, 121, 151, 181 s

    async def main() -> None:
        task = asyncio.create_task(supervisor.run("loop", flaky))
        await asyncio.sleep(200)
        task.cancel()
        await asyncio.wait({task})

    with caplog.at_level(logging.DEBUG, logger="podscale.client.supervisor"):
        run_virtual(main(), start=START, until=timedelta(hours=1))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    # Failures at 0, 1, ..., 151 s: loud at 0, 61 and 121 s, at debug in between.
    assert [r.getMessage() for r in warnings] == [
        "loop failed (1 failures so far): RuntimeError: boom 1; restarting in 1s",
        "loop failed (7 failures so far): RuntimeError: boom 7; restarting in 30s",
        "loop failed (9 failures so far): RuntimeError: boom 9; restarting in 30s",
    ]
    assert all(r.exc_info is None for r in warnings)
    tracebacks = [r for r in caplog.records if r.exc_info is not None]
    assert len(tracebacks) == 10
    assert {r.levelno for r in tracebacks} == {logging.DEBUG}


def test_cancellation_is_not_a_failure() -> None:
    clock = VirtualClock(START)
    supervisor = Supervisor(clock)

    async def forever() -> None:
        await asyncio.Event().wait()

    async def main() -> None:
        task = asyncio.create_task(supervisor.run("idle", forever))
        await asyncio.sleep(5)
        task.cancel()
        await asyncio.wait({task})
        assert task.cancelled()

    run_virtual(main(), start=START, until=timedelta(minutes=1))
    assert supervisor.failures("idle") == 0
    assert [c.name for c in supervisor.checks()] == ["idle"]
