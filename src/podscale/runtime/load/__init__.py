"""The load model of the simulated cluster: request-rate sources and per-pod usage.

``rates`` holds the synthetic shapes (constant, step, ramp, sine), ``traces`` replays
recorded request-rate files, ``usage`` turns a workload's rate into each pod's CPU and
memory usage and request rate, ``pods`` reads pod objects into the model. Scenarios
(``podscale.scenario.loader``) declare all of this; the simulated kubelets report the result.
"""

from podscale.runtime.load.pods import is_pod_ready, is_running, pod_load
from podscale.runtime.load.rates import (
    ConstantRate,
    PastRates,
    RampRate,
    RateSource,
    RateStep,
    SineRate,
    StepRate,
    rate_history,
)
from podscale.runtime.load.traces import TraceError, TraceRate, TraceSeries, load_trace
from podscale.runtime.load.usage import (
    ContainerCost,
    ContainerResources,
    ContainerUsage,
    DrawnRows,
    LoadProfile,
    PodLoad,
    PodUsage,
    UsagePlan,
    WorkloadDemand,
    compute_usage,
    draw_rows,
    draw_usage,
    plan_usage,
    spread_rate,
    usages_of,
)

__all__ = [
    "ConstantRate",
    "ContainerCost",
    "ContainerResources",
    "ContainerUsage",
    "DrawnRows",
    "LoadProfile",
    "PastRates",
    "PodLoad",
    "PodUsage",
    "RampRate",
    "RateSource",
    "RateStep",
    "SineRate",
    "StepRate",
    "TraceError",
    "TraceRate",
    "TraceSeries",
    "UsagePlan",
    "WorkloadDemand",
    "compute_usage",
    "draw_rows",
    "draw_usage",
    "is_pod_ready",
    "is_running",
    "load_trace",
    "plan_usage",
    "pod_load",
    "rate_history",
    "spread_rate",
    "usages_of",
]
