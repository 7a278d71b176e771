"""examples/keda/: every file loads and is valid, and the cron and fallback scenarios play
as their comments say, on virtual time.

Each scenario is played on its own plane (``scenario.run.plane_for``) through
``ScenarioRun``; every ``STEP`` of simulated time the Deployment's ``spec.replicas`` and the
ScaledObject's conditions are read back through the plane's API, so the tests check what
``kubectl get deploy,so`` would show at that instant. The queue-worker scenario (0 -> N ->
0 over hours, against an HPA that stays at 1) is pinned by the replay test
(tests/unit/replay/test_keda_queue_worker.py), which plays it for both autoscalers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from podscale.api import apply_defaults, validate
from podscale.api.kinds import kind_for
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.keda.validation import admission_error
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import load_scenario
from podscale.scenario.model import Scenario
from podscale.scenario.play import beside_plane
from podscale.scenario.run import ScenarioRun, plane_for

EXAMPLE: Final = Path(__file__).resolve().parents[3] / "examples" / "keda"
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
STEP: Final = timedelta(seconds=15)
SCENARIOS: Final = ("queue-worker.yaml", "cron.yaml", "fallback.yaml")
MANIFESTS: Final = tuple(sorted(p.name for p in EXAMPLE.glob("*.yaml") if p.name not in SCENARIOS))


@dataclass(frozen=True, slots=True)
class Sample:
    """What the API showed at ``at`` (seconds into the scenario)."""

    at: float
    replicas: int
    conditions: dict[str, str]


def documents(name: str) -> list[dict[str, Any]]:
    text = (EXAMPLE / name).read_text("utf-8")
    return [d for d in yaml.safe_load_all(text) if d is not None]


def play(scenario: Scenario, name: str) -> list[Sample]:
    """Play ``scenario`` to its end; a sample of Deployment and ScaledObject ``name``
    every ``STEP``."""

    async def sample_all(plane: Any) -> list[Sample]:
        await plane.wait_started()
        run = ScenarioRun(plane, scenario)
        await run.start()
        samples: list[Sample] = []
        at = timedelta(0)
        while at <= scenario.duration:
            # Publications and events between two samples land at their own offsets.
            while (due := run.next_event_at()) is not None and due < at:
                await asyncio.sleep(max((due - run.offset()).total_seconds(), 0.0))
                await run.fire_due()
            await asyncio.sleep(max((at - run.offset()).total_seconds(), 0.0))
            await run.fire_due()
            deployment = await plane.api.get(DEPLOYMENT, "default", name)
            so = await plane.api.get(SCALED_OBJECT, "default", name)
            conditions = {
                c["type"]: c["status"] for c in (so.get("status") or {}).get("conditions") or ()
            }
            samples.append(
                Sample(at.total_seconds(), int(deployment["spec"]["replicas"]), conditions)
            )
            at += STEP
        return samples

    async def main() -> list[Sample]:
        plane = plane_for(scenario, VirtualClock(DEFAULT_START))
        return await beside_plane(plane, sample_all(plane))

    result = run_virtual(main(), start=DEFAULT_START)
    assert result is not None
    return result


def between(samples: list[Sample], start: float, end: float) -> list[Sample]:
    return [s for s in samples if start <= s.at < end]


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_loads(name: str) -> None:
    scenario = load_scenario(EXAMPLE / name)
    assert scenario.name == f"keda-{Path(name).stem}"
    definitions = {
        m.object["metadata"]["name"]
        for m in scenario.manifests
        if m.object["kind"] == "CustomResourceDefinition"
    }
    assert "scaledobjects.keda.sh" in definitions
    assert any(m.object["kind"] == "ScaledObject" for m in scenario.manifests)
    assert scenario.workloads


@pytest.mark.parametrize("name", MANIFESTS)
def test_every_manifest_is_valid(name: str) -> None:
    """Built-in kinds as the API server would store them; ScaledObjects as KEDA's
    admission webhook and its scalers read them (no error)."""
    for obj in documents(name):
        if obj["kind"] == "ScaledObject":
            so = parse_scaled_object(obj)
            assert admission_error(so) is None
            for index, trigger in enumerate(obj["spec"]["triggers"]):
                parse_trigger(index, trigger)
        else:
            assert validate(apply_defaults(obj)) == []


def test_the_cron_trigger_scales_up_in_its_window_and_back_to_zero_after() -> None:
    samples = play(load_scenario(EXAMPLE / "cron.yaml"), "report-builder")
    hour = 3600.0
    # Before 02:00 Paris time (1h into the run) the trigger is inactive: 0 replicas.
    assert {s.replicas for s in between(samples, 120, hour)} == {0}
    assert {s.conditions["Active"] for s in between(samples, 120, hour)} == {"False"}
    # In the window: activated within a poll, then the generated HPA holds 5.
    assert {s.replicas for s in between(samples, hour + 120, 2 * hour)} == {5}
    assert {s.conditions["Active"] for s in between(samples, hour + 60, 2 * hour)} == {"True"}
    # After 03:00 Paris: inactive, and 0 replicas once cooldownPeriod (300 s) has passed.
    assert {s.replicas for s in between(samples, 2 * hour + 60, 2 * hour + 300)} == {5}
    assert {s.replicas for s in between(samples, 2 * hour + 360, 1e9)} == {0}
    assert {s.conditions["Ready"] for s in samples[2:]} == {"True"}


def test_fallback_replicas_while_the_metric_is_missing_and_back_after() -> None:
    samples = play(load_scenario(EXAMPLE / "fallback.yaml"), "queue-worker")
    minute = 60.0
    # 60 messages / 30 per replica.
    assert {s.replicas for s in between(samples, 2 * minute, 20 * minute)} == {2}
    assert {s.conditions["Fallback"] for s in between(samples, minute, 20 * minute)} == {"False"}
    # Stopped at 20m, forgotten by the push provider 2 minutes after its last write; then
    # 3 failed reads: the fallback's 4 replicas, with Fallback=True, until the source returns.
    held = between(samples, 24 * minute, 40 * minute)
    assert {s.replicas for s in held} == {4}
    assert {s.conditions["Fallback"] for s in held} == {"True"}
    first = next(s.at for s in samples if s.conditions.get("Fallback") == "True")
    assert 21 * minute < first <= 24 * minute
    # Back at 40m: Fallback=False at the next poll, 2 replicas after the HPA's 5 minute
    # scale-down stabilization.
    back = between(samples, 41 * minute, 1e9)
    assert {s.conditions["Fallback"] for s in back} == {"False"}
    assert {s.replicas for s in between(samples, 46 * minute, 1e9)} == {2}
    assert {s.conditions["Ready"] for s in samples[2:]} == {"True"}
