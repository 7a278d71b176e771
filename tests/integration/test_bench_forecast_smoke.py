"""The forecast benchmark stays runnable and keeps its check: a seasonal model must win."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from podscale.forecast import Series

BENCH = Path(__file__).parents[2] / "bench" / "forecast.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_forecast", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_forecast_bench_passes_its_check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    monkeypatch.setattr(sys, "argv", ["forecast.py", "--repeat", "1", "--days", "5"])
    assert bench.main() == 0
    assert "beats the naive forecast" in capsys.readouterr().out


def test_the_forecast_bench_fails_when_no_seasonal_model_wins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()

    def walk(days: int = 7, seed: int = 42) -> Series:
        steps = np.random.default_rng(1).normal(0, 0.05, days * 1440)
        return Series(bench.START, bench.timedelta(minutes=1), 5 + np.cumsum(steps))

    monkeypatch.setattr(bench, "history", walk)
    monkeypatch.setattr(sys, "argv", ["forecast.py", "--repeat", "1", "--days", "5"])
    assert bench.main() == 1
    assert "WRONG: choose picked no seasonal model" in capsys.readouterr().err
