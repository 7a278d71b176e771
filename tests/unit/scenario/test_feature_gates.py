"""``spec.featureGates`` of a scenario: the gates over upstream's defaults, their validation,
and the plane ``plane_for`` builds with them (API server and HPA controller alike)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from podscale.api.feature_gates import (
    DEFAULT_FEATURE_GATES,
    HPA_CONFIGURABLE_TOLERANCE,
    HPA_SCALE_TO_ZERO,
    KNOWN_FEATURE_GATES,
)
from podscale.controllers.registry import ControllerContext
from podscale.hpa import Config
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import ScenarioError, parse_scenario
from podscale.scenario.run import plane_for

BASE: dict[str, Any] = {
    "apiVersion": "podscale.dev/v1alpha1",
    "kind": "Scenario",
    "metadata": {"name": "gates"},
    "spec": {"duration": "10m"},
}
SUPPORTED = ", ".join(f'"{g}"' for g in sorted(KNOWN_FEATURE_GATES))


def with_gates(gates: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["spec"]["featureGates"] = gates
    return doc


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (BASE, DEFAULT_FEATURE_GATES),
        (with_gates({}), DEFAULT_FEATURE_GATES),
        (with_gates({HPA_SCALE_TO_ZERO: True}), DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}),
        (with_gates({HPA_SCALE_TO_ZERO: False}), DEFAULT_FEATURE_GATES),
        (
            with_gates({HPA_CONFIGURABLE_TOLERANCE: False}),
            DEFAULT_FEATURE_GATES - {HPA_CONFIGURABLE_TOLERANCE},
        ),
    ],
    ids=[
        "absent-upstream-defaults",
        "empty-upstream-defaults",
        "alpha-scale-to-zero-on",
        "alpha-scale-to-zero-off-as-default",
        "beta-tolerance-off",
    ],
)
def test_the_gates_of_a_scenario(doc: dict[str, Any], expected: frozenset[str]) -> None:
    assert parse_scenario(doc).feature_gates == expected


@pytest.mark.parametrize(
    ("gates", "expected"),
    [
        (
            {"NoSuchGate": True},
            [f'spec.featureGates: Unsupported value: "NoSuchGate": supported values: {SUPPORTED}'],
        ),
        (
            {HPA_SCALE_TO_ZERO: "true"},
            ['spec.featureGates.HPAScaleToZero: Invalid value: "true": must be of type boolean'],
        ),
        (
            {HPA_SCALE_TO_ZERO: None},
            ["spec.featureGates.HPAScaleToZero: Invalid value: null: must be of type boolean"],
        ),
        (
            "HPAScaleToZero=true",
            [
                'spec.featureGates: Invalid value: "HPAScaleToZero=true": must be of type object',
            ],
        ),
    ],
    ids=["unknown-gate", "string-not-bool", "null-not-bool", "flag-string-not-map"],
)
def test_bad_gates_are_refused(tmp_path: Path, gates: Any, expected: list[str]) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(with_gates(gates), base_dir=tmp_path)
    assert [str(e) for e in caught.value.errors] == expected


@pytest.mark.parametrize(
    "options",
    [{}, {"hpa_config": Config(tolerance=0.2)}],
    ids=["default-hpa-config", "given-hpa-config-takes-the-scenario-gates"],
)
def test_the_plane_runs_with_the_scenario_gates(options: dict[str, Any]) -> None:
    scenario = parse_scenario(with_gates({HPA_SCALE_TO_ZERO: True}))
    contexts: list[ControllerContext] = []

    def record(context: ControllerContext) -> list[Any]:
        contexts.append(context)
        return []

    plane = plane_for(
        scenario, VirtualClock(DEFAULT_START), simulate=False, controllers=record, **options
    )
    assert HPA_SCALE_TO_ZERO in plane.api.state.feature_gates
    assert plane.api.state.feature_gates == scenario.feature_gates
    # The HPA controller decides under the gates the API server admitted with.
    assert contexts[0].hpa_config.feature_gates == scenario.feature_gates
    assert contexts[0].hpa_config.tolerance == options.get("hpa_config", Config()).tolerance
