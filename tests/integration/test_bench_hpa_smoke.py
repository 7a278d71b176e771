"""The HPA controller benchmark stays runnable: at tiny sizes every HPA reconciles once per
sync period, reads its metric and keeps its 10 replicas, and every number is computed."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "hpa_controller.py"


def load_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # hpa_controller.py imports engine.machine
    spec = importlib.util.spec_from_file_location("bench_hpa_controller", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_hpa_controller", module)  # for its dataclasses
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("hpas", "pods", "gc_freeze"),
    [(3, 2, False), (4, 3, True)],
    ids=["3x2", "4x3-gc-freeze"],
)
def test_every_hpa_reconciles_each_period_at_target(
    monkeypatch: pytest.MonkeyPatch, hpas: int, pods: int, gc_freeze: bool
) -> None:
    bench = load_bench(monkeypatch)
    periods = 2
    result = bench.run_once(hpas, pods, periods, 1, 5, gc_freeze=gc_freeze)
    assert result.hpas_reconciled == hpas
    # One sync per HPA per 15 s period (periodic resync, no backoff, no extra syncs).
    assert result.reconciles == hpas * periods
    # Idle pods at 1m of a 2m request against a 50% target: every HPA keeps its size.
    assert result.hpas_at_target == hpas
    # On virtual time every sync starts at its due time.
    assert result.virtual_lag_p99 == 0.0
    assert result.real_lag_p50 >= 0.0
    assert math.isclose(result.goal_reconciles_per_second, hpas / 15)
    assert result.reconciles_per_wall_second > 0
    assert result.cpu_ms_per_reconcile > 0
    assert result.controller_ms_per_reconcile > 0
    assert len(result.wall_per_period) == periods
    assert len(result.rss_mib) == periods + 1
    assert all(mib > 0 for mib in result.rss_mib)
    assert result.gc_freeze is gc_freeze
    assert bench.failures(result) == []
    # A run whose HPAs did not all end at their target is reported (main exits 1).
    missed = dataclasses.replace(result, hpas_at_target=hpas - 1)
    assert bench.failures(missed) == [f"only {hpas - 1} of {hpas} HPAs at their target"]


def test_percentile_picks_the_ranked_value(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench(monkeypatch)
    values = [float(v) for v in range(100, 0, -1)]
    assert bench.percentile(values, 0.5) == 51.0
    assert bench.percentile(values, 0.99) == 100.0
    assert math.isnan(bench.percentile([], 0.5))
