"""Helpers of the pipeline tests: scenarios built inline, and a plane run for a while.

``scenario`` parses a scenario document with inline manifests (``podscale.scenario``), so each
test states its whole cluster in one place; ``deployment``/``hpa_v2`` build the objects.
``on_plane`` runs a coroutine against a started ``ScenarioRun`` on virtual time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Scenario
from podscale.scenario.run import ScenarioRun, plane_for

JSON = dict[str, Any]
T = TypeVar("T")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def deployment(name: str, *, cpu_request: str = "200m", cpu_limit: str | None = None) -> JSON:
    resources: JSON = {"requests": {"cpu": cpu_request}}
    if cpu_limit is not None:
        resources["limits"] = {"cpu": cpu_limit}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "web", "resources": resources}]},
            },
        },
    }


def hpa_v2(name: str, metrics: list[JSON], *, max_replicas: int = 10) -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": max_replicas,
            "metrics": metrics,
        },
    }


def scenario(
    name: str,
    manifests: list[JSON],
    workloads: list[JSON],
    *,
    duration: str = "10m",
    seed: int = 1,
    events: list[JSON] | None = None,
) -> Scenario:
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": name},
            "spec": {
                "seed": seed,
                "duration": duration,
                "nodes": {"count": 3, "capacity": {"cpu": "4", "memory": "8Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": "3s"},
                "manifests": manifests,
                "workloads": workloads,
                "events": events or [],
            },
        }
    )


def on_plane(
    scn: Scenario,
    body: Callable[[ScenarioRun], Awaitable[T]],
    *,
    clock: VirtualClock | None = None,
    **options: Any,
) -> T:
    """Start ``scn`` on a fresh plane (``options`` go to ``EmbeddedControlPlane``) and
    return what ``body`` returns."""
    clock = clock or VirtualClock(START)

    async def main() -> T:
        plane = plane_for(scn, clock, **options)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            run = ScenarioRun(plane, scn)
            await run.start()
            return await body(run)
        finally:
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=timedelta(hours=2))
    assert result is not None, "the test body did not finish before its virtual deadline"
    return result


async def sleep_until(run: ScenarioRun, offset: timedelta) -> None:
    """Let virtual time pass until ``offset`` after the scenario's start."""
    await asyncio.sleep(max((offset - run.offset()).total_seconds(), 0.0))
