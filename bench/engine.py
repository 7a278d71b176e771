"""Decision-engine throughput: how many ``decide()`` calls per second on one core.

Workloads:
  (a) a 10-pod HPA on one CPU utilization metric with upstream's default behavior, spelled
      out (``behavior: {}``, defaulted to upstream's policies: the behavior path);
  (a') the same HPA with no ``behavior`` at all (upstream's legacy normalization path);
  (b) a 100-pod HPA on three metrics: cpu, a Pods metric and an External metric.
Each decision starts from what a controller syncing every 15 s holds in its steady state:
a history with a recommendation every 15 s over the last 5 minutes plus a few scale
events, and the HPA carrying the status its previous sync wrote.
Time is virtual and advances by 1 ms per call, as a real controller's clock would (a fixed
``now`` let every cache keyed on it hit, which flattered the engine by 8%); the engine never
reads the clock, so results are repeatable. Every workload's decision is checked (the
replica count it is built to ask for, no error) and the script exits 1 when one is wrong.

Usage: python3 bench/engine.py [--seconds 2] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.hpa import (
    Config,
    History,
    Recommendation,
    ScaleEvent,
    StaticMetricsSource,
    decide,
)
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)


def _history(replicas: int) -> History:
    recs = [Recommendation(replicas, NOW - timedelta(seconds=15 * i)) for i in range(1, 21)]
    ups = [ScaleEvent(2, NOW - timedelta(seconds=40)), ScaleEvent(1, NOW - timedelta(minutes=3))]
    return History(recs, ups, [ScaleEvent(1, NOW - timedelta(minutes=8))])


def _steady(hpa: dict[str, Any], **inputs: Any) -> Callable[[], Any]:
    """A decide() call on ``hpa`` as it looks after one earlier sync wrote its status."""
    first = decide(hpa, **inputs)
    synced = {**hpa, "status": first.status}
    start: datetime = inputs.pop("now")
    calls = itertools.count(1)

    def run() -> Any:
        return decide(synced, now=start + timedelta(milliseconds=next(calls)), **inputs)

    return run


def workload_a(behavior: dict[str, Any] | None = None) -> Callable[[], Any]:
    """10 pods, cpu at 70% of request against a 50% target."""
    count = 10
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(count)]
    source = StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": 70} for i in range(count)}}
    )
    hpa = make_hpa(metrics=[cpu_metric(50)], max_replicas=100, behavior=behavior)
    return _steady(
        hpa,
        scale=make_scale(count),
        pods=pods,
        metrics=source,
        history=_history(count),
        now=NOW,
        config=Config(),
    )


def workload_b() -> Callable[[], Any]:
    """100 pods on cpu, a Pods metric and an External metric."""
    count = 100
    names = [f"web-{i}" for i in range(count)]
    pods = [make_pod(name, now=NOW) for name in names]
    source = StaticMetricsSource(
        timestamp=NOW,
        resources={"cpu": {n: {"app": 60 + i % 30} for i, n in enumerate(names)}},
        pods={"http_requests": {n: 9000 + 10 * (i % 50) for i, n in enumerate(names)}},
        externals={"queue_depth": [1_200_000, 800_000]},
    )
    metrics = [
        cpu_metric(50),
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "http_requests"},
                "target": {"type": "AverageValue", "averageValue": "10"},
            },
        },
        {
            "type": "External",
            "external": {
                "metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": "work"}}},
                "target": {"type": "AverageValue", "averageValue": "20"},
            },
        },
    ]
    hpa = make_hpa(metrics=metrics, max_replicas=500, behavior={})
    return _steady(
        hpa,
        scale=make_scale(count),
        pods=pods,
        metrics=source,
        history=_history(count),
        now=NOW,
        config=Config(),
    )


def measure(run: Callable[[], Any], seconds: float, repeat: int) -> list[float]:
    """Decisions per second for ``repeat`` rounds of about ``seconds`` each."""
    run()  # warm caches (quantity parsing, selector compilation)
    start = time.perf_counter()
    calls = 0
    while time.perf_counter() - start < 0.2:
        run()
        calls += 1
    per_round = max(1, int(calls / 0.2 * seconds))
    rates = []
    for _ in range(repeat):
        begin = time.perf_counter()
        for _ in range(per_round):
            run()
        rates.append(per_round / (time.perf_counter() - begin))
    return rates


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
        "implementation": platform.python_implementation(),
        "system": f"{platform.system()} {platform.release()}",
    }


# What each workload decides: (rescale, desired replicas).
EXPECTED = {"a": (True, 14), "a-legacy": (True, 14), "b": (True, 146)}


def wrong_decision(key: str, run: Callable[[], Any]) -> str | None:
    """Why ``run``'s decision is not what workload ``key`` is built for (None: it is)."""
    decision = run()
    got = (decision.rescale, decision.desired_replicas)
    if decision.error is not None or got != EXPECTED[key]:
        return f"{key}: decided {got} (error {decision.error!r}), expected {EXPECTED[key]}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one round")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per workload")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    goals = {"a": 20_000, "a-legacy": 20_000, "b": 2_000}
    results = {}
    failures: list[str] = []
    for key, build, title in (
        ("a", lambda: workload_a({}), "(a) 10 pods, cpu, default behavior"),
        ("a-legacy", workload_a, "(a') 10 pods, cpu, no behavior (legacy path)"),
        ("b", workload_b, "(b) 100 pods, cpu + Pods + External"),
    ):
        run = build()
        rates = measure(run, args.seconds, args.repeat)
        if (problem := wrong_decision(key, run)) is not None:
            failures.append(problem)
        results[key] = {
            "title": title,
            "median": statistics.median(rates),
            "best": max(rates),
            "worst": min(rates),
            "goal": goals[key],
        }
    if args.json:
        out = {"machine": machine(), "results": results, "failures": failures}
        print(json.dumps(out, indent=2))
        return 1 if failures else 0
    print("machine:", ", ".join(f"{k}={v}" for k, v in machine().items()))
    print("| workload | median decisions/s | best | worst | goal | median / goal |")
    print("|---|---|---|---|---|---|")
    for r in results.values():
        print(
            f"| {r['title']} | {r['median']:,.0f} | {r['best']:,.0f} | {r['worst']:,.0f} "
            f"| {r['goal']:,} | {r['median'] / r['goal']:.2f}x |"
        )
    for problem in failures:
        print("WRONG:", problem, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
