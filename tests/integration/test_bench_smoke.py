"""The engine benchmark stays runnable: each workload decides what it is meant to."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

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
