"""KEDA's scale handler: each ScaledObject's scalers, read by the scale loop and the adapter.

KEDA keeps one cache of scalers per ScaledObject (``pkg/scaling/cache``), built from its
triggers when its scale loop starts and rebuilt when its generation changes. Two readers
use it: the scale loop every ``pollingInterval`` (``read_all``: every trigger's value and
activity, for ``decisions.poll``) and the metrics server whenever the generated HPA asks
for a metric (``metric_value``: ``adapter.MetricsSource``). A trigger marked
``useCachedMetrics`` answers the HPA from the loop's last reading instead of asking its
source again. A failed read counts against the trigger's health (``fallback.update_health``);
once the failures pass ``fallback.failureThreshold`` the metrics server answers with the
fallback's value (``fallback.fallback_value``), so the HPA drives the target to the fallback
replicas. With scaling modifiers the HPA reads one composite metric: the formula over the
triggers' values (``formula.Formula.evaluate``).

State lives in memory per ``namespace/name`` (``Entry``), as KEDA's does; the controller
(``controller``) calls ``put`` when it (re)starts a loop and ``forget`` when it stops one.
Health is written to the ScaledObject's status by the loop (``Entry.health``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from podscale.controllers.keda import fallback
from podscale.controllers.keda.activity import TriggerOutcome
from podscale.controllers.keda.adapter import MetricUnavailable
from podscale.controllers.keda.formula import Formula, FormulaError
from podscale.controllers.keda.generated import COMPOSITE_METRIC_NAME
from podscale.controllers.keda.scalers.base import Scaler, ScalerEnv, ScalerError
from podscale.controllers.keda.scalers.factory import build_scaler
from podscale.controllers.keda.triggers.spec import TriggerSpec
from podscale.controllers.keda.types import ScaledObject
from podscale.store.interface import Clock

__all__ = ["Entry", "ScaleHandler"]

# How the handler learns the target's replicas for the currentReplicas fallback behaviors.
ReplicasReader = Callable[[ScaledObject], Awaitable[int]]
EnvFactory = Callable[[str, "str | None"], ScalerEnv]


@dataclass
class Entry:
    """One ScaledObject's scalers and what the handler remembers about them."""

    so: ScaledObject
    generation: int
    specs: tuple[TriggerSpec, ...]
    scalers: tuple[Scaler, ...]
    formula: Formula | None
    health: dict[str, Any] = field(default_factory=dict)
    # The loop's last reading per metric name: (value, active); useCachedMetrics reads it.
    cached: dict[str, tuple[float, bool]] = field(default_factory=dict)


class ScaleHandler:
    """The scalers of every running ScaledObject; implements ``adapter.MetricsSource``."""

    def __init__(
        self,
        clock: Clock,
        env: EnvFactory,
        replicas: ReplicasReader,
        *,
        builder: Callable[[TriggerSpec, ScalerEnv], Scaler] = build_scaler,
    ) -> None:
        self._clock = clock
        self._env = env
        self._replicas = replicas
        self._builder = builder
        self._entries: dict[str, Entry] = {}

    def entry(self, key: str) -> Entry | None:
        return self._entries.get(key)

    async def put(
        self,
        key: str,
        so: ScaledObject,
        generation: int,
        specs: Sequence[TriggerSpec],
        formula: Formula | None,
        pod_selector: str | None,
    ) -> Entry:
        """(Re)build ``key``'s scalers unless they were built for this generation."""
        current = self._entries.get(key)
        if current is not None and current.generation == generation:
            current.so = so  # annotations may change without a new generation
            return current
        env = self._env(so.namespace, pod_selector)
        scalers = tuple(self._builder(spec, env) for spec in specs)
        entry = Entry(so, generation, tuple(specs), scalers, formula)
        if current is not None:
            entry.health = current.health
            await _close(current.scalers)
        self._entries[key] = entry
        return entry

    async def forget(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            await _close(entry.scalers)

    async def close(self) -> None:
        for key in list(self._entries):
            await self.forget(key)

    # -- the scale loop ----------------------------------------------------------------

    async def read_all(self, key: str) -> tuple[TriggerOutcome, ...]:
        """Every trigger's reading now, in trigger order. Health is left to the loop's
        decision (``decisions.poll`` counts these outcomes), which the controller stores
        back with ``Entry.health``."""
        entry = self._entries.get(key)
        if entry is None:
            return ()
        now = self._clock.now()
        outcomes: list[TriggerOutcome] = []
        for spec, scaler in zip(entry.specs, entry.scalers, strict=True):
            try:
                reading = await scaler.read(now)
            except ScalerError as err:
                outcomes.append(TriggerOutcome(spec.name, spec.metric_name, None, False, str(err)))
                continue
            entry.cached[spec.metric_name] = (reading.value, reading.active)
            outcomes.append(
                TriggerOutcome(spec.name, spec.metric_name, reading.value, reading.active, None)
            )
        return tuple(outcomes)

    # -- the metrics server (adapter.MetricsSource) --------------------------------------

    def served_metrics(self) -> list[tuple[str, str, str]]:
        """(namespace, ScaledObject, metric) of every metric the handler answers for."""
        served: list[tuple[str, str, str]] = []
        for entry in self._entries.values():
            names = [s.metric_name for s in entry.specs if s.type not in ("cpu", "memory")]
            if entry.formula is not None:
                names = [COMPOSITE_METRIC_NAME]
            served.extend((entry.so.namespace, entry.so.name, n) for n in names)
        return served

    async def metric_value(self, namespace: str, scaled_object: str, metric_name: str) -> float:
        entry = self._entries.get(f"{namespace}/{scaled_object}")
        if entry is None:
            raise LookupError(f"no ScaledObject {namespace}/{scaled_object} is being scaled")
        if entry.formula is not None and metric_name == COMPOSITE_METRIC_NAME:
            return await self._composite(entry)
        for spec, scaler in zip(entry.specs, entry.scalers, strict=True):
            if spec.metric_name == metric_name and spec.type not in ("cpu", "memory"):
                return await self._value(entry, spec, scaler)
        raise LookupError(f"no metric {metric_name} on ScaledObject {namespace}/{scaled_object}")

    async def _read(self, entry: Entry, spec: TriggerSpec, scaler: Scaler) -> float:
        cached = entry.cached.get(spec.metric_name) if spec.use_cached_metrics else None
        if cached is not None:
            return cached[0]
        try:
            reading = await scaler.read(self._clock.now())
        except ScalerError:
            entry.health = fallback.update_health(entry.health, spec.metric_name, False)
            raise
        entry.health = fallback.update_health(entry.health, spec.metric_name, True)
        return reading.value

    async def _value(self, entry: Entry, spec: TriggerSpec, scaler: Scaler) -> float:
        try:
            return await self._read(entry, spec, scaler)
        except ScalerError as err:
            if fallback.fallback_active(entry.so, entry.health, spec.metric_name):
                current = await self._replicas(entry.so)
                return fallback.fallback_value(entry.so, spec, current)
            raise MetricUnavailable(str(err)) from None

    async def _composite(self, entry: Entry) -> float:
        assert entry.formula is not None
        values: dict[str, float] = {}
        failed: list[str] = []
        for spec, scaler in zip(entry.specs, entry.scalers, strict=True):
            try:
                values[spec.name] = await self._read(entry, spec, scaler)
            except ScalerError as err:
                failed.append(str(err))
        try:
            return entry.formula.evaluate(values)
        except FormulaError as err:
            message = "; ".join(failed) if failed else str(err)
            raise MetricUnavailable(message) from None


async def _close(scalers: Sequence[Scaler]) -> None:
    for scaler in scalers:
        await scaler.close()
