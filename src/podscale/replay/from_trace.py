"""The scenario behind ``podscale replay --trace FILE``: one Deployment under a recorded load.

``trace_scenario`` writes the scenario document a user would otherwise write by hand (see
docs/replay.md, which shows it as a file) and validates it with
``podscale.scenario.loader.parse_scenario``, so a bad flag is reported like a bad scenario
field. The Deployment ``app`` has one container ``app`` requesting ``request`` CPU (limit
``limit``, by default the request); each request/s of the trace costs it ``cpu_per_request``;
its pods need ``startup`` from creation to Ready. The HPA is upstream's default one (CPU
50%, ``min_replicas``..``max_replicas``, no behavior) unless ``--autoscaler`` files replace
it. The nodes are sized so that ``max_replicas`` pods fit: the cluster never limits scaling.
``history`` is the scenario's ``spec.history``: the trace before the run's start written to
the history store first, for forecasting autoscalers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from podscale.api.quantity import parse_quantity
from podscale.runtime.load import TraceRate
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Scenario

__all__ = ["TraceWorkload", "trace_scenario"]

_NODE_CPU_MILLI: Final = 64_000
_NODE_PODS: Final = 110
NAME: Final = "app"


@dataclass(frozen=True, slots=True)
class TraceWorkload:
    """The shorthand's flags (quantities and durations as the user wrote them)."""

    trace: Path
    cpu_per_request: str
    request: str
    startup: str = "90s"
    limit: str | None = None
    replicas: int = 1
    min_replicas: int = 1
    max_replicas: int = 100
    time_scale: float = 1.0
    rate_scale: float = 1.0
    request_type: str | None = None
    seed: int = 0
    noise: float = 0.05
    history: str | None = None  # the scenario's spec.history (e.g. "7d")


def _node_count(workload: TraceWorkload) -> int:
    request = parse_quantity(workload.request).milli_value()
    by_cpu = math.ceil(workload.max_replicas * max(request, 1) / _NODE_CPU_MILLI)
    by_pods = math.ceil(workload.max_replicas / (_NODE_PODS - 10))
    return max(1, by_cpu, by_pods)


def _duration_minutes(workload: TraceWorkload) -> int:
    rate = TraceRate(
        workload.trace.resolve(), request_type=workload.request_type, time_scale=workload.time_scale
    )
    return max(1, int(rate.series().span / workload.time_scale // 60))


def scenario_document(workload: TraceWorkload) -> dict[str, Any]:
    """The scenario file the flags stand for, as a decoded YAML document."""
    resources = {
        "requests": {"cpu": workload.request},
        "limits": {"cpu": workload.limit or workload.request},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": NAME},
        "spec": {
            "replicas": workload.replicas,
            "selector": {"matchLabels": {"app": NAME}},
            "template": {
                "metadata": {"labels": {"app": NAME}},
                "spec": {"containers": [{"name": NAME, "image": NAME, "resources": resources}]},
            },
        },
    }
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": NAME},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": NAME},
            "minReplicas": workload.min_replicas,
            "maxReplicas": workload.max_replicas,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
        },
    }
    load: dict[str, Any] = {
        "type": "trace",
        "path": str(workload.trace.resolve()),
        "timeScale": workload.time_scale,
        "rateScale": workload.rate_scale,
    }
    if workload.request_type is not None:
        load["requestType"] = workload.request_type
    history = {"history": workload.history} if workload.history is not None else {}
    return {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "trace"},
        "spec": {
            "seed": workload.seed,
            "duration": f"{_duration_minutes(workload)}m",
            **history,
            "nodes": {
                "count": _node_count(workload),
                "capacity": {"cpu": "64", "memory": "256Gi", "pods": _NODE_PODS},
            },
            "pods": {"startupDelay": workload.startup, "readinessDelay": "0s"},
            "manifests": [deployment, hpa],
            "workloads": [
                {
                    "target": {"kind": "Deployment", "name": NAME},
                    "load": load,
                    "containers": [{"name": NAME, "perRequest": {"cpu": workload.cpu_per_request}}],
                    "noise": {"stddev": workload.noise},
                }
            ],
        },
    }


def trace_scenario(workload: TraceWorkload) -> Scenario:
    """The validated scenario; raises ``ScenarioError`` (or ``TraceError``, ``ValueError``
    for a quantity) naming what is wrong."""
    return parse_scenario(scenario_document(workload), base_dir=workload.trace.resolve().parent)
