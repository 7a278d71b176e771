"""Predictive scaling's bar: the HPA, podscale's PHPA and Crane's EHPA replayed on seven traces.

For each trace a one-day replay (``podscale.replay.replay.replay`` on the scenario
``podscale replay --trace`` builds: one Deployment ``app``, pods Ready 90 s after creation,
CPU target 50%) starting warm with seven days of history (the scenario's ``spec.history``:
the trace's week before the window, written to the plane's history store first), 30 minutes
of warmup, scoring each autoscaler of ``examples/predictive/``:

- ``hpa``: upstream's default HPA (CPU 50%, 1..100, no behavior), the reference;
- ``phpa``: the same spec as a PredictiveHorizontalPodAutoscaler with ``prediction: {}``;
- ``ehpa``: Crane's EffectiveHorizontalPodAutoscaler, DSP prediction (no bar: a comparison).

A kind neither built in nor defined by a CRD podscale ships is skipped with a printed line,
so the bench runs before its controller exists. Traces: NASA on Wednesday 12 July 1995
(minutes 15840-17280, the week before it clean), Alibaba GenAI's whole day (no history
before it: forecasters must fall back), and the five synthetic traces of
``examples/traces/`` scored on their eighth day.

The bar (checked when the PHPA ran; exit 1 when it fails): over all traces, at least 50%
fewer under-provisioned pod-minutes than the HPA at no more than 10% more pod-hours (cost),
and on no trace more under-provisioned pod-minutes or SLO-violation minutes than the HPA.

Runs are independent processes (a pool of ``--jobs``, one job per trace and autoscaler,
longest first), each a whole replay of one autoscaler: ``replay``'s own pool only spans the
autoscalers of one trace. Prints each trace's table and the totals, writes
``predictive.md`` (the tables) and one plot per trace (``podscale.replay.plot``) to
``--out``, and the wall time.

Usage: python3 bench/predictive.py [--out DIR] [--jobs N] [--only nasa-weekday,daily,...]
                                   [--autoscalers hpa,phpa,ehpa] [--duration 1440m]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import yaml

from podscale.api.durations import parse_go_duration
from podscale.api.kinds import kind_for
from podscale.controllers.shipped_crds import SHIPPED_CRDS, shipped_definition
from podscale.replay.from_trace import TraceWorkload, trace_scenario
from podscale.replay.measures import Totals
from podscale.replay.replay import ReplayReport, replay
from podscale.replay.report import render_table
from podscale.replay.target import Autoscaler
from podscale.replay.window import choose_window

JSON = dict[str, Any]
ROOT: Final = Path(__file__).resolve().parents[1]
TRACES_DIR: Final = ROOT / "examples" / "traces"
MANIFESTS: Final = ROOT / "examples" / "predictive"
NASA: Final = ROOT / "src/podscale/demo/scenarios/traces/nasa-1995-per-minute.csv"
HISTORY: Final = "7d"
WARMUP: Final = timedelta(minutes=30)
STARTUP: Final = "90s"
UTILIZATION: Final = 50
# The bar, against the HPA.
UNDER_CUT: Final = 0.5
COST_ALLOWANCE: Final = 1.10
REFERENCE, PREDICTIVE = "hpa", "phpa"


@dataclass(frozen=True, slots=True)
class Trace:
    """One evaluation: a trace, the minutes scored (``minutes`` None: to the end) and the
    workload's cost (CPU per request/s, pod request)."""

    name: str
    path: Path
    cpu_per_request: str
    request: str
    start_minute: int
    minutes: int | None = 1440


EIGHTH_DAY: Final = 7 * 1440
TRACES: Final = (
    # Wednesday 12 July 1995: the week before it is ordinary (4 July is out of it).
    Trace("nasa-weekday", NASA, "2", "500m", 11 * 1440),
    Trace("alibaba-genai", TRACES_DIR / "alibaba-genai-2026-qps.csv", "1", "500m", 0, None),
    Trace("daily", TRACES_DIR / "synthetic-daily.csv", "500m", "500m", EIGHTH_DAY),
    Trace("weekly", TRACES_DIR / "synthetic-weekly.csv", "500m", "500m", EIGHTH_DAY),
    Trace("spike", TRACES_DIR / "synthetic-spike.csv", "500m", "500m", EIGHTH_DAY),
    Trace("trend", TRACES_DIR / "synthetic-trend.csv", "500m", "500m", EIGHTH_DAY),
    Trace("random-walk", TRACES_DIR / "synthetic-random-walk.csv", "500m", "500m", EIGHTH_DAY),
)


def load_objects(path: Path) -> tuple[JSON, ...]:
    return tuple(d for d in yaml.safe_load_all(path.read_text("utf-8")) if d is not None)


def available(objects: Sequence[JSON]) -> str | None:
    """None when every kind can be created, else why not."""
    shipped = set()
    for name in SHIPPED_CRDS:
        spec = shipped_definition(name).get("spec") or {}
        shipped.add((spec.get("group"), (spec.get("names") or {}).get("kind")))
    for obj in objects:
        api_version, kind = str(obj.get("apiVersion")), str(obj.get("kind"))
        try:
            kind_for(api_version, kind)
            continue
        except KeyError:
            pass
        if (api_version.rpartition("/")[0], kind) not in shipped:
            return f"{kind} ({api_version}) is not served: no shipped CRD defines it yet"
    return None


@dataclass(frozen=True, slots=True)
class Job:
    trace: Trace
    autoscaler: Autoscaler
    duration: timedelta | None


@dataclass(frozen=True, slots=True)
class Done:
    job: Job
    report: ReplayReport
    wall: float


def run(job: Job) -> Done:
    began = time.perf_counter()
    trace = job.trace
    scenario = trace_scenario(
        TraceWorkload(trace.path, trace.cpu_per_request, trace.request, STARTUP, history=HISTORY)
    )
    span = job.duration or (timedelta(minutes=trace.minutes) if trace.minutes else None)
    window = choose_window(scenario.duration, timedelta(minutes=trace.start_minute), span, WARMUP)
    report = replay(scenario, [job.autoscaler], window, utilization=UTILIZATION, workers=1)
    return Done(job, report, time.perf_counter() - began)


def merged(done: Sequence[Done]) -> ReplayReport:
    """One report per trace: every autoscaler's run, then the references (the same in every
    job: they come from the load alone)."""
    first = done[0].report
    runs = [r for d in done for r in d.report.runs if not r.reference]
    references = [r for r in first.runs if r.reference]
    return dataclasses.replace(first, runs=(*runs, *references))


COLUMNS: Final = (
    ("UNDER POD-MIN", "under_pod_minutes", "{:.1f}"),
    ("UNDER MIN", "under_minutes", "{}"),
    ("SLO MIN", "slo_violation_minutes", "{}"),
    ("OVER POD-H", "over_pod_hours", "{:.2f}"),
    ("COST POD-H", "cost_pod_hours", "{:.2f}"),
    ("UPS", "scale_ups", "{}"),
    ("DOWNS", "scale_downs", "{}"),
    ("MAX", "max_replicas", "{}"),
)


def markdown(reports: dict[str, ReplayReport], names: Sequence[str]) -> str:
    head = "| trace | autoscaler | " + " | ".join(c for c, _, _ in COLUMNS) + " |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for trace, report in reports.items():
        for r in report.runs:
            cells = [fmt.format(getattr(r.totals, field)) for _, field, fmt in COLUMNS]
            lines.append(f"| {trace} | {r.name} | " + " | ".join(cells) + " |")
    lines += ["", "| total | under pod-min | SLO min | cost pod-h |", "|---|---|---|---|"]
    for name in names:
        under, slo, cost = totals(reports, name)
        lines.append(f"| {name} | {under:.1f} | {slo} | {cost:.2f} |")
    return "\n".join(lines) + "\n"


def by_name(report: ReplayReport, name: str) -> Totals | None:
    return next((r.totals for r in report.runs if r.name == name), None)


def totals(reports: dict[str, ReplayReport], name: str) -> tuple[float, int, float]:
    found = [t for r in reports.values() if (t := by_name(r, name)) is not None]
    return (
        sum(t.under_pod_minutes for t in found),
        sum(t.slo_violation_minutes for t in found),
        sum(t.cost_pod_hours for t in found),
    )


def check_bar(reports: dict[str, ReplayReport]) -> list[str]:
    """What fails the bar (empty: it holds)."""
    failures = []
    hpa_under, _, hpa_cost = totals(reports, REFERENCE)
    under, _, cost = totals(reports, PREDICTIVE)
    if under > UNDER_CUT * hpa_under:
        failures.append(
            f"under-provisioned pod-minutes {under:.1f} > {UNDER_CUT:.0%} of the HPA's "
            f"{hpa_under:.1f}"
        )
    if cost > COST_ALLOWANCE * hpa_cost:
        failures.append(f"pod-hours {cost:.2f} > 110% of the HPA's {hpa_cost:.2f}")
    for trace, report in reports.items():
        hpa, phpa = by_name(report, REFERENCE), by_name(report, PREDICTIVE)
        if hpa is None or phpa is None:
            continue
        if phpa.under_pod_minutes > hpa.under_pod_minutes:
            failures.append(
                f"{trace}: under-provisioned pod-minutes {phpa.under_pod_minutes:.1f} > the "
                f"HPA's {hpa.under_pod_minutes:.1f}"
            )
        if phpa.slo_violation_minutes > hpa.slo_violation_minutes:
            failures.append(
                f"{trace}: SLO-violation minutes {phpa.slo_violation_minutes} > the HPA's "
                f"{hpa.slo_violation_minutes}"
            )
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("predictive-out"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="comma-separated trace names")
    parser.add_argument(
        "--autoscalers", default="hpa,phpa,ehpa", help="comma-separated, of hpa, phpa, ehpa"
    )
    parser.add_argument(
        "--duration", default=None, help="score this much of each day (e.g. 360m) instead"
    )
    args = parser.parse_args(argv)
    wanted = {n for n in args.only.split(",") if n}
    traces = [t for t in TRACES if not wanted or t.name in wanted]
    duration = parse_go_duration(args.duration) if args.duration else None
    names: list[str] = []
    autoscalers: list[Autoscaler] = []
    for name in [n for n in args.autoscalers.split(",") if n]:
        path = MANIFESTS / f"{name}.yaml"
        objects = load_objects(path)
        if (why := available(objects)) is not None:
            print(f"skipping {name} ({path}): {why}")
            continue
        names.append(name)
        autoscalers.append(Autoscaler(name, objects, str(path)))
    jobs = [Job(t, a, duration) for t in traces for a in autoscalers]
    # Longest first (the busiest traces), so the pool does not end on one long job.
    order = ("trend", "nasa-weekday", "alibaba-genai", "spike", "daily", "weekly")
    jobs.sort(key=lambda j: order.index(j.trace.name) if j.trace.name in order else len(order))
    began = time.perf_counter()
    done: list[Done] = []
    with ProcessPoolExecutor(max(1, min(args.jobs, len(jobs)))) as pool:
        for finished in as_completed([pool.submit(run, job) for job in jobs]):
            d = finished.result()
            done.append(d)
            print(
                f"[{time.perf_counter() - began:4.0f} s] {d.job.trace.name} / "
                f"{d.job.autoscaler.name}: {d.wall:.0f} s ({len(done)}/{len(jobs)})",
                flush=True,
            )
    wall = time.perf_counter() - began
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    reports: dict[str, ReplayReport] = {}
    for trace in traces:
        mine = [
            d for a in autoscalers for d in done if d.job.trace == trace and d.job.autoscaler == a
        ]
        reports[trace.name] = report = merged(mine)
        times = ", ".join(f"{d.job.autoscaler.name} {d.wall:.0f} s" for d in mine)
        print(f"== {trace.name} ({times} of wall time)")
        print(render_table(report))
    print("totals over the traces (under pod-min, SLO min, cost pod-h):")
    for name in names:
        under, slo, cost = totals(reports, name)
        print(f"  {name:6} {under:10.1f} {slo:6d} {cost:10.2f}")
    print(
        f"wall {wall:.0f} s, CPU {cpu.ru_utime + cpu.ru_stime:.0f} s in {len(jobs)} runs, "
        f"{args.jobs} processes"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "predictive.md").write_text(markdown(reports, names), encoding="utf-8")
    from podscale.replay.plot import write_plot

    for trace_name, report in reports.items():
        write_plot(report, args.out / f"predictive-{trace_name}.png")
    print(f"wrote {args.out / 'predictive.md'} and {len(reports)} plots")
    if PREDICTIVE not in names:
        print("the bar is not checked: the PHPA did not run")
        return 0
    failures = check_bar(reports)
    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print("the bar holds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
