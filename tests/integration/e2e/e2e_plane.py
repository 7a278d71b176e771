"""Helpers of the upstream HPA e2e behaviours on the whole stack, in virtual time.

Upstream's e2e tests (test/e2e/autoscaling/horizontal_pod_autoscaling*.go) drive a
"resource consumer" workload: it burns a total amount of CPU spread over its pods, the test
changes that amount and waits for the replica count. ``Consumer`` plays the same part on an
``EmbeddedControlPlane`` (API server in-process, workload and HPA controllers, simulated
kubelets, metrics server, ``SimulatedUsage``): ``consume_cpu(m)`` sets a load of ``m``
requests per second on the workload, each request costing the busy container 1m of CPU, so
the pods together use ``m`` millicores, split evenly over the ready ones.

``workload``/``hpa`` build the manifests, ``e2e_scenario`` the scenario that creates them
(``podscale.scenario`` format), ``run_e2e`` starts it on a fresh plane (HPA sync period 15 s,
metric resolution 15 s: the defaults) and runs a test body against the ``Consumer``.
While a test waits (``wait_for_replicas``, ``ensure_replicas_in_range``, which between them
cover a whole test body) the consumer looks every ``POLL`` (1 s of virtual time) and records
the workload's ``spec.replicas`` and ready replicas and the HPA's ``status.desiredReplicas``;
tests assert on that record with bounds that express the rule under test, never on
incidental instants.

``REACTION`` bounds how long the stack takes to act on a load change: the metrics server's
rate spans two scrapes (30 s), then up to one HPA sync period (15 s), then the new pods
start and become ready (5 s); about 45 s is what the runs show, 90 s leaves a margin of two.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import ConstantRate, LoadProfile
from podscale.runtime.simulated.usage import WORKLOAD_KINDS
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Scenario
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import EVENT, HPA

JSON = dict[str, Any]
T = TypeVar("T")

START: Final = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
NAME: Final = "consumer"
POLL: Final = timedelta(seconds=1)
SYNC_PERIOD: Final = timedelta(seconds=15)
REACTION: Final = timedelta(seconds=90)
APP: Final = "app"
SIDECAR: Final = "sidecar"


# -- manifests --------------------------------------------------------------------------


def workload(kind: str, replicas: int, requests: dict[str, str]) -> JSON:
    """A Deployment or ReplicaSet named ``consumer`` with one container per entry of
    ``requests`` (container name -> CPU request)."""
    containers = [
        {"name": name, "image": "resource-consumer", "resources": {"requests": {"cpu": cpu}}}
        for name, cpu in requests.items()
    ]
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": NAME, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": NAME}},
            "template": {
                "metadata": {"labels": {"app": NAME}},
                "spec": {"containers": containers},
            },
        },
    }


def cpu_utilization(percent: int) -> JSON:
    return {
        "type": "Resource",
        "resource": {
            "name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": percent},
        },
    }


def cpu_average_value(millicores: int) -> JSON:
    return {
        "type": "Resource",
        "resource": {
            "name": "cpu",
            "target": {"type": "AverageValue", "averageValue": f"{millicores}m"},
        },
    }


def container_cpu_utilization(container: str, percent: int) -> JSON:
    return {
        "type": "ContainerResource",
        "containerResource": {
            "name": "cpu",
            "container": container,
            "target": {"type": "Utilization", "averageUtilization": percent},
        },
    }


def container_cpu_average_value(container: str, millicores: int) -> JSON:
    return {
        "type": "ContainerResource",
        "containerResource": {
            "name": "cpu",
            "container": container,
            "target": {"type": "AverageValue", "averageValue": f"{millicores}m"},
        },
    }


def hpa(
    kind: str,
    metric: JSON,
    *,
    min_replicas: int = 1,
    max_replicas: int = 10,
    behavior: JSON | None = None,
) -> JSON:
    """An autoscaling/v2 HPA named ``consumer`` on the ``consumer`` workload of ``kind``."""
    spec: JSON = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": NAME},
        "minReplicas": min_replicas,
        "maxReplicas": max_replicas,
        "metrics": [metric],
    }
    if behavior is not None:
        spec["behavior"] = behavior
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": NAME, "namespace": "default"},
        "spec": spec,
    }


def e2e_scenario(
    target: JSON, autoscaler: JSON, *, initial_millicores: int, busy: str = APP
) -> Scenario:
    """The workload and its HPA, created at ``t = 0`` with ``initial_millicores`` of CPU
    consumed by the ``busy`` container of the pods (the others idle at 1m)."""
    containers = target["spec"]["template"]["spec"]["containers"]
    costs = [
        {
            "name": c["name"],
            "baseline": {"cpu": "1m"},
            **({"perRequest": {"cpu": "1m"}} if c["name"] == busy else {}),
        }
        for c in containers
    ]
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": "e2e"},
            "spec": {
                "seed": 7,
                "duration": "1h",
                "nodes": {"count": 3, "capacity": {"cpu": "8", "memory": "16Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": "3s"},
                "manifests": [target, autoscaler],
                "workloads": [
                    {
                        "target": {"kind": target["kind"], "name": NAME},
                        "load": {"type": "constant", "rate": initial_millicores},
                        "containers": costs,
                    }
                ],
            },
        }
    )


# -- the consumer -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Observation:
    """One look at the workload and its HPA, ``offset`` after the scenario's start."""

    offset: timedelta
    replicas: int
    ready: int
    desired: int | None  # None while the HPA is not ScalingActive


class Consumer:
    """The resource consumer of upstream's e2e tests on a started ``ScenarioRun``."""

    def __init__(self, run: ScenarioRun) -> None:
        self.run = run
        [self._workload] = run.scenario.workloads
        self.kind = self._workload.target.kind
        self.observations: list[Observation] = []
        self.load_changes: list[timedelta] = []

    @property
    def profile(self) -> LoadProfile:
        return self._workload.profile

    def consume_cpu(self, millicores: int) -> timedelta:
        """From now on the pods together use ``millicores`` of CPU; returns the offset."""
        self.run.plane.usage.set_load(
            self.kind, "default", NAME, ConstantRate(float(millicores)), self.profile
        )
        self.load_changes.append(self.run.offset())
        return self.run.offset()

    async def observe(self) -> Observation:
        api = self.run.plane.api
        obj = await api.get(WORKLOAD_KINDS[self.kind], "default", NAME)
        autoscaler = await api.get(HPA, "default", NAME)
        status = autoscaler.get("status") or {}
        # desiredReplicas means something only once a count was computed (it stays 0
        # while the metrics fail, as upstream's does).
        active = any(
            c.get("type") == "ScalingActive" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        desired = status.get("desiredReplicas") if active else None
        seen = Observation(
            offset=self.run.offset(),
            replicas=int((obj.get("spec") or {}).get("replicas") or 0),
            ready=int((obj.get("status") or {}).get("readyReplicas") or 0),
            desired=None if desired is None else int(desired),
        )
        self.observations.append(seen)
        return seen

    async def hpa_status(self) -> JSON:
        autoscaler = await self.run.plane.api.get(HPA, "default", NAME)
        status: JSON = autoscaler.get("status") or {}
        return status

    async def rescale_messages(self) -> list[str]:
        """The messages of the HPA's ``SuccessfulRescale`` Events, oldest first."""
        listed = await self.run.plane.api.list(EVENT, "default")
        found = [
            (str(e.get("firstTimestamp") or ""), str(e.get("message") or ""))
            for e in listed.get("items") or []
            if e.get("reason") == "SuccessfulRescale"
            and (e.get("involvedObject") or {}).get("kind") == "HorizontalPodAutoscaler"
            and (e.get("involvedObject") or {}).get("name") == NAME
        ]
        return [message for _, message in sorted(found)]

    async def wait_for_replicas(self, replicas: int, within: timedelta) -> timedelta:
        """Wait until ``replicas`` pods are wanted and ready; returns how long it took.
        Fails when that does not happen ``within``."""
        began = self.run.offset()
        while True:
            seen = await self.observe()
            if seen.replicas == replicas and seen.ready == replicas:
                return seen.offset - began
            assert seen.offset - began < within, (
                f"no {replicas} ready replicas within {within} (since {began}): "
                f"{self.replica_changes()}"
            )
            await asyncio.sleep(POLL.total_seconds())

    async def ensure_replicas_in_range(self, low: int, high: int, during: timedelta) -> None:
        """Every second for ``during``: ``low <= spec.replicas <= high`` and the same for
        the HPA's desired replicas (what it would write)."""
        began = self.run.offset()
        while True:
            seen = await self.observe()
            assert low <= seen.replicas <= high, f"{seen} outside [{low}, {high}]"
            if seen.desired is not None:
                assert low <= seen.desired <= high, f"{seen} outside [{low}, {high}]"
            if seen.offset - began >= during:
                return
            await asyncio.sleep(POLL.total_seconds())

    def replica_changes(self) -> list[tuple[timedelta, int]]:
        """Each observed value of ``spec.replicas`` with the offset it was first seen."""
        changes: list[tuple[timedelta, int]] = []
        for seen in self.observations:
            if not changes or changes[-1][1] != seen.replicas:
                changes.append((seen.offset, seen.replicas))
        return changes

    def replica_sequence(self) -> list[int]:
        return [replicas for _, replicas in self.replica_changes()]

    def changed_to(self, replicas: int) -> timedelta:
        """When ``spec.replicas`` was first seen at ``replicas``."""
        return next(at for at, seen in self.replica_changes() if seen == replicas)


def run_e2e(
    scenario: Scenario,
    body: Callable[[Consumer], Awaitable[T]],
    **options: Any,
) -> tuple[T, Consumer]:
    """Start ``scenario`` on a fresh plane (``options`` go to ``EmbeddedControlPlane``),
    take a first observation at ``t = 0`` and return what ``body`` returns, with the
    consumer (its record) for the assertions."""
    clock = VirtualClock(START)
    consumers: list[Consumer] = []

    async def main() -> tuple[T]:
        plane = plane_for(scenario, clock, **options)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            run = ScenarioRun(plane, scenario)
            await run.start()
            consumer = Consumer(run)
            consumers.append(consumer)
            await consumer.observe()
            return (await body(consumer),)
        finally:
            plane.stop()
            await task

    finished = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert finished is not None, "the body did not finish within an hour"
    return finished[0], consumers[0]
