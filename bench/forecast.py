"""Forecast fitting speed: ``choose`` and each model on 7 days of per-minute history.

The history is a synthetic workload's CPU (cores, 10,080 points): a daily cycle (quiet at
night, a broad daytime rise with an evening shoulder), a weekly swing of the daily level
(lowest at the weekend), and noise of 12% per minute; a few minutes are missing. The
bench times, for ``--repeat`` rounds each: every model's ``fit`` (horizon: 3 hours) and
``choose`` with its default candidates (each fit on 6 days, scored on the last, the winner
refit on 7). It reports wall and CPU seconds (the machines are shared: CPU time is the
fairer figure) and the one-off statsmodels import. It checks that ``choose`` picks a
seasonal model whose hold-out error beats both naive baselines, and exits 1 otherwise.

Usage: python3 bench/forecast.py [--repeat 5] [--days 7] [--json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from podscale.forecast import ForecastError, Series
from podscale.forecast.select import BASELINES, FORECASTERS, choose

START = datetime(2026, 11, 16, tzinfo=UTC)  # a Monday
HORIZON = 180  # 3 hours of minutes
SEASONAL = ("holtWinters", "mstl", "dsp")


def history(days: int = 7, seed: int = 42) -> Series:
    minute = np.arange(days * 1440, dtype=np.float64)
    hour = (minute % 1440) / 60
    daytime = np.exp(-(((hour - 13) / 3.5) ** 2)) + 0.4 * np.exp(-(((hour - 20) / 2) ** 2))
    weekly = 1 + 0.15 * np.cos(2 * np.pi * (minute / 1440 - 2) / 7)  # peaks mid-week
    mean = (2.0 + 6.0 * daytime) * weekly
    rng = np.random.default_rng(seed)
    values = mean * (1 + rng.normal(0, 0.12, minute.shape))
    values[rng.choice(minute.shape[0], 40, replace=False)] = np.nan
    return Series(START, timedelta(minutes=1), values)


def timed(run: Callable[[], Any], repeat: int) -> tuple[list[float], list[float], Any]:
    """Wall and CPU seconds of ``repeat`` calls, and the last call's result."""
    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, result


def machine() -> dict[str, str]:
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": model,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "load": " ".join(f"{load:.1f}" for load in os.getloadavg()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds per measurement")
    parser.add_argument("--days", type=int, default=7, help="days of history (max 35)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    series = history(args.days)

    begin = time.perf_counter()
    # the import every process pays once, at its first fit
    for module in ("statsmodels.tsa.holtwinters", "statsmodels.tsa.seasonal"):
        importlib.import_module(module)

    import_seconds = time.perf_counter() - begin

    rows: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    for name in ("holtWinters", "mstl", "dsp", "seasonalNaive", "lastValue"):
        try:
            model = FORECASTERS[name]()
        except ImportError as error:
            rows[name] = {"skipped": f"not available ({error})"}
            continue
        try:
            model.fit(series, HORIZON)  # warm: first calls compile statsmodels' numba-free paths
        except ForecastError as error:
            # A model that declines this history (Crane's DSP finds no period in a random
            # walk) is not timed; choose below scores what declines as it does.
            rows[name] = {"skipped": f"no forecast ({error})"}
            continue
        walls, cpus, forecast = timed(lambda model=model: model.fit(series, HORIZON), args.repeat)
        if len(forecast) != HORIZON or not np.isfinite(forecast.mean).all():
            failures.append(f"{name}: a forecast of {len(forecast)} steps, or not finite")
        rows[name] = {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}

    walls, cpus, choice = timed(lambda: choose(series, HORIZON), args.repeat)
    rows["choose"] = {"wall": statistics.median(walls), "cpu": statistics.median(cpus)}
    if choice.model not in SEASONAL or choice.forecast is None:
        failures.append(f"choose picked no seasonal model: {choice.reason}")
    else:
        naive = min(choice.errors[name] for name in BASELINES)
        if not choice.errors[choice.model] < naive:
            failures.append(f"{choice.model}'s hold-out error is not below naive: {choice.reason}")

    if args.json:
        out = {
            "machine": machine(),
            "import_seconds": import_seconds,
            "fits": rows,
            "choice": {"model": choice.model, "errors": dict(choice.errors)},
            "reason": choice.reason,
            "failures": failures,
        }
        print(json.dumps(out, indent=2))
        return 1 if failures else 0
    print("machine:", ", ".join(f"{k}={v}" for k, v in machine().items()))
    print(f"statsmodels import (once per process): {import_seconds:.2f} s wall")
    points = f"{len(series):,}"
    print(f"| fit on {args.days} days per minute ({points} points), 180 ahead | wall s | CPU s |")
    print("|---|---|---|")
    for name, row in rows.items():
        if "skipped" in row:
            print(f"| {name} | {row['skipped']} | |")
        else:
            print(f"| {name} | {row['wall']:.3f} | {row['cpu']:.3f} |")
    print(f"choice: {choice.model}; {choice.reason}")
    for problem in failures:
        print("WRONG:", problem, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
