"""``scenario.snapshot.read_snapshot`` with the run's ``SharedItems``: every snapshot equals
the one read with plain LISTs at the same instant, and reading it mutates no listed item."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import podscale.demo
from podscale.api.kinds import KindInfo
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import load_scenario
from podscale.scenario.play import beside_plane, play
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import (
    EVENT,
    HPA,
    POD,
    EventCursor,
    ScenarioSnapshot,
    read_snapshot,
)

STEP = Path(podscale.demo.__file__).parent / "scenarios" / "php-apache-step.yaml"
LISTS: tuple[tuple[KindInfo, str | None], ...] = ((POD, "default"), (HPA, None), (EVENT, None))


class _Compared(ScenarioRun):
    """Each snapshot also read without ``SharedItems`` (its own Event cursor)."""

    plain: list[ScenarioSnapshot]
    reused: int

    async def snapshot(self) -> ScenarioSnapshot:
        if not hasattr(self, "plain"):
            self.plain, self.reused, self._plain_cursor = [], 0, EventCursor()
        before = {
            id(item)
            for kind, namespace in LISTS
            for item in (await self.plane.api.list_shared(kind, namespace, self._shared))["items"]
        }
        shared = await super().snapshot()
        self.plain.append(
            await read_snapshot(self.plane, self.targets, self.offset(), self._plain_cursor)
        )
        for kind, namespace in LISTS:
            # The memo's items equal a fresh LIST's: reading the snapshot mutated none.
            listed = await self.plane.api.list_shared(kind, namespace, self._shared)
            assert listed == await self.plane.api.list(kind, namespace)
            self.reused += sum(1 for item in listed["items"] if id(item) in before)
        return shared


def test_shared_snapshots_equal_plain_ones_through_scale_up_and_down() -> None:
    scenario = load_scenario(STEP)
    runs: list[_Compared] = []

    async def main() -> list[ScenarioSnapshot]:
        plane = plane_for(scenario, VirtualClock(DEFAULT_START))

        async def started() -> list[ScenarioSnapshot]:
            await plane.wait_started()
            runs.append(_Compared(plane, scenario))
            return await play(runs[0], tick=timedelta(minutes=1))

        return await beside_plane(plane, started())

    shared = run_virtual(main(), start=DEFAULT_START)
    assert shared is not None
    assert shared == runs[0].plain
    replicas = [s.workloads[0].replicas for s in shared]
    # Pods were created and deleted (scale up, then down), Events came and the memo was used.
    assert max(replicas) > replicas[0]
    assert max(replicas) > replicas[-1]
    assert any(s.events for s in shared[1:])
    assert runs[0].reused > 0
