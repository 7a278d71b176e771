"""Running a scenario: apply it to an embedded control plane and play it out on virtual time.

A scenario (``podscale.scenario.loader`` loads one from YAML) is read here only through the
structural ``ScenarioLike`` protocols of ``scenario.protocols``, because ``podscale.scenario``
sits above the runtime: anything with the same fields runs. ``ScenarioRun`` applies one to a started
``EmbeddedControlPlane``: its CustomResourceDefinitions first (waited for until
Established, ``scenario.definitions_wait``), then its other manifests in order (each created
through the API as its ``apiVersion``/``kind`` says, so an HPA may be autoscaling/v2 or v1,
and a custom resource goes to the resource its scenario's CRD defines), its workloads' loads
(``SimulatedUsage.set_load``, with the run's start as the rate sources' origin), the
load's past for ``spec.history`` into ``plane.history`` before the manifests after the CRDs
(``scenario.history_prefill``), and its
timeline events at their offsets (``scale`` through the target's ``scale`` subresource,
``crash`` of the first ``count`` running pods of the target by name (a custom target's pods
are those its Scale's ``status.selector`` chooses), ``loseNode``,
``restoreNode``), and its external metric series (``externalMetrics``) through the plane's
push provider, each value from its offset on and republished before the provider's TTL
forgets it (``scenario.external_schedule``). ``plane_for`` builds the plane a scenario asks for (its
nodes, pod timing and seed).

``run_scenario`` does all of it on a fresh virtual-time loop for the scenario's duration and
returns every ``ScenarioSnapshot`` (``scenario.snapshot``), taken every ``tick`` and handed to
``on_tick`` as it is taken: the ``podscale demo`` driver builds on it. Events fire before the
snapshot of the same instant. Same scenario, same seed, same options: the same run.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

from podscale.api.kinds import kind_for
from podscale.api.selector_model import Selector
from podscale.api.selectors import selector_from_label_selector
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.resources import storage_resource
from podscale.controllers.hpa.scale_target import resolve_target
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.collector import freeze_built, long_lived_heap
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import is_running
from podscale.runtime.simulated.nodes import NodeSpec
from podscale.runtime.simulated.scale_follower import scale_selector
from podscale.runtime.simulated.usage_loads import built_in_workload
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.custom_kinds import DefinedKind, defined_kinds, is_definition
from podscale.scenario.definitions_wait import wait_established
from podscale.scenario.event_feed import EventFeed
from podscale.scenario.external_schedule import ExternalMetricFeed
from podscale.scenario.history_prefill import history_points, prefill
from podscale.scenario.pod_facts import PodFacts
from podscale.scenario.pod_index import KeptReads
from podscale.scenario.protocols import EventLike, ScenarioLike
from podscale.scenario.snapshot import (
    EVENT,
    POD,
    EventCursor,
    ScenarioSnapshot,
    TargetRef,
    read_snapshot,
    read_target_scale,
)

T = TypeVar("T")

__all__ = [
    "DEFAULT_TICK",
    "ScenarioLike",
    "ScenarioResult",
    "ScenarioRun",
    "beside_plane",
    "node_specs",
    "plane_for",
    "play",
    "run_scenario",
]

JSON = dict[str, Any]
DEFAULT_TICK: Final = timedelta(seconds=5)


def node_specs(scenario: ScenarioLike) -> tuple[NodeSpec, ...]:
    """The simulated cluster's node specs for the scenario's nodes."""
    return tuple(
        NodeSpec(n.name, str(n.cpu), str(n.memory), n.pods, dict(n.labels)) for n in scenario.nodes
    )


def plane_for(scenario: ScenarioLike, clock: VirtualClock, **options: Any) -> EmbeddedControlPlane:
    """An embedded plane with the scenario's nodes (default nodes when it names none), pod
    timing, seed and feature gates; ``options`` go to ``EmbeddedControlPlane`` and win."""
    settings: dict[str, Any] = {
        "nodes": node_specs(scenario) or None,
        "seed": scenario.seed,
        "profile": scenario.pods,
        "feature_gates": scenario.feature_gates,
        **options,
    }
    config = settings.get("hpa_config")
    if config is not None:
        # The API server admits what the HPA controller then decides on: one set of gates.
        settings["hpa_config"] = dataclasses.replace(
            config, feature_gates=settings["feature_gates"]
        )
    return EmbeddedControlPlane(clock, **settings)


class ScenarioRun:
    """One scenario on one started plane: ``start`` it, then ``fire_due`` and ``snapshot``
    as virtual time goes by (``run_scenario`` does the stepping)."""

    def __init__(self, plane: EmbeddedControlPlane, scenario: ScenarioLike) -> None:
        self.plane = plane
        self.scenario = scenario
        self.started_at: datetime = plane.clock.now()
        self._pending = sorted(scenario.events, key=lambda e: e.at)
        self._cursor = EventCursor()
        # The snapshots' listed objects, decoded once while unchanged (``read_snapshot``).
        self._shared = SharedItems()
        # Each pod's readiness and CPU request, read again only when it changed.
        self._facts = PodFacts()
        # The pods and Events LISTs and the workloads' GETs, read again only once their
        # resource was written.
        self._kept = KeptReads()
        # The Events written since the last snapshot (the only ones it can find new).
        self._events = EventFeed(plane.store, storage_resource(EVENT), EVENT)
        self._external = ExternalMetricFeed(scenario.external_metrics)

    @property
    def targets(self) -> list[TargetRef]:
        return [w.target for w in self.scenario.workloads]

    async def start(self) -> None:
        """Create the CRDs, wait until each is Established, then the other manifests in
        order and set the loads; ``t = 0`` is when the CRDs are established."""
        objects = [m.object for m in self.scenario.manifests]
        definitions = [obj for obj in objects if is_definition(obj)]
        for obj in definitions:
            await self._create(obj)
        await wait_established(self.plane, definitions)
        self.started_at = self.plane.clock.now()
        # The load's past first, so an autoscaler's first sync already finds it.
        if self.scenario.history > timedelta(0):
            points = history_points(
                self.scenario.workloads, objects, self.started_at, self.scenario.history
            )
            prefill(self.plane.history, points)
        defined = defined_kinds(definitions)
        for obj in objects:
            if not is_definition(obj):
                await self._create(obj, defined)
        usage = self.plane.usage
        usage.set_origin(self.started_at)
        for workload in self.scenario.workloads:
            t = workload.target
            usage.set_load(
                t.kind,
                t.namespace,
                t.name,
                workload.load,
                workload.profile,
                api_version=t.api_version,
            )

    async def _create(
        self, obj: JSON, defined: Mapping[tuple[str, str], DefinedKind] | None = None
    ) -> None:
        api_version, kind_name = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
        custom = (defined or {}).get((api_version, kind_name))
        if custom is None:
            kind = kind_for(api_version, kind_name)
        else:
            kind = await self.plane.api.resolve_kind(custom.group, custom.version, custom.plural)
        namespace = (obj.get("metadata") or {}).get("namespace") or "default"
        await self.plane.api.create(kind, namespace if kind.namespaced else None, obj)

    def offset(self) -> timedelta:
        return self.plane.clock.now() - self.started_at

    def next_event_at(self) -> timedelta | None:
        """The offset of the next event or external metric publication."""
        times = [self._pending[0].at] if self._pending else []
        if (publish_at := self._external.next_at()) is not None:
            times.append(publish_at)
        return min(times, default=None)

    async def fire_due(self) -> None:
        """Publish the external metric values due, then fire every event whose offset has
        come, in order."""
        self._publish_due()
        while self._pending and self._pending[0].at <= self.offset():
            await self._fire(self._pending.pop(0))

    def _publish_due(self) -> None:
        due = self._external.due(self.offset())
        push = self.plane.push
        if due and push is None:
            raise ValueError("the scenario has externalMetrics but the plane has no metrics")
        for series, value in due:
            assert push is not None  # checked above
            push.set_external_metric(
                series.namespace, series.name, value, labels=dict(series.labels)
            )

    async def _fire(self, event: EventLike) -> None:
        cluster = self.plane.cluster
        if event.type == "scale" and event.target is not None and event.replicas is not None:
            t = event.target
            body = {"spec": {"replicas": event.replicas}}
            kind = built_in_workload(t.api_version, t.kind)
            if kind is None:  # any kind with a scale subresource, as an HPA finds it
                ref = {"apiVersion": t.api_version, "kind": t.kind}
                kind = (await resolve_target(self.plane.api, ref))[0]
            await self.plane.api.patch(kind, t.namespace, t.name, body, subresource="scale")
        elif event.type == "crash" and event.target is not None and cluster is not None:
            for name in (await self._running_pods(event.target))[: event.count]:
                await cluster.crash_pod(event.target.namespace, name)
        elif event.type == "loseNode" and event.node is not None and cluster is not None:
            await cluster.lose_node(event.node)
        elif event.type == "restoreNode" and event.node is not None and cluster is not None:
            await cluster.restore_node(event.node)
        else:
            raise ValueError(f"cannot fire a {event.type!r} event")

    async def _running_pods(self, target: TargetRef) -> list[str]:
        kind = built_in_workload(target.api_version, target.kind)
        selector: Selector | None
        if kind is None:
            selector = scale_selector(await read_target_scale(self.plane.api, target))
            if selector is None:
                return []  # a Scale selecting nothing: no pods to crash
        else:
            obj = await self.plane.api.get(kind, target.namespace, target.name)
            selector = selector_from_label_selector((obj.get("spec") or {}).get("selector"))
        listed = await self.plane.api.list(POD, target.namespace, label_selector=str(selector))
        pods: list[JSON] = [p for p in listed.get("items") or [] if is_running(p)]
        return sorted(str(p["metadata"]["name"]) for p in pods)

    def stop_reading(self) -> None:
        """No more snapshots: stop watching the Events (the next snapshot lists them)."""
        self._events.close()

    async def snapshot(self) -> ScenarioSnapshot:
        return await read_snapshot(
            self.plane,
            self.targets,
            self.offset(),
            self._cursor,
            self._shared,
            self._facts,
            self._kept,
            self._events,
        )


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """Every snapshot of a run, in order."""

    name: str
    snapshots: tuple[ScenarioSnapshot, ...]

    def replicas_of(self, workload: str) -> list[int]:
        """The workload's ``spec.replicas`` at each snapshot."""
        return [s.workload(workload).replicas for s in self.snapshots]


async def play(
    run: ScenarioRun,
    *,
    tick: timedelta = DEFAULT_TICK,
    on_tick: Callable[[ScenarioSnapshot], None] | None = None,
) -> list[ScenarioSnapshot]:
    """Start ``run`` and play it to the scenario's end: events at their offsets, a snapshot
    every ``tick`` (the first at 0, the last at the duration)."""
    if tick <= timedelta(0):
        raise ValueError("tick must be positive")
    await run.start()
    snapshots: list[ScenarioSnapshot] = []
    due = timedelta(0)
    duration = run.scenario.duration
    while due <= duration:
        event_at = run.next_event_at()
        wake = due if event_at is None else min(due, event_at)
        await asyncio.sleep(max((wake - run.offset()).total_seconds(), 0.0))
        await run.fire_due()
        if run.offset() >= due:
            snapshot = await run.snapshot()
            snapshots.append(snapshot)
            if on_tick is not None:
                on_tick(snapshot)
            due += tick
    run.stop_reading()
    return snapshots


async def _play_when_started(
    plane: EmbeddedControlPlane,
    scenario: ScenarioLike,
    tick: timedelta,
    on_tick: Callable[[ScenarioSnapshot], None] | None,
) -> list[ScenarioSnapshot]:
    await plane.wait_started()
    freeze_built()  # the plane is built: the collector need not rescan it
    return await play(ScenarioRun(plane, scenario), tick=tick, on_tick=on_tick)


async def beside_plane(plane: EmbeddedControlPlane, play: Coroutine[Any, Any, T]) -> T:
    """Run ``plane`` and ``play`` together until ``play`` ends, then stop the plane; the
    result of ``play``. If the plane fails first, its error wins (``play`` is cancelled)."""
    task = asyncio.create_task(plane.run(), name="embedded-control-plane")
    player = asyncio.create_task(play)
    try:
        await asyncio.wait({task, player}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        plane.stop()
        if not player.done():
            player.cancel()
        await asyncio.wait({task, player})
    if task.done() and not task.cancelled() and task.exception() is not None:
        raise task.exception()  # type: ignore[misc]  # the plane failed: its error wins
    return player.result()


def run_scenario(
    scenario: ScenarioLike,
    *,
    on_tick: Callable[[ScenarioSnapshot], None] | None = None,
    tick: timedelta = DEFAULT_TICK,
    start: datetime = DEFAULT_START,
    **options: Any,
) -> ScenarioResult:
    """Run ``scenario`` on a fresh virtual-time loop (see the module docstring); ``options``
    go to ``EmbeddedControlPlane`` (e.g. ``hpa_config``, ``metric_resolution``). The run
    keeps the cyclic collector off the built plane (``runtime.collector.long_lived_heap``)."""
    clock = VirtualClock(start)

    async def main() -> list[ScenarioSnapshot]:
        plane = plane_for(scenario, clock, **options)
        return await beside_plane(plane, _play_when_started(plane, scenario, tick, on_tick))

    with long_lived_heap():
        snapshots = run_virtual(main(), start=start)
    assert snapshots is not None  # no deadline was given
    return ScenarioResult(scenario.name, tuple(snapshots))
