"""The HPA controller at scale, on the embedded control plane.

``--hpas`` HPAs (1,000 by default; the goal is 10,000), each on a ReplicaSet of ``--pods``
(10) simulated pods with one CPU utilization metric, in ``EmbeddedControlPlane`` on one
``VirtualClock``. The goal: every HPA reconciled within every 15 s sync period, i.e. at
least ``hpas / 15`` reconciles per wall second (667/s for 10,000), with flat memory.

What runs, and what is measured. Setup builds the cluster quickly: the ReplicaSets are
created with their status written directly (``replicas`` = ``--pods``), and their pods are
created through the in-process API already bound to a simulated node and owned by their
ReplicaSet; the simulated kubelets then start them (Pending -> Running -> Ready). The
ReplicaSet, Deployment, StatefulSet and garbage-collector controllers are left out: the
cluster is at rest and only the HPA controller acts. During the measured phase everything
else is the real thing: the HPA controller (5 workers, upstream's default), the shared
informers, the in-process API (scale subresource reads, status and annotation writes),
the simulated nodes, kubelets and usage, and the metrics server scraping them every 15 s,
read through ``InProcessMetricsClient``. Every pod idles at 1m CPU against a 2m request
(50%), and every HPA targets 50%: each sync computes the metric and keeps 10 replicas.
The HPAs are created evenly over one sync period, so their syncs are spread as in a
cluster whose HPAs were created at different times.

After ``--warmup`` periods, ``--periods`` sync periods (10) are measured:
- reconciles per wall second over the measured span;
- lag, two ways: *virtual* (virtual reconcile start minus due time; the virtual-time loop
  only moves on when nothing is ready, so this stays 0 unless a timer is late) and
  *real-time equivalent*: an emulated wall clock that advances by the wall time the
  process spends and never runs behind virtual time (time spent idle) gives each
  reconcile the start it would have on a real clock with this machine's speed: p50/p99
  of that start minus the due time (it grows when the process cannot keep up);
- wall seconds per simulated sync period (<= 15 s keeps up on a real clock);
- process CPU per reconcile (everything in the process: scrapes, kubelets, informers,
  the API) and the HPA controller's own time per reconcile;
- resident memory (``/proc/self/statm``) sampled at every period boundary.

The script exits 1 when an HPA was not reconciled or did not end at its target.

Usage: python3 bench/hpa_controller.py [--hpas 1000] [--pods 10] [--periods 10] [--json]
       [--profile FILE]  (cProfile of the measured phase, written as pstats to FILE)
       [--gc-freeze] [--gc-threshold N]  (collector tuning for the measured phase)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from engine import machine  # bench/ is on sys.path when run as a script
from podscale.api.kinds import kind_for
from podscale.controllers.hpa import HorizontalPodAutoscalerController
from podscale.controllers.manager import Controller
from podscale.controllers.registry import ControllerContext, build_controllers
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run_virtual
from podscale.runtime.simulated import NodeSpec
from podscale.runtime.simulated.kubelet_state import StartupProfile

JSON = dict[str, Any]
START = datetime(2026, 3, 1, tzinfo=UTC)
NAMESPACE = "default"
REPLICASET = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
SYNC_SECONDS = 15.0
PODS_PER_NODE = 1000
# Pods start and become ready at once: setup is not what is measured.
INSTANT = StartupProfile(startup=timedelta(0), readiness_delay=timedelta(0))
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass
class Probe:
    """What the instrumented HPA controller records about each reconcile."""

    clock: VirtualClock
    due_of: Callable[[str], datetime | None]
    measuring: bool = False
    reconciles: int = 0
    total_reconciles: int = 0
    controller_seconds: float = 0.0
    virtual_lags: list[float] = field(default_factory=list)
    real_lags: list[float] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    # The emulated real-time clock: seconds since START, and the wall time it was set at.
    _emulated: float = 0.0
    _wall: float = field(default_factory=time.perf_counter)

    def start_measuring(self) -> None:
        """Measure from now on; the emulated clock restarts at the virtual now (setup's
        wall time must not count as lag)."""
        self.measuring = True
        self._emulated = (self.clock.now() - START).total_seconds()
        self._wall = time.perf_counter()

    def started(self, key: str) -> None:
        wall = time.perf_counter()
        virtual = (self.clock.now() - START).total_seconds()
        self._emulated = max(virtual, self._emulated + (wall - self._wall))
        self._wall = wall
        due = self.due_of(key)
        self.total_reconciles += 1
        if not self.measuring or due is None:
            return
        due_s = (due - START).total_seconds()
        self.reconciles += 1
        self.keys.add(key)
        self.virtual_lags.append(max(0.0, virtual - due_s))
        self.real_lags.append(max(0.0, self._emulated - due_s))


def instrumented(probe_box: list[Probe]) -> Callable[[ControllerContext], list[Controller]]:
    """Only the HPA controller, its ``reconcile`` timed and its due times observed."""

    def factory(context: ControllerContext) -> list[Controller]:
        controllers = build_controllers(context, {"horizontalpodautoscaling"})
        for controller in controllers:
            if isinstance(controller, HorizontalPodAutoscalerController):
                wrap(controller, probe_box, context.clock)
        return controllers

    return factory


def wrap(controller: HorizontalPodAutoscalerController, box: list[Probe], clock: Any) -> None:
    due: dict[str, datetime] = controller._due  # the bench observes due times
    probe = Probe(clock, due.get)
    box.append(probe)
    reconcile = controller.reconcile

    async def timed(key: str) -> None:
        probe.started(key)
        began = time.perf_counter()
        try:
            await reconcile(key)
        finally:
            if probe.measuring:
                probe.controller_seconds += time.perf_counter() - began

    controller.reconcile = timed  # type: ignore[method-assign]


def replicaset(name: str, pods: int) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "replicas": pods,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container()]},
            },
        },
    }


def container() -> JSON:
    return {
        "name": "app",
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": "2m", "memory": "16Mi"}},
    }


def pod(name: str, index: int, owner: JSON, node: str) -> JSON:
    meta = owner["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{name}-{index:02d}",
            "namespace": NAMESPACE,
            "labels": {"app": name},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"nodeName": node, "containers": [container()]},
    }


def hpa(name: str, pods: int) -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name},
            "minReplicas": 1,
            "maxReplicas": pods * 3,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
        },
    }


def nodes_for(pods: int) -> list[NodeSpec]:
    count = max(1, -(-pods // PODS_PER_NODE))
    return [
        NodeSpec(f"node-{i + 1}", cpu="1000", memory="4Ti", pods=PODS_PER_NODE)
        for i in range(count)
    ]


class GcTimer:
    """Wall time spent in the cyclic garbage collector (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._began
            self.collections += 1


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass(frozen=True)
class Result:
    hpas: int
    pods_per_hpa: int
    periods: int
    setup_wall_seconds: float
    measured_wall_seconds: float
    measured_cpu_seconds: float
    reconciles: int
    hpas_reconciled: int
    reconciles_per_wall_second: float
    goal_reconciles_per_second: float
    virtual_lag_p50: float
    virtual_lag_p99: float
    real_lag_p50: float
    real_lag_p99: float
    wall_per_period: list[float]
    cpu_ms_per_reconcile: float
    controller_ms_per_reconcile: float
    rss_mib: list[float]
    gc_seconds: float
    gc_collections: int
    gc_freeze: bool
    gc_threshold: int | None
    hpas_at_target: int

    @property
    def ratio(self) -> float:
        return self.reconciles_per_wall_second / self.goal_reconciles_per_second


async def wait_ready(plane: EmbeddedControlPlane, count: int) -> None:
    """Let virtual time pass until ``count`` pods are Ready (the kubelets' delays)."""
    for _ in range(120):
        await asyncio.sleep(5)
        items = (await plane.api.list(POD, NAMESPACE))["items"]
        ready = sum(1 for item in items if _is_ready(item))
        if ready >= count:
            return
    raise RuntimeError(f"only {ready} of {count} pods became ready")


def _is_ready(pod: JSON) -> bool:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return bool(condition.get("status") == "True")
    return False


async def build_cluster(plane: EmbeddedControlPlane, hpas: int, pods: int) -> list[str]:
    names = [f"web-{i:05d}" for i in range(hpas)]
    node_names = [spec.name for spec in nodes_for(hpas * pods)]
    slot = 0
    for name in names:
        created = await plane.api.create(REPLICASET, NAMESPACE, replicaset(name, pods))
        status = {**created, "status": {"replicas": pods, "observedGeneration": 1}}
        owner = await plane.api.update(REPLICASET, NAMESPACE, status, "status")
        for index in range(pods):
            node = node_names[slot // PODS_PER_NODE]
            slot += 1
            await plane.api.create(POD, NAMESPACE, pod(name, index, owner, node))
    await wait_ready(plane, hpas * pods)
    return names


async def count_at_target(plane: EmbeddedControlPlane, pods: int) -> int:
    items = (await plane.api.list(HPA, NAMESPACE))["items"]
    return sum(
        1
        for item in items
        if (item.get("status") or {}).get("desiredReplicas") == pods
        and (item.get("status") or {}).get("currentMetrics")
    )


def run_once(
    hpas: int,
    pods: int,
    periods: int,
    warmup: int,
    seed: int,
    profile: str | None = None,
    *,
    gc_freeze: bool = False,
    gc_threshold: int | None = None,
) -> Result:
    clock = VirtualClock(START)
    box: list[Probe] = []
    samples: list[tuple[float, float, int, int]] = []  # wall, cpu, rss, reconciles
    marks: dict[str, float] = {}
    at_target: list[int] = []
    profiler = cProfile.Profile() if profile else None
    collector = GcTimer()

    async def main() -> None:
        plane = EmbeddedControlPlane(
            clock,
            nodes=nodes_for(hpas * pods),
            seed=seed,
            controllers=instrumented(box),
            profile=INSTANT,
        )
        probe = box[0]
        runner = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await build_cluster(plane, hpas, pods)
            batches = min(hpas, 100)
            for batch in range(batches):
                for i in range(batch * hpas // batches, (batch + 1) * hpas // batches):
                    await plane.api.create(HPA, NAMESPACE, hpa(f"web-{i:05d}", pods))
                await asyncio.sleep(SYNC_SECONDS / batches)
            marks["setup"] = time.perf_counter()
            if gc_freeze:
                gc.collect()
                gc.freeze()  # the cluster built so far is long-lived: stop rescanning it
            if gc_threshold is not None:
                gc.set_threshold(gc_threshold, *thresholds[1:])
            await asyncio.sleep(SYNC_SECONDS * warmup)
            probe.start_measuring()
            gc.callbacks.append(collector)
            if profiler is not None:
                profiler.enable()
            for _ in range(periods + 1):
                samples.append(
                    (time.perf_counter(), time.process_time(), rss_bytes(), probe.reconciles)
                )
                if len(samples) <= periods:
                    await asyncio.sleep(SYNC_SECONDS)
            if profiler is not None:
                profiler.disable()
            probe.measuring = False
            gc.callbacks.remove(collector)
            at_target.append(await count_at_target(plane, pods))
        finally:
            plane.stop()
            await runner

    began = time.perf_counter()
    horizon = timedelta(hours=2) + timedelta(seconds=SYNC_SECONDS * (periods + warmup + 2))
    thresholds = gc.get_threshold()
    try:
        run_virtual(main(), start=START, until=horizon)
    finally:
        gc.set_threshold(*thresholds)
        if gc_freeze:
            gc.unfreeze()
    if profiler is not None and profile:
        profiler.dump_stats(profile)
    probe = box[0]
    wall = samples[-1][0] - samples[0][0]
    cpu = samples[-1][1] - samples[0][1]
    count = max(1, probe.reconciles)
    return Result(
        hpas=hpas,
        pods_per_hpa=pods,
        periods=periods,
        setup_wall_seconds=marks["setup"] - began,
        measured_wall_seconds=wall,
        measured_cpu_seconds=cpu,
        reconciles=probe.reconciles,
        hpas_reconciled=len(probe.keys),
        reconciles_per_wall_second=probe.reconciles / wall,
        goal_reconciles_per_second=hpas / SYNC_SECONDS,
        virtual_lag_p50=percentile(probe.virtual_lags, 0.5),
        virtual_lag_p99=percentile(probe.virtual_lags, 0.99),
        real_lag_p50=percentile(probe.real_lags, 0.5),
        real_lag_p99=percentile(probe.real_lags, 0.99),
        wall_per_period=[b[0] - a[0] for a, b in itertools.pairwise(samples)],
        cpu_ms_per_reconcile=1000 * cpu / count,
        controller_ms_per_reconcile=1000 * probe.controller_seconds / count,
        rss_mib=[s[2] / 2**20 for s in samples],
        gc_seconds=collector.seconds,
        gc_collections=collector.collections,
        gc_freeze=gc_freeze,
        gc_threshold=gc_threshold,
        hpas_at_target=at_target[0] if at_target else 0,
    )


def failures(result: Result) -> list[str]:
    """What the run claims and did not do: every HPA reconciled, each at its target."""
    problems = []
    if result.hpas_reconciled != result.hpas:
        problems.append(f"only {result.hpas_reconciled} of {result.hpas} HPAs reconciled")
    if result.hpas_at_target != result.hpas:
        problems.append(f"only {result.hpas_at_target} of {result.hpas} HPAs at their target")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--hpas", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10, help="pods per ReplicaSet")
    parser.add_argument("--periods", type=int, default=10, help="measured sync periods")
    parser.add_argument("--warmup", type=int, default=2, help="sync periods before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of the measured phase here")
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="gc.freeze() after setup, so the collector stops rescanning the built cluster",
    )
    parser.add_argument(
        "--gc-threshold",
        type=int,
        help="the collector's generation-0 threshold during the measured phase (700 default)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args()
    result = run_once(
        args.hpas,
        args.pods,
        args.periods,
        args.warmup,
        args.seed,
        args.profile,
        gc_freeze=args.gc_freeze,
        gc_threshold=args.gc_threshold,
    )
    problems = failures(result)
    report = {
        "machine": machine(),
        **asdict(result),
        "ratio_to_goal": result.ratio,
        "failures": problems,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 1 if problems else 0
    r = result
    print(f"machine: {report['machine']}")
    print(
        f"{r.hpas:,} HPAs x {r.pods_per_hpa} pods, {r.periods} sync periods measured "
        f"(setup {r.setup_wall_seconds:.1f} s wall)"
    )
    print(
        f"reconciles: {r.reconciles:,} of {r.hpas_reconciled:,} HPAs in "
        f"{r.measured_wall_seconds:.2f} s wall (cpu {r.measured_cpu_seconds:.2f} s): "
        f"{r.reconciles_per_wall_second:,.0f}/s, goal >= {r.goal_reconciles_per_second:,.0f}/s "
        f"-> {r.ratio:.2f}x"
    )
    print(
        f"lag (virtual) p50 {r.virtual_lag_p50:.3f} s p99 {r.virtual_lag_p99:.3f} s; "
        f"(real-time equivalent) p50 {r.real_lag_p50:.3f} s p99 {r.real_lag_p99:.3f} s"
    )
    per_period = ", ".join(f"{w:.2f}" for w in r.wall_per_period)
    print(
        f"wall s per 15 s sync period: median {statistics.median(r.wall_per_period):.2f} "
        f"[{per_period}]"
    )
    print(
        f"cpu per reconcile: {r.cpu_ms_per_reconcile:.2f} ms (whole process), "
        f"{r.controller_ms_per_reconcile:.2f} ms in the HPA controller"
    )
    print("rss MiB per period: " + ", ".join(f"{m:.0f}" for m in r.rss_mib))
    print(
        f"garbage collector: {r.gc_seconds:.2f} s wall in {r.gc_collections:,} collections"
        + (" (gc.freeze() after setup)" if r.gc_freeze else "")
        + (f" (generation-0 threshold {r.gc_threshold:,})" if r.gc_threshold else "")
    )
    print(f"HPAs with metrics at {r.pods_per_hpa} desired replicas: {r.hpas_at_target:,}")
    for problem in problems:
        print("WRONG:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
