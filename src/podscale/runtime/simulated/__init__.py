"""The simulated cluster: nodes, a scheduler and kubelets that run against the API.

Async shells around the pure decisions of ``podscale.runtime.simulated.scheduling``,
``podscale.runtime.simulated.kubelet_state`` and ``podscale.runtime.simulated.node_objects``: they
read through shared informers and write through the API like the real components, on whatever clock
the loop has (virtual time or real time). ``usage.SimulatedUsage`` adds the kubelets' resource stats
and request rates from each workload's load. ``SimulatedCluster`` bundles them with fault injection;
``podscale.plane.embedded`` runs them with the store, API and controllers on one clock.
"""

from podscale.runtime.simulated.cluster import SimulatedCluster
from podscale.runtime.simulated.cluster_api import binding_for
from podscale.runtime.simulated.kubelets import DEFAULT_EVICTION_TIMEOUT, SimulatedKubelets
from podscale.runtime.simulated.nodes import (
    NODE_STATUS_REPORT_FREQUENCY,
    NodeSpec,
    SimulatedNodes,
    default_node_specs,
)
from podscale.runtime.simulated.profiles import (
    READINESS_DELAY_ANNOTATION,
    STARTUP_ANNOTATION,
    TERMINATION_ANNOTATION,
    profile_for,
)
from podscale.runtime.simulated.scheduler import DEFAULT_SCHEDULER_NAME, SimulatedScheduler
from podscale.runtime.simulated.usage import (
    DEFAULT_REQUEST_METRIC,
    IDLE_PROFILE,
    KubeletUnreachable,
    SimulatedUsage,
    WorkloadLoad,
)

__all__ = [
    "DEFAULT_EVICTION_TIMEOUT",
    "DEFAULT_REQUEST_METRIC",
    "DEFAULT_SCHEDULER_NAME",
    "IDLE_PROFILE",
    "NODE_STATUS_REPORT_FREQUENCY",
    "READINESS_DELAY_ANNOTATION",
    "STARTUP_ANNOTATION",
    "TERMINATION_ANNOTATION",
    "KubeletUnreachable",
    "NodeSpec",
    "SimulatedCluster",
    "SimulatedKubelets",
    "SimulatedNodes",
    "SimulatedScheduler",
    "SimulatedUsage",
    "WorkloadLoad",
    "binding_for",
    "default_node_specs",
    "profile_for",
]
