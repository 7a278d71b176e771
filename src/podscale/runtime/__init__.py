"""The runtime: where the control plane runs, on virtual time or on real time.

``virtual_time`` is the event loop whose clock jumps to the next timer; ``clocks`` reads it
as a ``Clock``; ``kernel`` runs a program on it or on a normal asyncio loop. ``simulated``
is the cluster (nodes, scheduler, kubelets) and ``load`` the request-rate and usage model;
``podscale.plane.embedded`` puts store, API, controllers and simulated cluster together on
one clock.
"""

from podscale.runtime.clocks import VirtualClock, current_clock
from podscale.runtime.kernel import run, run_virtual
from podscale.runtime.simulated import NodeSpec, SimulatedCluster
from podscale.runtime.virtual_time import DEFAULT_START, VirtualTimeLoop

__all__ = [
    "DEFAULT_START",
    "NodeSpec",
    "SimulatedCluster",
    "VirtualClock",
    "VirtualTimeLoop",
    "current_clock",
    "run",
    "run_virtual",
]
