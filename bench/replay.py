"""Replay speed: simulated days of HPA-driven workloads through the whole control plane.

Each workload is a Deployment whose pods request 200m CPU (limit 500m), driven by a sine
request rate over one day (trough 10 req/s at midnight, peak 150 req/s at noon, 20m of CPU
per request plus 1m baseline, 5% noise) and scaled by an autoscaling/v2 HPA (CPU 50%, min 1,
max 100, no behavior): about 30 pods needed at the peak, 3 at the trough. The scenario runs
on ``podscale.scenario.play.run_scenario`` (the embedded control plane on virtual time: store,
in-process API, controllers, scheduler, kubelets, simulated usage, metrics server, HPA), with
a snapshot every ``--tick`` (default 1 min) read as ``kubectl`` would.

Three figures, the goals of the replay command (wall time on this machine):
- ``day``: one simulated day of one workload (goal <= 5 s);
- ``fleet``: one simulated day of ``--fleet`` workloads with one HPA each (goal <= 300 s for
  100; ``--fleet-hours`` shortens the span, and the report then extrapolates to a day,
  labelled as such: the first 10 simulated minutes (the setup: every pod created) once,
  the rest at the rate measured after them). An extrapolation is a quick look, never judged
  against the goal: a span from midnight holds the trough's few pods, and the cost grows
  with the pods (half an hour extrapolated to 217 s where the whole day took 490 s of CPU);
- ``week``: seven simulated days of one workload (goal <= 30 s);
- ``trace``: what a user runs, ``podscale replay``'s engine (``podscale.replay.replay``, one
  run, no worker process) on the NASA weekday of docs/replay.md's baselines (minutes
  5760-7200 after a 30-minute warm-up, 2 CPU per request/s, 500m request, 90 s startup, the
  upstream-default HPA of ``examples/replay-baselines/default.yaml``): a day of a real trace,
  peaking at 27 pods, with about seven times the sine's scale events. Reported next to the
  goals (the day's goal is the sine's), not instead of them.

Every run checks its result and the script exits 1 when one fails: at the peak (noon of each
day) and at the end, each workload's ``spec.replicas`` must lie within a band around the pods
the noise-free load needs (ceil(cpu / (200m x 50%))): the HPA followed the load. The
``trace`` figure checks the replay's own measures: the HPA's cost lies between the oracle's
and fixed-at-the-peak's, its highest replicas reach the needed peak, and it was
under-provisioned for less than a tenth of the needed pod-minutes.

Usage: python3 bench/replay.py [--only day,fleet,week,trace] [--fleet 100] [--fleet-hours 24]
                               [--days 7] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from engine import machine  # bench/ is on sys.path when run as a script
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Scenario
from podscale.scenario.play import run_scenario
from podscale.scenario.snapshot import ScenarioSnapshot

JSON = dict[str, Any]
DAY = timedelta(days=1)
REQUEST_MILLICPU = 200
TARGET_UTILIZATION = 0.5
PER_REQUEST_MILLICPU = 20
BASELINE_MILLICPU = 1
TROUGH_RATE = 10.0
PEAK_RATE = 150.0
GOALS = {"day": 5.0, "fleet": 300.0, "week": 30.0}
REPO = Path(__file__).resolve().parents[1]
NASA = REPO / "src" / "podscale" / "demo" / "scenarios" / "traces" / "nasa-1995-per-minute.csv"
DEFAULT_HPA = REPO / "examples" / "replay-baselines" / "default.yaml"
# A shortened fleet is extrapolated from its steady state after this much simulated time.
SETUP_HOURS = 10 / 60


def rate_at(t: timedelta) -> float:
    """The noise-free request rate of every workload ``t`` after the start."""
    base = (PEAK_RATE + TROUGH_RATE) / 2
    amplitude = (PEAK_RATE - TROUGH_RATE) / 2
    return base - amplitude * math.cos(2 * math.pi * t / DAY)


def needed_at(t: timedelta) -> int:
    """Pods the noise-free load needs at ``t``: ceil(cpu / (request x target))."""
    cpu = BASELINE_MILLICPU + PER_REQUEST_MILLICPU * rate_at(t)
    return math.ceil(cpu / (REQUEST_MILLICPU * TARGET_UTILIZATION))


def scenario(workloads: int, duration: timedelta) -> Scenario:
    """``workloads`` Deployments ``web-0``.. with one HPA each, on enough nodes."""
    manifests: list[JSON] = []
    loads: list[JSON] = []
    for i in range(workloads):
        name = f"web-{i}"
        labels = {"app": name}
        manifests.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {
                            "containers": [
                                {
                                    "name": "app",
                                    "image": "registry.k8s.io/hpa-example",
                                    "resources": {
                                        "requests": {"cpu": f"{REQUEST_MILLICPU}m"},
                                        "limits": {"cpu": "500m"},
                                    },
                                }
                            ]
                        },
                    },
                },
            }
        )
        manifests.append(
            {
                "apiVersion": "autoscaling/v2",
                "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {
                    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                    "minReplicas": 1,
                    "maxReplicas": 100,
                    "metrics": [
                        {
                            "type": "Resource",
                            "resource": {
                                "name": "cpu",
                                "target": {
                                    "type": "Utilization",
                                    "averageUtilization": int(TARGET_UTILIZATION * 100),
                                },
                            },
                        }
                    ],
                },
            }
        )
        # The sine's phase puts the trough at t = 0 (midnight) and the peak at noon.
        loads.append(
            {
                "target": {"kind": "Deployment", "name": name},
                "load": {
                    "type": "sine",
                    "base": (PEAK_RATE + TROUGH_RATE) / 2,
                    "amplitude": (PEAK_RATE - TROUGH_RATE) / 2,
                    "period": "24h",
                    "phase": "18h",
                },
                "containers": [
                    {
                        "name": "app",
                        "baseline": {"cpu": f"{BASELINE_MILLICPU}m"},
                        "perRequest": {"cpu": f"{PER_REQUEST_MILLICPU}m"},
                    }
                ],
                "noise": {"stddev": 0.05},
            }
        )
    peak_pods = workloads * (needed_at(DAY / 2) + 5)
    document = {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "replay-bench"},
        "spec": {
            "seed": 1,
            "duration": f"{int(duration.total_seconds())}s",
            "nodes": {
                "count": max(2, math.ceil(peak_pods / 100) + 1),
                "capacity": {"cpu": "32", "memory": "128Gi", "pods": 110},
            },
            "manifests": manifests,
            "workloads": loads,
        },
    }
    return parse_scenario(document, base_dir=Path.cwd())


@dataclass(frozen=True)
class Check:
    """One check of one workload at one offset: replicas against the needed band."""

    workload: str
    at_hours: float
    needed: int
    replicas: int
    ok: bool


@dataclass
class Run:
    name: str
    workloads: int
    simulated_hours: float
    wall_seconds: float
    cpu_seconds: float
    snapshots: int
    scale_events: int
    checks: list[Check] = field(default_factory=list)
    # (simulated hours, wall seconds, CPU seconds) at each snapshot, from the run's start.
    marks: list[tuple[float, float, float]] = field(default_factory=list)

    def extrapolated(self, hours: float) -> tuple[float, float]:
        """Wall and CPU seconds for ``hours`` simulated: the setup (everything up to the
        snapshot at ``SETUP``, when every pod of the first load runs) once, then the rest at
        the rate measured after it. Only a figure run for longer than ``SETUP`` can tell."""
        setup = next((m for m in self.marks if m[0] >= SETUP_HOURS), None)
        if setup is None or self.simulated_hours <= setup[0]:
            scale = hours / self.simulated_hours
            return self.wall_seconds * scale, self.cpu_seconds * scale
        span = self.simulated_hours - setup[0]
        rest = (hours - setup[0]) / span
        return (
            setup[1] + (self.wall_seconds - setup[1]) * rest,
            setup[2] + (self.cpu_seconds - setup[2]) * rest,
        )

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)


def within_band(replicas: int, needed: int) -> bool:
    """The HPA followed the load: within 20% (and at least 2 pods) of what it needs.

    The 10% tolerance of the HPA, the 5% noise and the sync and metric delays keep replicas
    near, not at, the needed count; the band is wide enough for those and narrow enough to
    fail a stuck or runaway HPA."""
    return abs(replicas - needed) <= max(2, math.ceil(0.2 * needed))


def check_points(duration: timedelta) -> list[timedelta]:
    """Noon of each simulated day within ``duration``, and the end."""
    points = [DAY / 2 + i * DAY for i in range(int(duration / DAY) + 1)]
    return [p for p in points if p <= duration] + [duration]


def replay(name: str, workloads: int, duration: timedelta, tick: timedelta) -> Run:
    scen = scenario(workloads, duration)
    wanted = set(check_points(duration))
    seen: dict[timedelta, ScenarioSnapshot] = {}
    events = 0
    marks: list[tuple[float, float, float]] = []

    def on_tick(snapshot: ScenarioSnapshot) -> None:
        nonlocal events
        hours = snapshot.offset / timedelta(hours=1)
        marks.append((hours, time.perf_counter() - wall0, time.process_time() - cpu0))
        events += sum(1 for e in snapshot.events if e.reason == "SuccessfulRescale")
        if snapshot.offset in wanted:
            seen[snapshot.offset] = snapshot

    gc.collect()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = run_scenario(scen, on_tick=on_tick, tick=tick)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    run = Run(
        name, workloads, duration / timedelta(hours=1), wall, cpu, len(result.snapshots), events
    )
    run.marks = marks
    for at in sorted(wanted):
        snap = seen.get(at)
        need = needed_at(at)
        for i in range(workloads):
            replicas = snap.workload(f"web-{i}").replicas if snap is not None else -1
            ok = snap is not None and within_band(replicas, need)
            run.checks.append(Check(f"web-{i}", at / timedelta(hours=1), need, replicas, ok))
    return run


def trace_day() -> Run:
    """The ``trace`` figure: one ``podscale replay`` run of the NASA weekday (see above)."""
    import yaml

    from podscale.replay.from_trace import TraceWorkload, trace_scenario
    from podscale.replay.replay import replay as run_replay
    from podscale.replay.target import Autoscaler
    from podscale.replay.window import choose_window

    workload = TraceWorkload(NASA, "2", "500m", "90s")
    scen = trace_scenario(workload)
    window = choose_window(
        scen.duration, timedelta(minutes=5760), timedelta(minutes=1440), timedelta(minutes=30)
    )
    objects = tuple(d for d in yaml.safe_load_all(DEFAULT_HPA.read_text("utf-8")) if d)
    gc.collect()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = run_replay(scen, [Autoscaler("default", objects)], window, workers=1)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    hpa = next(r.totals for r in result.runs if not r.reference)
    peak, oracle = (r.totals for r in result.runs if r.reference)  # in this order
    needed_pod_minutes = oracle.cost_pod_hours * 60
    run = Run("trace", 1, 24.0, wall, cpu, 0, hpa.scale_ups + hpa.scale_downs)
    checks = [
        (
            "cost within [oracle, peak]",
            oracle.cost_pod_hours <= hpa.cost_pod_hours <= peak.cost_pod_hours,
        ),
        ("reaches the peak", hpa.max_replicas >= peak.max_replicas),
        ("under < 10% of needed", hpa.under_pod_minutes < 0.1 * needed_pod_minutes),
    ]
    for label, ok in checks:
        run.checks.append(Check(label, 24.0, peak.max_replicas, hpa.max_replicas, ok))
    return run


def report(run: Run, goal: float, hours: float | None = None) -> JSON:
    """The run's figures; ``hours``: extrapolate the run to that many simulated hours."""
    wall = run.wall_seconds
    extrapolated = None
    if hours is not None and hours != run.simulated_hours:
        wall, cpu = run.extrapolated(hours)
        extrapolated = {"hours": hours, "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu)}
    failed = [asdict(c) for c in run.checks if not c.ok]
    return {
        "name": run.name,
        "workloads": run.workloads,
        "simulated_hours": run.simulated_hours,
        "wall_seconds": round(run.wall_seconds, 2),
        "cpu_seconds": round(run.cpu_seconds, 2),
        "extrapolated": extrapolated,
        "goal_wall_seconds": goal,
        # Only a whole run is judged: an extrapolation assumes the rest of the day costs
        # what the measured part did, which the sine's pods (3 to 31) do not.
        "meets_goal": wall <= goal if extrapolated is None else None,
        "snapshots": run.snapshots,
        "scale_events": run.scale_events,
        "checks": len(run.checks),
        "checks_ok": run.ok,
        "failed_checks": failed[:10],
    }


def verdict(meets_goal: bool | None) -> str:
    """How the table reads ``meets_goal``: None is an extrapolated run, not judged."""
    if meets_goal is None:
        return "not judged (extrapolated; run the whole day)"
    return "met" if meets_goal else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", default="day,fleet,week,trace", help="comma-separated figures")
    parser.add_argument("--fleet", type=int, default=100, help="workloads of the fleet figure")
    parser.add_argument("--fleet-hours", type=float, default=24.0, help="fleet span, hours")
    parser.add_argument("--days", type=float, default=7.0, help="days of the week figure")
    parser.add_argument("--day-hours", type=float, default=24.0, help="span of the day figure")
    parser.add_argument("--tick", type=float, default=60.0, help="seconds between snapshots")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    tick = timedelta(seconds=args.tick)
    # A short unmeasured run first: the plane imports most of its modules lazily, and
    # compiling them (no bytecode cache where PYTHONDONTWRITEBYTECODE is set) is a
    # once-per-process cost, not the cost of simulating.
    replay("warm-up", 1, timedelta(minutes=2), tick)
    reports: list[JSON] = []
    for figure in [f.strip() for f in args.only.split(",") if f.strip()]:
        if figure == "day":
            run = replay("day", 1, timedelta(hours=args.day_hours), tick)
            reports.append(report(run, GOALS["day"]))
        elif figure == "fleet":
            hours = args.fleet_hours
            run = replay("fleet", args.fleet, timedelta(hours=hours), tick)
            reports.append(report(run, GOALS["fleet"], 24.0 if hours < 24.0 else None))
        elif figure == "week":
            run = replay("week", 1, args.days * DAY, tick)
            reports.append(report(run, GOALS["week"]))
        elif figure == "trace":
            reports.append(report(trace_day(), GOALS["day"]))
        else:
            parser.error(f"unknown figure {figure!r}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"machine": machine(), "max_rss_mib": round(rss, 1), "runs": reports}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"machine: {out['machine']}")
        for r in reports:
            extra = r["extrapolated"]
            wall = f"{r['wall_seconds']:.2f} s" + (
                f" (extrapolated to {extra['hours']:g} h: {extra['wall_seconds']:.0f} s wall, "
                f"{extra['cpu_seconds']:.0f} s CPU)"
                if extra is not None
                else ""
            )
            print(
                f"{r['name']:>5}: {r['workloads']} workload(s) x {r['simulated_hours']:g} h "
                f"simulated: {wall} wall, {r['cpu_seconds']:.2f} s CPU, goal <= "
                f"{r['goal_wall_seconds']:g} s: {verdict(r['meets_goal'])}; "
                f"{r['scale_events']} rescales; checks "
                f"{'ok' if r['checks_ok'] else 'FAILED ' + str(r['failed_checks'])}"
            )
    # A run whose HPA did not follow the load measured nothing worth reporting.
    return 0 if all(r["checks_ok"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
