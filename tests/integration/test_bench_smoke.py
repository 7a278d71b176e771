"""The engine benchmark stays runnable: each workload decides what it is meant to."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "engine.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_engine", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_workloads_make_the_intended_decisions() -> None:
    bench = load_bench()
    # 10 pods at 70% of request against a 50% target: ratio 1.4, 14 pods wanted.
    assert bench.workload_a({})().desired_replicas == 14
    assert bench.workload_a()().desired_replicas == 14
    decision = bench.workload_b()()
    assert decision.error is None
    assert len(decision.status["currentMetrics"]) == 3
    # cpu averages 73% of request against 50%: ceil(1.46 * 100) = 146 pods.
    assert (decision.rescale, decision.desired_replicas) == (True, 146)


def test_controllers_bench_converges_and_counts_pods(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # controllers.py imports engine.machine
    spec = importlib.util.spec_from_file_location(
        "bench_controllers", BENCH.parent / "controllers.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_controllers", module)  # for its dataclasses
    spec.loader.exec_module(module)
    result = module.run_once(deployments=4, pods=4, hours=0.2, seed=3)
    assert result.converged
    # 4 x 4 created, scaled to 6 (+2 each), down to 2, back to 4 (+2 each).
    assert result.pods_created == 4 * (4 + 2 + 2)


def test_the_engine_bench_rejects_a_wrong_decision() -> None:
    bench = load_bench()
    assert bench.wrong_decision("a", bench.workload_a({})) is None
    # Workload (a)'s decision checked against (b)'s expectation: reported, so main exits 1.
    assert "expected (True, 146)" in bench.wrong_decision("b", bench.workload_a({}))
