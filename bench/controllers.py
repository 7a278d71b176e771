"""Workload controllers on the simulated cluster, on virtual time.

The whole embedded control plane (``podscale.plane.embedded.EmbeddedControlPlane``:
MemoryStore, in-process API, ReplicaSet/Deployment/StatefulSet/garbage-collector and HPA
controllers, simulated nodes, scheduler and kubelets, simulated usage scraped by the metrics
server every 15 s) runs on one ``VirtualClock``; ``--no-metrics`` leaves out the metrics
pipeline to time the workload controllers alone. The
cluster: ``--deployments`` Deployments of ``--pods`` pods each (100 x 10 by default) on
enough simulated nodes. One simulated hour (``--hours``) of it: every Deployment is created
at 0, scaled up by half at 15 min, down to half at 30 min and back at 45 min, each time
through the ``scale`` subresource as an HPA would. Measured: wall time for the simulated span,
simulated seconds per wall second, pods created per wall second (pod ADDED watch events),
and whether every Deployment ended available at its size (exit status 1 when one did
not). Goal: one simulated hour of the
default cluster in <= 20 s of wall time.

Usage: python3 bench/controllers.py [--deployments 100] [--pods 10] [--hours 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine import machine  # bench/ is on sys.path when run as a script
from podscale.api.kinds import kind_for
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run_virtual
from podscale.runtime.simulated import NodeSpec

JSON = dict[str, Any]
START = datetime(2026, 3, 1, tzinfo=UTC)
DEPLOYMENT = kind_for("apps/v1", "Deployment")
POD = kind_for("v1", "Pod")
GOAL_WALL_SECONDS = 20.0
PODS_PER_NODE = 100


@dataclass(frozen=True)
class Result:
    deployments: int
    pods_per_deployment: int
    simulated_seconds: float
    wall_seconds: float
    cpu_seconds: float
    pods_created: int
    converged: bool

    @property
    def simulated_per_wall(self) -> float:
        return self.simulated_seconds / self.wall_seconds

    @property
    def pods_per_wall_second(self) -> float:
        return self.pods_created / self.wall_seconds


def deployment(name: str, replicas: int) -> JSON:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx:1.27",
                            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                        }
                    ]
                },
            },
        },
    }


def nodes_for(pods: int) -> list[NodeSpec]:
    count = max(3, -(-pods // PODS_PER_NODE))
    return [
        NodeSpec(f"node-{i + 1}", cpu="64", memory="256Gi", pods=PODS_PER_NODE + 10)
        for i in range(count)
    ]


async def count_pod_creations(plane: EmbeddedControlPlane, counter: list[int]) -> None:
    async for event_type, _ in plane.api.watch(POD, "default", resource_version="0"):
        if event_type == "ADDED":
            counter[0] += 1


async def converged(plane: EmbeddedControlPlane, sizes: dict[str, int]) -> bool:
    items = (await plane.api.list(DEPLOYMENT, "default"))["items"]
    for item in items:
        status = item.get("status") or {}
        want = sizes[item["metadata"]["name"]]
        if status.get("availableReplicas", 0) != want or status.get("replicas", 0) != want:
            return False
    return len(items) == len(sizes)


def run_once(
    deployments: int, pods: int, hours: float, seed: int, *, metrics: bool = True
) -> Result:
    clock = VirtualClock(START)
    span = timedelta(hours=hours)
    steps = [(0.25, pods + pods // 2), (0.5, max(1, pods // 2)), (0.75, pods)]
    names = [f"web-{i:04d}" for i in range(deployments)]
    created = [0]
    outcome: list[bool] = []

    async def main() -> None:
        plane = EmbeddedControlPlane(
            clock, nodes=nodes_for(deployments * (pods + pods // 2)), seed=seed, metrics=metrics
        )
        runner = asyncio.create_task(plane.run())
        watcher = asyncio.create_task(count_pod_creations(plane, created))
        try:
            await plane.wait_started()
            for name in names:
                await plane.api.create(DEPLOYMENT, "default", deployment(name, pods))
            for fraction, replicas in steps:
                await asyncio.sleep(max(0.0, fraction * span.total_seconds() - clock.elapsed()))
                for name in names:
                    body = {"spec": {"replicas": replicas}}
                    await plane.api.patch(DEPLOYMENT, "default", name, body, subresource="scale")
            await asyncio.sleep(max(0.0, span.total_seconds() - clock.elapsed()))
            outcome.append(await converged(plane, dict.fromkeys(names, pods)))
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            plane.stop()
            await runner

    wall, cpu = time.perf_counter(), time.process_time()
    run_virtual(main(), start=START, until=span + timedelta(minutes=1))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return Result(
        deployments=deployments,
        pods_per_deployment=pods,
        simulated_seconds=span.total_seconds(),
        wall_seconds=wall,
        cpu_seconds=cpu,
        pods_created=created[0],
        converged=bool(outcome and outcome[0]),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--deployments", type=int, default=100)
    parser.add_argument("--pods", type=int, default=10, help="pods per Deployment")
    parser.add_argument("--hours", type=float, default=1.0, help="simulated span")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-metrics",
        action="store_true",
        help="leave out the metrics pipeline and HPA controller (workload controllers only)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args()
    result = run_once(
        args.deployments, args.pods, args.hours, args.seed, metrics=not args.no_metrics
    )
    report = {
        "machine": machine(),
        **asdict(result),
        "simulated_per_wall": result.simulated_per_wall,
        "pods_per_wall_second": result.pods_per_wall_second,
        "goal_wall_seconds": GOAL_WALL_SECONDS * args.hours,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if result.converged else 1
    print(f"machine: {report['machine']}")
    print(
        f"{result.deployments} Deployments x {result.pods_per_deployment} pods, "
        f"{result.simulated_seconds / 3600:g} simulated h: wall {result.wall_seconds:.2f} s "
        f"(cpu {result.cpu_seconds:.2f} s), goal <= {report['goal_wall_seconds']:g} s "
        f"-> {report['goal_wall_seconds'] / result.wall_seconds:.2f}x"
    )
    print(f"simulated seconds per wall second: {result.simulated_per_wall:,.0f}")
    print(
        f"pods created: {result.pods_created:,} ({result.pods_per_wall_second:,.0f} per wall s); "
        f"converged at the end: {result.converged}"
    )
    # A run that did not converge measured a cluster that does not work.
    return 0 if result.converged else 1


if __name__ == "__main__":
    sys.exit(main())
