"""Playing a scenario to its end on virtual time: ``play``, ``beside_plane``, ``run_scenario``.

``play`` starts a ``run.ScenarioRun`` and steps it through the scenario's duration: it sleeps
(on the virtual clock) until the next snapshot or the next event or external metric
publication, fires what is due (``ScenarioRun.fire_due``) and takes a ``ScenarioSnapshot``
(``scenario.snapshot``) every ``tick``, handing each to ``on_tick`` as it is taken. Events fire
before the snapshot of the same instant. ``beside_plane`` runs the embedded plane and a play
together and stops the plane when the play ends.

``run_scenario`` does all of it on a fresh virtual-time loop (``runtime.kernel.run_virtual``)
with the plane ``run.plane_for`` builds, and returns every snapshot as a ``ScenarioResult``:
the ``podscale demo`` driver and the replay bench build on it, ``podscale replay``
(``replay.run``) on ``beside_plane``. Same scenario, same seed, same options: the same run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.collector import freeze_built, long_lived_heap
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.protocols import ScenarioLike
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import ScenarioSnapshot

T = TypeVar("T")

__all__ = ["DEFAULT_TICK", "ScenarioResult", "beside_plane", "play", "run_scenario"]

DEFAULT_TICK: Final = timedelta(seconds=5)


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
