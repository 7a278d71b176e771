"""Running a scenario: apply it to an embedded control plane and fire its timeline as time goes by.

A scenario (``podscale.scenario.loader`` loads one from YAML) is read here only through the
structural ``ScenarioLike`` protocols of ``scenario.protocols``, because ``podscale.scenario``
sits above the runtime: anything with the same fields runs. ``ScenarioRun`` applies one to a
started ``EmbeddedControlPlane``: its CustomResourceDefinitions first (waited for until
Established, ``scenario.definitions_wait``), then its other manifests in order (each created
through the API as its ``apiVersion``/``kind`` says, so an HPA may be autoscaling/v2 or v1,
and a custom resource goes to the resource its scenario's CRD defines), its workloads' loads
(``SimulatedUsage.set_load``, with the run's start as the rate sources' origin), the
load's past for ``spec.history`` into ``plane.history`` before the manifests after the CRDs
(``scenario.history_prefill``), its timeline events at their offsets
(``scenario.timeline.fire_event``: ``scale``, ``crash``, ``loseNode``, ``restoreNode``), and
its external metric series (``externalMetrics``) through the plane's push provider, each
value from its offset on and republished before the provider's TTL forgets it
(``scenario.external_schedule``); ``snapshot`` reads a ``ScenarioSnapshot``
(``scenario.snapshot``). ``plane_for`` builds the plane a scenario asks for (its nodes, pod
timing and seed).

``scenario.play`` steps a ``ScenarioRun`` through virtual time (``play``, ``run_scenario``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from podscale.api.kinds import kind_for
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.resources import storage_resource
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.simulated.nodes import NodeSpec
from podscale.scenario.custom_kinds import DefinedKind, defined_kinds, is_definition
from podscale.scenario.definitions_wait import wait_established
from podscale.scenario.event_feed import EventFeed
from podscale.scenario.external_schedule import ExternalMetricFeed
from podscale.scenario.history_prefill import history_points, prefill
from podscale.scenario.pod_facts import PodFacts
from podscale.scenario.pod_index import KeptReads
from podscale.scenario.protocols import ScenarioLike
from podscale.scenario.snapshot import (
    EVENT,
    EventCursor,
    ScenarioSnapshot,
    TargetRef,
    read_snapshot,
)
from podscale.scenario.timeline import fire_event

__all__ = ["ScenarioLike", "ScenarioRun", "node_specs", "plane_for"]

JSON = dict[str, Any]


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
            await fire_event(self.plane, self._pending.pop(0))

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
