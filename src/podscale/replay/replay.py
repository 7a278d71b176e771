"""A whole replay: every autoscaler on the same scenario, scored, with the two references.

``replay`` cuts the scenario to the window (``podscale.replay.window``), finds the target
and ``u`` (``podscale.replay.target``; a custom target's pod shape is read from the first
run's pods, as its controller makes them), plays one run per autoscaler (``podscale.replay.run``)
in parallel worker processes when there are several runs and cores for them, turns each
recording into per-minute series (``podscale.replay.sampling``) and scores them
(``podscale.replay.measures``), next to "fixed at the peak" and the "oracle" computed from
the same demand. Each run is the same seeded scenario on its own virtual clock, so where it
runs cannot change its numbers: results are in the autoscalers' order either way. The clock
reads scenario time as ``podscale demo`` does (scenario time ``t`` is ``DEFAULT_START + t``,
also when the run starts at ``--from`` less the warmup), so what reads the wall clock (a
CronHPA's schedules) acts at the same scenario time whatever the window.

Progress: each run reports its simulated offset every ``PROGRESS_EVERY`` (through a queue
from the worker processes); ``on_progress`` hears a ``Progress`` whenever something moved.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.replay.hpa_series import RunMetrics, metric_minutes
from podscale.replay.measures import (
    MinuteSeries,
    PodShape,
    Totals,
    fixed_at_peak,
    needed_pods,
    oracle,
    score,
)
from podscale.replay.run import Recording, record_run
from podscale.replay.sampling import demand_per_minute, minute_means, window_events
from podscale.replay.target import (
    Autoscaler,
    TargetShape,
    choose_target,
    choose_utilization,
    describe_target,
    replace_autoscalers,
    shape_of_pod,
)
from podscale.replay.window import Window, shift_scenario
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.model import Scenario, Workload, WorkloadTarget

__all__ = [
    "FIXED_AT_PEAK",
    "ORACLE",
    "Progress",
    "ReplayReport",
    "RunResult",
    "replay",
]

FIXED_AT_PEAK: Final = "fixed at the peak"
ORACLE: Final = "oracle"
_POLL_SECONDS: Final = 0.2


@dataclass(frozen=True, slots=True)
class RunResult:
    """One row of the report: an autoscaler's run, or a reference (``reference`` True)."""

    name: str
    series: MinuteSeries
    totals: Totals
    reference: bool = False
    # What the autoscaler's HPA measured against its targets (None for a reference).
    metrics: RunMetrics | None = None


@dataclass(frozen=True, slots=True)
class ReplayReport:
    scenario: str
    window: Window
    target: str
    utilization: int
    shape: TargetShape
    runs: tuple[RunResult, ...]

    @property
    def pod(self) -> PodShape:
        return PodShape(self.shape.cpu_request, self.shape.cpu_limit, self.utilization / 100)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a replay got: simulated time per run, and runs finished."""

    simulated: tuple[timedelta, ...]
    total: timedelta
    done: int

    @property
    def runs(self) -> int:
        return len(self.simulated)


@dataclass(frozen=True, slots=True)
class _Job:
    index: int
    scenario: Scenario
    target: WorkloadTarget
    selector: dict[str, Any]
    start: datetime = DEFAULT_START  # the run's wall time at its offset 0


_progress_queue: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _progress_queue  # one queue per worker process, set as it starts
    _progress_queue = progress_queue


def _run_job(job: _Job) -> Recording:
    """Run in a worker process: report progress through the queue it was started with."""
    sink = _progress_queue

    def progress(offset: timedelta) -> None:
        if sink is not None:
            sink.put((job.index, offset))

    return record_run(job.scenario, job.target, job.selector, progress=progress, start=job.start)


def _record_all(
    jobs: Sequence[_Job],
    workers: int,
    on_progress: Callable[[Progress], None] | None,
    total: timedelta,
) -> list[Recording]:
    simulated = [timedelta(0)] * len(jobs)
    done = 0

    def tell() -> None:
        if on_progress is not None:
            on_progress(Progress(tuple(simulated), total, done))

    if workers <= 1 or len(jobs) <= 1:
        results: list[Recording] = []
        for job in jobs:

            def progress(offset: timedelta, index: int = job.index) -> None:
                simulated[index] = offset
                tell()

            results.append(
                record_run(
                    job.scenario, job.target, job.selector, progress=progress, start=job.start
                )
            )
            simulated[job.index], done = total, done + 1
            tell()
        return results
    methods = multiprocessing.get_all_start_methods()
    # fork: a worker starts in milliseconds with podscale already imported.
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    sink = context.Queue() if on_progress is not None else None
    with ProcessPoolExecutor(
        min(workers, len(jobs)), mp_context=context, initializer=_init_worker, initargs=(sink,)
    ) as pool:
        futures: dict[Future[Recording], int] = {pool.submit(_run_job, j): j.index for j in jobs}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            before = (tuple(simulated), done)
            while sink is not None:
                try:
                    index, offset = sink.get_nowait()
                except queue.Empty:
                    break
                simulated[index] = max(simulated[index], offset)
            for future in finished:
                simulated[futures[future]], done = total, done + 1
            if (tuple(simulated), done) != before:
                tell()
        return [future.result() for future in sorted(futures, key=futures.__getitem__)]


def _series(
    recording: Recording, demand: tuple[float, ...], needed: tuple[int, ...], window: Window
) -> MinuteSeries:
    start, minutes = window.offset.total_seconds(), window.minutes
    events, highest = window_events(0, recording.replicas, start, minutes)
    return MinuteSeries(
        demand,
        needed,
        minute_means(0, recording.ready, start, minutes),
        minute_means(0, recording.replicas, start, minutes),
        events,
        highest,
    )


def _shape_from_runs(chosen: Workload, recordings: Sequence[Recording]) -> TargetShape:
    """A custom target's pod shape, from the first pod any run saw (its controller made
    it; every run plays the same scenario, so any run's pods will do)."""
    containers = next((r.containers for r in recordings if r.containers), None)
    if containers is None:
        raise ValueError(f"{chosen.target} ran no pods: needed pods cannot be computed")
    return shape_of_pod(chosen, containers)


def replay(
    scenario: Scenario,
    autoscalers: Sequence[Autoscaler],
    window: Window,
    *,
    utilization: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> ReplayReport:
    """Replay ``scenario`` once per autoscaler over ``window`` and score every run.
    ``utilization`` (percent) overrides ``u``; ``workers`` defaults to the cores there are.
    Raises ``ValueError`` for a scenario or autoscalers that cannot be scored."""
    if not autoscalers:
        raise ValueError("no autoscaler to replay")
    chosen = choose_target(scenario, autoscalers)
    known = describe_target(scenario, chosen)
    u = choose_utilization(scenario, autoscalers, utilization)
    if u <= 0:
        raise ValueError(f"the target utilization must be positive, not {u}%")
    shifted = shift_scenario(scenario, window)
    target = chosen.target
    jobs = [
        _Job(
            i,
            dataclasses.replace(shifted, manifests=replace_autoscalers(shifted, a)),
            target,
            known.selector if known is not None else {},
            DEFAULT_START + window.run_start,
        )
        for i, a in enumerate(autoscalers)
    ]
    count = workers if workers is not None else (os.cpu_count() or 1)
    recordings = _record_all(jobs, count, on_progress, shifted.duration)
    shape = known if known is not None else _shape_from_runs(chosen, recordings)
    load = next(w.load for w in shifted.workloads if w.target == target)
    demand = demand_per_minute(
        lambda s: load.rate_at(timedelta(seconds=s)),
        shape.cpu_per_request,
        window.offset.total_seconds(),
        window.minutes,
    )
    pod = PodShape(shape.cpu_request, shape.cpu_limit, u / 100)
    needed = tuple(needed_pods(d, pod) for d in demand)
    start = window.offset.total_seconds()
    runs = [
        RunResult(
            a.name,
            series := _series(r, demand, needed, window),
            score(series, pod),
            metrics=None if r.hpa is None else metric_minutes(r.hpa, start, window.minutes),
        )
        for a, r in zip(autoscalers, recordings, strict=True)
    ]
    for name, build in ((FIXED_AT_PEAK, fixed_at_peak), (ORACLE, oracle)):
        series = build(demand, needed)
        runs.append(RunResult(name, series, score(series, pod), reference=True))
    return ReplayReport(scenario.name, window, str(target), u, shape, tuple(runs))
