"""``spec.behavior`` rules of HPA validation, and the ``HPAConfigurableTolerance`` drop.

Expected texts follow upstream validateScalingRules/validateScalingPolicy; the tolerance gate
follows the registry strategy's dropDisabledFields (drop, never reject).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_CONFIGURABLE_TOLERANCE
from podscale.api.validation.hpa import validate_hpa
from podscale.api.validation.hpa_behavior import (
    drop_disabled_fields,
    keeps_tolerance,
    tolerance_in_use,
)

GATE_OFF = DEFAULT_FEATURE_GATES - {HPA_CONFIGURABLE_TOLERANCE}
GATE_ON = DEFAULT_FEATURE_GATES | {HPA_CONFIGURABLE_TOLERANCE}


def _hpa(behavior: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
            "behavior": behavior,
        },
    }


def _errors(behavior: Any, **kwargs: Any) -> list[str]:
    return [str(e) for e in validate_hpa(_hpa(behavior), **kwargs)]


def _up(**rules: Any) -> dict[str, Any]:
    return {"scaleUp": rules}


def _policy(**fields: Any) -> dict[str, Any]:
    policy: dict[str, Any] = {"type": "Pods", "value": 4, "periodSeconds": 60}
    policy.update(fields)
    return {"scaleUp": {"policies": [{k: v for k, v in policy.items() if v is not None}]}}


ERROR_CASES = [
    (
        "period-too-long",
        _policy(periodSeconds=1801),
        [
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less "
            "than or equal to 1800"
        ],
    ),
    (
        "period-zero",
        _policy(periodSeconds=0),
        [
            "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater "
            "than zero"
        ],
    ),
    (
        "value-zero",
        _policy(value=0),
        ["spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero"],
    ),
    (
        "value-missing-reads-as-zero",
        _policy(value=None),
        ["spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero"],
    ),
    (
        "policy-type-unsupported",
        _policy(type="Foo"),
        [
            'spec.behavior.scaleUp.policies[0].type: Unsupported value: "Foo": supported values: '
            '"Percent", "Pods"'
        ],
    ),
    (
        "window-negative",
        {"scaleDown": {"stabilizationWindowSeconds": -1}},
        [
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be "
            "greater than or equal to zero"
        ],
    ),
    (
        "window-too-long",
        {"scaleDown": {"stabilizationWindowSeconds": 3601}},
        [
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less "
            "than or equal to 3600"
        ],
    ),
    (
        "select-policy-unsupported",
        _up(selectPolicy="Foo"),
        [
            'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Foo": supported values: '
            '"Disabled", "Max", "Min"'
        ],
    ),
    (
        "policies-explicitly-empty",
        _up(policies=[]),
        ["spec.behavior.scaleUp.policies: Required value: must specify at least one Policy"],
    ),
    (
        "select-policy-not-a-string",
        _up(selectPolicy=["Max"]),
        [
            'spec.behavior.scaleUp.selectPolicy: Unsupported value: ["Max"]: supported values: '
            '"Disabled", "Max", "Min"'
        ],
    ),
    (
        "policy-type-not-a-string",
        _policy(type={"a": 1}),
        [
            'spec.behavior.scaleUp.policies[0].type: Unsupported value: {"a":1}: supported '
            'values: "Percent", "Pods"'
        ],
    ),
    (
        "tolerance-unparseable",
        {"scaleDown": {"tolerance": "ten"}},
        [
            'spec.behavior.scaleDown.tolerance: Invalid value: "ten": quantities must match the '
            "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ],
    ),
    (
        "tolerance-negative",
        {"scaleDown": {"tolerance": "-1"}},
        [
            'spec.behavior.scaleDown.tolerance: Invalid value: "-1": must be greater than or equal '
            "to 0"
        ],
    ),
    (
        "both-directions-reported-up-first",
        {"scaleDown": {"selectPolicy": "x"}, "scaleUp": {"policies": []}},
        [
            "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
            'spec.behavior.scaleDown.selectPolicy: Unsupported value: "x": supported values: '
            '"Disabled", "Max", "Min"',
        ],
    ),
]


@pytest.mark.parametrize(
    ("behavior", "expected"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_behavior_rule(behavior: dict[str, Any], expected: list[str]) -> None:
    assert _errors(behavior) == expected


VALID_CASES = [
    ("absent", None),
    ("empty", {}),
    ("rules-without-policies-are-defaulted-later", _up(stabilizationWindowSeconds=0)),
    (
        "window-bounds",
        {
            "scaleUp": {"stabilizationWindowSeconds": 0},
            "scaleDown": {"stabilizationWindowSeconds": 3600},
        },
    ),
    (
        "period-bounds",
        {
            "scaleUp": {
                "policies": [
                    {"type": "Percent", "value": 1, "periodSeconds": 1},
                    {"type": "Pods", "value": 1, "periodSeconds": 1800},
                ]
            }
        },
    ),
    ("tolerance-zero", {"scaleUp": {"tolerance": "0"}}),
    ("tolerance-fraction", {"scaleUp": {"tolerance": "0.05"}, "scaleDown": {"tolerance": 0.2}}),
    ("select-disabled", _up(selectPolicy="Disabled")),
]


@pytest.mark.parametrize("behavior", [c[1] for c in VALID_CASES], ids=[c[0] for c in VALID_CASES])
def test_valid_behavior(behavior: Any) -> None:
    assert _errors(behavior) == []


@given(window=st.integers(min_value=-10_000, max_value=10_000))
def test_window_error_iff_out_of_range(window: int) -> None:
    errors = _errors({"scaleDown": {"stabilizationWindowSeconds": window}})
    assert bool(errors) == (window < 0 or window > 3600)


@given(period=st.integers(min_value=-5_000, max_value=5_000))
def test_period_error_iff_out_of_range(period: int) -> None:
    errors = _errors(_policy(periodSeconds=period))
    assert bool(errors) == (period < 1 or period > 1800)


NEGATIVE_TOLERANCE = {"scaleUp": {"tolerance": "-0.5"}}
TOLERANCE_ERROR = (
    # Printed as upstream's Quantity.String(): the canonical "-500m", not the input text.
    'spec.behavior.scaleUp.tolerance: Invalid value: "-500m": must be greater than or equal to 0'
)


@pytest.mark.parametrize(
    ("gates", "old_behavior", "expected"),
    [
        (GATE_ON, None, [TOLERANCE_ERROR]),
        (GATE_OFF, None, []),
        (GATE_OFF, {"scaleDown": {"tolerance": "0.1"}}, [TOLERANCE_ERROR]),
        (GATE_OFF, {"scaleDown": {"stabilizationWindowSeconds": 60}}, []),
    ],
    ids=["gate-on-checked", "gate-off-create-dropped", "gate-off-old-uses-it", "gate-off-old-no"],
)
def test_tolerance_checked_only_when_it_survives(
    gates: frozenset[str], old_behavior: Any, expected: list[str]
) -> None:
    old = _hpa(old_behavior) if old_behavior is not None else None
    if old is None:
        assert _errors(NEGATIVE_TOLERANCE, feature_gates=gates) == expected
    else:
        new = _hpa(NEGATIVE_TOLERANCE)
        assert [str(e) for e in validate_hpa(new, old=old, feature_gates=gates)] == expected


def test_drop_disabled_fields_removes_tolerance_only() -> None:
    obj = _hpa(
        {"scaleUp": {"tolerance": "0.1", "selectPolicy": "Max"}, "scaleDown": {"tolerance": 1}}
    )
    before = copy.deepcopy(obj)
    dropped = drop_disabled_fields(obj, None, GATE_OFF)
    assert obj == before, "input must not be mutated"
    assert dropped["spec"]["behavior"] == {"scaleUp": {"selectPolicy": "Max"}, "scaleDown": {}}
    assert not tolerance_in_use(dropped)


@pytest.mark.parametrize(
    ("gates", "old", "kept"),
    [
        (GATE_ON, None, True),
        (GATE_OFF, None, False),
        (GATE_OFF, _hpa({"scaleUp": {"tolerance": "0"}}), True),
        (GATE_OFF, _hpa({"scaleUp": {}}), False),
    ],
    ids=["gate-on", "gate-off-create", "gate-off-old-uses", "gate-off-old-does-not"],
)
def test_drop_disabled_fields_keeps_when_allowed(
    gates: frozenset[str], old: dict[str, Any] | None, kept: bool
) -> None:
    obj = _hpa({"scaleUp": {"tolerance": "0.1"}, "x-unknown": {"kept": True}})
    dropped = drop_disabled_fields(obj, old, gates)
    assert keeps_tolerance(old, gates) is kept
    assert tolerance_in_use(dropped) is kept
    assert dropped["spec"]["behavior"]["x-unknown"] == {"kept": True}
