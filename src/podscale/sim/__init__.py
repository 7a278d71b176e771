"""Simulation scenarios: the top layer that describes a whole simulated run.

``podscale.sim.scenario`` loads and validates scenario files (``load_scenario``) into the
frozen values of ``podscale.sim.scenario_model``; whoever runs the simulation (the
simulated cluster, ``podscale demo``) consumes those. Durations use Go's syntax
(``podscale.sim.durations``).
"""

from podscale.sim.durations import DurationError, parse_go_duration
from podscale.sim.scenario import ScenarioError, load_scenario, parse_scenario
from podscale.sim.scenario_model import (
    API_VERSION,
    KIND,
    Manifest,
    NodeSpec,
    Scenario,
    ScenarioEvent,
    Workload,
    WorkloadTarget,
)

__all__ = [
    "API_VERSION",
    "KIND",
    "DurationError",
    "Manifest",
    "NodeSpec",
    "Scenario",
    "ScenarioError",
    "ScenarioEvent",
    "Workload",
    "WorkloadTarget",
    "load_scenario",
    "parse_go_duration",
    "parse_scenario",
]
