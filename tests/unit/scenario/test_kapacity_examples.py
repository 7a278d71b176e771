"""examples/kapacity/: every file loads and is valid, and the scenarios play as their
comments say, on virtual time.

Each scenario is played on its own plane (``scenario.run.plane_for``) through
``ScenarioRun``; every ``STEP`` of simulated time the Deployment, its pods, the IHPA and its
ReplicaProfile are read back through the plane's API, so the tests check what ``kubectl get
deploy,po,ihpa,rp`` would show at that instant. gray-rollback.yaml: the IHPA's gray
scale-down cuts pods off, its stability checker rolls the change back when the load
returns and the cut-off pods serve again without a pod being created; hpa-baseline.yaml
(the same load under the upstream HPA) deletes pods and must start new ones; preview.yaml:
an IHPA in Preview mode reports and changes nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from podscale.api import apply_defaults, validate
from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.kapacity.kind import IHPA, POD_STATE_LABEL, REPLICA_PROFILE
from podscale.controllers.kapacity.types import parse_ihpa
from podscale.controllers.kapacity.validation import portrait_problem
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import load_scenario
from podscale.scenario.model import Scenario
from podscale.scenario.play import beside_plane
from podscale.scenario.run import ScenarioRun, plane_for

EXAMPLE: Final = Path(__file__).resolve().parents[3] / "examples" / "kapacity"
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
POD: Final = kind_for("v1", "Pod")
EVENT: Final = kind_for("v1", "Event")
STEP: Final = timedelta(seconds=30)
SCENARIOS: Final = ("gray-rollback.yaml", "hpa-baseline.yaml", "preview.yaml")
MANIFESTS: Final = tuple(sorted(p.name for p in EXAMPLE.glob("*.yaml") if p.name not in SCENARIOS))
MINUTE: Final = 60.0


@dataclass(frozen=True, slots=True)
class Sample:
    """What the API showed ``at`` seconds into the scenario."""

    at: float
    replicas: int
    ready: int
    cutoff_unready: int  # pods labelled Cutoff whose Ready condition is False
    profile: tuple[int, int, int] | None  # the ReplicaProfile's online, cutoff, standby
    current: int | None  # the IHPA's status.currentPortraitValue.replicas
    names: frozenset[str] = field(default=frozenset())


def _ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or ()
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def documents(name: str) -> list[dict[str, Any]]:
    text = (EXAMPLE / name).read_text("utf-8")
    return [d for d in yaml.safe_load_all(text) if d is not None]


def play(scenario: Scenario) -> tuple[list[Sample], list[dict[str, Any]]]:
    """Play ``scenario`` to its end: a sample every ``STEP``, and the events at the end."""

    async def sample_all(plane: Any) -> tuple[list[Sample], list[dict[str, Any]]]:
        await plane.wait_started()
        run = ScenarioRun(plane, scenario)
        await run.start()
        samples: list[Sample] = []
        at = timedelta(0)
        while at <= scenario.duration:
            while (due := run.next_event_at()) is not None and due < at:
                await asyncio.sleep(max((due - run.offset()).total_seconds(), 0.0))
                await run.fire_due()
            await asyncio.sleep(max((at - run.offset()).total_seconds(), 0.0))
            await run.fire_due()
            deployment = await plane.api.get(DEPLOYMENT, "default", "checkout")
            pods = (await plane.api.list(POD, "default"))["items"]
            cutoff = [p for p in pods if (p["metadata"].get("labels") or {}).get(POD_STATE_LABEL)]
            profile = current = None
            try:
                spec = (await plane.api.get(REPLICA_PROFILE, "default", "checkout"))["spec"]
                profile = (
                    spec["onlineReplicas"],
                    spec.get("cutoffReplicas", 0),
                    spec.get("standbyReplicas", 0),
                )
            except ApiError:
                pass
            try:
                status = (await plane.api.get(IHPA, "default", "checkout")).get("status") or {}
                current = (status.get("currentPortraitValue") or {}).get("replicas")
            except ApiError:
                pass
            samples.append(
                Sample(
                    at.total_seconds(),
                    int(deployment["spec"]["replicas"]),
                    sum(1 for p in pods if _ready(p)),
                    sum(1 for p in cutoff if not _ready(p)),
                    profile,
                    current,
                    frozenset(p["metadata"]["name"] for p in pods),
                )
            )
            at += STEP
        events = (await plane.api.list(EVENT, "default"))["items"]
        return samples, events

    async def main() -> tuple[list[Sample], list[dict[str, Any]]]:
        plane = plane_for(scenario, VirtualClock(DEFAULT_START))
        return await beside_plane(plane, sample_all(plane))

    result = run_virtual(main(), start=DEFAULT_START)
    assert result is not None
    return result


def at(samples: list[Sample], minutes: float) -> Sample:
    return next(s for s in samples if s.at == minutes * MINUTE)


def between(samples: list[Sample], start: float, end: float) -> list[Sample]:
    return [s for s in samples if start * MINUTE <= s.at < end * MINUTE]


def created(samples: list[Sample]) -> frozenset[str]:
    return frozenset().union(*(s.names for s in samples))


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_loads(name: str) -> None:
    scenario = load_scenario(EXAMPLE / name)
    assert scenario.name == f"kapacity-{Path(name).stem}"
    assert scenario.workloads


@pytest.mark.parametrize("name", MANIFESTS)
def test_every_manifest_is_valid(name: str) -> None:
    """Built-in kinds as the API server would store them; IHPAs as the controller reads
    them (no portrait problem)."""
    for obj in documents(name):
        if obj["kind"] == "IntelligentHorizontalPodAutoscaler":
            assert portrait_problem(parse_ihpa(obj).spec) is None
        else:
            assert validate(apply_defaults(obj)) == []


@pytest.fixture(scope="module")
def gray() -> tuple[list[Sample], list[dict[str, Any]]]:
    return play(load_scenario(EXAMPLE / "gray-rollback.yaml"))


def test_the_scale_down_goes_in_gray_steps_with_cut_off_pods(
    gray: tuple[list[Sample], list[dict[str, Any]]],
) -> None:
    samples, _ = gray
    assert {s.profile for s in between(samples, 5, 30)} == {(8, 0, 0)}
    # A quarter of the 5-pod change every 2 minutes, from 00:30 (the Cron portrait's 3).
    assert at(samples, 30.5).profile == (7, 1, 0)
    assert at(samples, 32.5).profile == (6, 2, 0)
    assert at(samples, 34.5).profile == (5, 3, 0)
    assert at(samples, 36.5).profile == (3, 5, 0)
    assert at(samples, 37).current == 3
    # Cut-off pods keep running without traffic: Ready False, the workload still at 8.
    low = at(samples, 38)
    assert (low.replicas, low.ready, low.cutoff_unready) == (8, 3, 5)


def test_the_checker_rolls_back_and_the_cut_off_pods_serve_again(
    gray: tuple[list[Sample], list[dict[str, Any]]],
) -> None:
    samples, events = gray
    # The rush at 00:40: the change is rolled back within the minute.
    back = at(samples, 41.5)
    assert back.profile == (8, 0, 0)
    assert (back.replicas, back.ready, back.cutoff_unready) == (8, 8, 0)
    rolled = [e for e in events if e["reason"] == "GrayRolledBack"]
    assert rolled
    assert rolled[0]["involvedObject"]["kind"] == "IntelligentHorizontalPodAutoscaler"
    # No pod was created for it: the same 8 pods from the start to the end of the rush.
    assert len(created(between(samples, 5, 50))) == 8


def test_the_change_completes_after_the_rush(
    gray: tuple[list[Sample], list[dict[str, Any]]],
) -> None:
    samples, _ = gray
    assert at(samples, 53).profile == (3, 5, 0)
    # 10 minutes of observation at 100%, then the cut-off pods go.
    assert {(s.profile, s.replicas, s.ready) for s in between(samples, 64, 90)} == {
        ((3, 0, 0), 3, 3)
    }
    assert len(created(samples)) == 8


def test_the_hpa_deletes_pods_and_must_start_new_ones() -> None:
    samples, _ = play(load_scenario(EXAMPLE / "hpa-baseline.yaml"))
    assert {s.replicas for s in between(samples, 37, 40)} == {3}
    # The rush: 5 new pods, not Ready at once (90 s to start).
    assert at(samples, 41).replicas == 8
    assert at(samples, 41).ready < 8
    assert len(created(between(samples, 5, 50))) == 13


def test_preview_reports_and_changes_nothing() -> None:
    samples, _ = play(load_scenario(EXAMPLE / "preview.yaml"))
    assert at(samples, 20).current == 8
    assert at(samples, 31).current == 3  # the Cron portrait, reported
    assert {s.profile for s in samples} == {None}
    assert {s.replicas for s in samples} == {8}
    assert len(created(samples)) == 8
