"""The replay benchmark stays runnable and honest: a tiny replay through the whole control
plane passes its checks, and a workload the HPA did not follow fails them."""

from __future__ import annotations

import importlib.util
import sys
from datetime import timedelta
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "replay.py"


def load_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # replay.py imports engine.machine
    spec = importlib.util.spec_from_file_location("bench_replay", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_replay", module)  # for its dataclasses
    spec.loader.exec_module(module)
    return module


def test_a_short_replay_follows_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    run = bench.replay("day", 1, timedelta(hours=2), timedelta(minutes=1))
    assert run.snapshots == 121
    # Two hours after the trough the sine needs 4 pods: the HPA is there within the band.
    [check] = run.checks
    assert (check.at_hours, check.needed) == (2.0, 4)
    assert run.ok


@pytest.mark.parametrize(
    ("replicas", "needed", "ok"),
    [(30, 31, True), (24, 31, True), (23, 31, False), (3, 1, True), (4, 1, False)],
    ids=["near", "edge", "beyond", "small-edge", "small-beyond"],
)
def test_the_band_fails_a_stuck_hpa(
    monkeypatch: pytest.MonkeyPatch, replicas: int, needed: int, ok: bool
) -> None:
    assert load_bench(monkeypatch).within_band(replicas, needed) is ok


def test_needed_pods_peak_at_noon(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    assert bench.needed_at(timedelta(0)) == 3  # 10 req/s x 20m + 1m over 100m
    assert bench.needed_at(timedelta(hours=12)) == 31  # 150 req/s


def test_a_short_fleet_is_extrapolated_from_its_steady_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = load_bench(monkeypatch)
    # 1 h simulated: 10 s (8 s CPU) to the end of the setup at 10 min, then 5 s per 50 min.
    run = bench.Run("fleet", 100, 1.0, 15.0, 13.0, 61, 0)
    run.marks = [(m / 60, 10.0 * m / 10, 8.0 * m / 10) for m in range(11)] + [(1.0, 15.0, 13.0)]
    wall, cpu = run.extrapolated(24.0)
    assert wall == pytest.approx(10.0 + 5.0 * (24 - 1 / 6) / (1 - 1 / 6))
    assert cpu == pytest.approx(8.0 + 5.0 * (24 - 1 / 6) / (1 - 1 / 6))
    # Without a mark past the setup, the run scales as a whole.
    run.marks = []
    assert run.extrapolated(24.0) == (15.0 * 24, 13.0 * 24)


def test_only_a_whole_run_is_judged_against_its_goal(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    check = bench.Check("web-0", 12.0, 31, 30, True)
    whole = bench.Run("fleet", 100, 24.0, 290.0, 280.0, 1441, 3000, [check])
    assert bench.report(whole, 300.0)["meets_goal"] is True
    slow = bench.Run("fleet", 100, 24.0, 310.0, 300.0, 1441, 3000, [check])
    assert bench.report(slow, 300.0)["meets_goal"] is False
    # Half an hour extrapolated well under the goal is still not a met goal.
    short = bench.Run("fleet", 100, 0.5, 2.0, 2.0, 31, 9, [check])
    report = bench.report(short, 300.0, 24.0)
    assert report["extrapolated"]["wall_seconds"] < 300.0
    assert report["meets_goal"] is None
    assert bench.verdict(None).startswith("not judged")
