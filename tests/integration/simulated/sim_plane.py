"""A simulated cluster for tests: ``EmbeddedControlPlane`` on a ``VirtualClock``, run inside
``podscale.runtime.run_virtual`` with a virtual deadline; helpers read pods, events, nodes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from podscale.api.kinds import kind_for
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run_virtual
from podscale.runtime.simulated import NodeSpec
from podscale.runtime.simulated.kubelet_state import StartupProfile

JSON = dict[str, Any]
T = TypeVar("T")
START = datetime(2026, 3, 1, tzinfo=UTC)
UNTIL = timedelta(hours=3)
RS = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
NODE = kind_for("v1", "Node")
EVENT = kind_for("v1", "Event")
PROFILE = StartupProfile(
    startup=timedelta(seconds=10),
    readiness_delay=timedelta(seconds=5),
    termination=timedelta(seconds=1),
)


def replica_set(
    name: str,
    replicas: int,
    *,
    cpu: str = "100m",
    memory: str = "64Mi",
    annotations: dict[str, str] | None = None,
    containers: Sequence[str] = ("app",),
) -> JSON:
    labels = {"app": name}
    template_meta: JSON = {"labels": dict(labels)}
    if annotations:
        template_meta["annotations"] = dict(annotations)
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": template_meta,
                "spec": {
                    "containers": [
                        {
                            "name": container,
                            "image": "nginx",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}},
                        }
                        for container in containers
                    ]
                },
            },
        },
    }


class Sim:
    """One embedded control plane on virtual time, started and stopped around a scenario."""

    def __init__(self, plane: EmbeddedControlPlane, clock: VirtualClock) -> None:
        self.plane = plane
        self.clock = clock
        self.api = plane.api
        cluster = plane.cluster
        assert cluster is not None
        self.cluster = cluster

    def elapsed(self) -> float:
        return self.clock.elapsed()

    async def until(self, seconds: float) -> None:
        """Let virtual time run to ``seconds`` after the start."""
        await asyncio.sleep(max(0.0, seconds - self.elapsed()))

    async def pods(self) -> list[JSON]:
        return list((await self.api.list(POD, "default"))["items"])

    async def pod(self, name: str) -> JSON:
        return await self.api.get(POD, "default", name)

    async def nodes(self) -> list[JSON]:
        return list((await self.api.list(NODE))["items"])

    async def events(self) -> list[JSON]:
        """Events in creation order (the store's resourceVersion order)."""
        items = list((await self.api.list(EVENT, "default"))["items"])
        return sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))

    async def rs_status(self, name: str) -> JSON:
        return dict((await self.api.get(RS, "default", name)).get("status") or {})


def run_sim(
    scenario: Callable[[Sim], Awaitable[T]],
    *,
    nodes: Sequence[NodeSpec] | None = None,
    seed: int = 7,
    profile: StartupProfile = PROFILE,
    eviction_timeout: timedelta | None = timedelta(seconds=300),
    until: timedelta = UNTIL,
) -> T:
    """Run ``scenario`` against a started plane; fails if the virtual deadline comes first."""
    clock = VirtualClock(START)

    async def main() -> tuple[T]:
        plane = EmbeddedControlPlane(
            clock, nodes=nodes, seed=seed, profile=profile, eviction_timeout=eviction_timeout
        )
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            return (await scenario(Sim(plane, clock)),)
        finally:
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=until)
    assert result is not None, "scenario did not finish before its virtual deadline"
    return result[0]


def condition(pod: JSON, kind: str) -> JSON | None:
    for entry in (pod.get("status") or {}).get("conditions") or []:
        if entry.get("type") == kind:
            return dict(entry)
    return None


def condition_status(pod: JSON, kind: str) -> str | None:
    found = condition(pod, kind)
    return None if found is None else str(found.get("status"))


def is_ready(pod: JSON) -> bool:
    return condition_status(pod, "Ready") == "True"


def stamp(seconds: float) -> str:
    """The RFC 3339 time ``seconds`` after ``START`` (second precision)."""
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
