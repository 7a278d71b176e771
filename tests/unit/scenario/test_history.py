"""A scenario's ``spec.history``: the field's validation, the load's past read backwards
(constant, step, sine, trace before and past its offset, a shifted replay load), the
per-minute CPU points, and a run finding them in the plane's history store."""

from __future__ import annotations

import copy
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.history import MemoryHistory, SeriesKey
from podscale.replay.window import ShiftedRate
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import (
    ConstantRate,
    RampRate,
    RateSource,
    RateStep,
    SineRate,
    StepRate,
    TraceRate,
    rate_history,
)
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.history_prefill import history_points, minute_points, prefill
from podscale.scenario.loader import ScenarioError, parse_scenario
from podscale.scenario.play import beside_plane
from podscale.scenario.run import ScenarioRun, plane_for

START = datetime(2026, 1, 1, tzinfo=UTC)
BASE: dict[str, Any] = {
    "apiVersion": "podscale.dev/v1alpha1",
    "kind": "Scenario",
    "metadata": {"name": "warm"},
    "spec": {
        "duration": "10m",
        "manifests": [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {
                            "containers": [
                                {"name": "app", "image": "app"},
                                {"name": "side", "image": "side"},
                            ]
                        },
                    },
                },
            }
        ],
        "workloads": [
            {
                "target": {"kind": "Deployment", "name": "web"},
                "load": {"type": "constant", "rate": 4},
                "containers": [
                    {"name": "app", "perRequest": {"cpu": "100m"}},
                    {"name": "side", "perRequest": {"cpu": "25m"}},
                ],
            }
        ],
    },
}


def scenario_with(history: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["spec"]["history"] = history
    return doc


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("7d", timedelta(days=7)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("90m", timedelta(minutes=90)),
        ("840h", timedelta(days=35)),
        ("0s", timedelta(0)),
    ],
    ids=["days", "days-and-hours", "go-duration", "the-most", "none"],
)
def test_history_reads_a_go_duration_or_days(written: str, expected: timedelta) -> None:
    assert parse_scenario(scenario_with(written)).history == expected


def test_history_defaults_to_none() -> None:
    assert parse_scenario(copy.deepcopy(BASE)).history == timedelta(0)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("36d", 'spec.history: Invalid value: "36d": must be no more than 35d'),
        ("35d1s", 'spec.history: Invalid value: "35d1s": must be no more than 35d'),
        ("-1h", 'spec.history: Invalid value: "-1h": must be greater than or equal to 0'),
        ("week", 'spec.history: Invalid value: "week": time: invalid duration "week"'),
        (7, "spec.history: Invalid value: 7: must be of type string"),
    ],
    ids=["too-long", "just-too-long", "negative", "not-a-duration", "a-number"],
)
def test_a_bad_history_is_a_field_error(written: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(scenario_with(written))
    assert str(caught.value).endswith(message)


def trace(tmp_path: Path, rows: list[int]) -> Path:
    path = tmp_path / "trace.csv"
    path.write_text("minute,requests\n" + "".join(f"{i},{r}\n" for i, r in enumerate(rows)))
    return path


# (case, source, seconds since the start, the rate it had then)
PAST: list[tuple[str, RateSource, float, float]] = [
    ("constant", ConstantRate(3), -86_400, 3.0),
    (
        "step holds its starting rate",
        StepRate((RateStep(timedelta(0), 2), RateStep(timedelta(minutes=5), 9))),
        -60,
        2.0,
    ),
    ("step before its first step", StepRate((RateStep(timedelta(minutes=5), 9),)), -60, 0.0),
    ("ramp holds its start", RampRate(1, 5, timedelta(minutes=10)), -600, 1.0),
    ("sine continues backwards", SineRate(10, 4, timedelta(minutes=4)), -60, 6.0),
    ("sine a period back", SineRate(10, 4, timedelta(minutes=4)), -240 + 60, 14.0),
]


@pytest.mark.parametrize(
    ("source", "seconds", "rate"), [p[1:] for p in PAST], ids=[p[0] for p in PAST]
)
def test_shapes_answer_for_the_past(source: RateSource, seconds: float, rate: float) -> None:
    found = rate_history(source)(seconds)
    assert found is not None
    assert math.isclose(found, rate, abs_tol=1e-9)


@pytest.mark.parametrize(
    ("offset", "loop", "seconds", "rate"),
    [
        (timedelta(minutes=2), False, -60.0, 120 / 60),
        (timedelta(minutes=2), False, -120.0, 60 / 60),
        (timedelta(minutes=2), False, -121.0, None),
        (timedelta(0), False, -1.0, None),
        (timedelta(0), True, -60.0, 240 / 60),
        (timedelta(0), False, 30.0, 60 / 60),
    ],
    ids=[
        "the-row-before-the-offset",
        "the-first-row",
        "before-the-beginning",
        "no-offset",
        "looped-wraps",
        "after-the-start",
    ],
)
def test_a_trace_reads_the_rows_before_its_offset(
    tmp_path: Path, offset: timedelta, loop: bool, seconds: float, rate: float | None
) -> None:
    source = TraceRate(trace(tmp_path, [60, 120, 180, 240]).resolve(), offset=offset, loop=loop)
    assert rate_history(source)(seconds) == rate


def test_a_faster_trace_reads_its_past_at_its_time_scale(tmp_path: Path) -> None:
    path = trace(tmp_path, [60, 120, 180, 240]).resolve()
    source = TraceRate(path, offset=timedelta(minutes=2), time_scale=2.0, rate_scale=3.0)
    past = rate_history(source)
    # 30 s before the start is a minute of trace before the offset: row 1, tripled.
    assert (past(-30.0), past(-60.0), past(-61.0)) == (6.0, 3.0, None)


def test_a_shifted_load_reads_its_source_before_the_run() -> None:
    shifted = ShiftedRate(SineRate(10, 4, timedelta(minutes=4)), timedelta(minutes=-1))
    assert math.isclose(rate_history(shifted)(0.0) or 0, 6.0)


@pytest.mark.parametrize(
    ("rates", "history", "expected"),
    [
        ({-120: 2.0, -60: 4.0}, timedelta(minutes=2), [(-120, 0.2), (-60, 0.4)]),
        ({-60: 4.0}, timedelta(minutes=2), [(-60, 0.4)]),
        ({-60: 4.0}, timedelta(seconds=119), [(-60, 0.4)]),
        ({}, timedelta(minutes=3), []),
    ],
    ids=["each-minute", "a-minute-unknown-is-absent", "whole-minutes-only", "nothing-known"],
)
def test_minute_points_are_offered_cpu_in_cores(
    rates: dict[int, float], history: timedelta, expected: list[tuple[int, float]]
) -> None:
    def rate(seconds: float) -> float | None:
        return rates.get(int(seconds // 60 * 60))

    points = minute_points(rate, 100.0, START, history)
    assert [((p.at - START).total_seconds(), round(p.value, 9)) for p in points] == expected


def test_a_minute_half_known_is_the_mean_of_its_known_seconds() -> None:
    points = minute_points(lambda s: 6.0 if s >= -30 else None, 1000.0, START, timedelta(minutes=1))
    assert [(p.at, p.value) for p in points] == [(START - timedelta(minutes=1), 6.0)]


def test_history_points_cost_every_template_container() -> None:
    scenario = parse_scenario(scenario_with("3m"))
    found = history_points(
        scenario.workloads, [m.object for m in scenario.manifests], START, scenario.history
    )
    key = SeriesKey("default", "Deployment", "web", "cpu_usage")
    assert list(found) == [key]
    assert [(p.at, round(p.value, 9)) for p in found[key]] == [
        (START - timedelta(minutes=m), 0.5) for m in (3, 2, 1)
    ]


def test_prefill_writes_the_points_to_the_store() -> None:
    scenario = parse_scenario(scenario_with("2m"))
    store = MemoryHistory()
    prefill(
        store,
        history_points(
            scenario.workloads, [m.object for m in scenario.manifests], START, scenario.history
        ),
    )
    key = SeriesKey("default", "Deployment", "web", "cpu_usage")
    read = store.read(key, START - timedelta(hours=1), START, timedelta(minutes=1))
    assert [p.value for p in read] == [0.5, 0.5]


def test_a_run_finds_the_history_before_its_start_in_the_plane() -> None:
    doc = scenario_with("5m")
    doc["spec"]["workloads"][0]["load"] = {
        "type": "sine",
        "base": 10,
        "amplitude": 4,
        "period": "4m",
    }
    scenario = parse_scenario(doc)
    seen: dict[str, Any] = {}

    async def play(run: ScenarioRun) -> None:
        await run.plane.wait_started()
        await run.start()
        key = SeriesKey("default", "Deployment", "web", "cpu_usage")
        seen["points"] = run.plane.history.read(
            key, run.started_at - timedelta(hours=1), run.started_at, timedelta(minutes=1)
        )
        seen["started"] = run.started_at

    async def main() -> None:
        plane = plane_for(scenario, VirtualClock(DEFAULT_START))
        await beside_plane(plane, play(ScenarioRun(plane, scenario)))

    run_virtual(main(), start=DEFAULT_START)
    started = seen["started"]
    points = seen["points"]
    assert [p.at for p in points] == [started - timedelta(minutes=m) for m in (5, 4, 3, 2, 1)]
    # A whole period averages to the base: 10 requests/s at 125m each.
    assert math.isclose(sum(p.value for p in points[1:]) / 4, 1.25, rel_tol=1e-9)
