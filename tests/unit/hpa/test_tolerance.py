"""Per-direction tolerances (``podscale.hpa.tolerance``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.feature_gates import HPA_CONFIGURABLE_TOLERANCE
from podscale.hpa.tolerance import format_tolerances, is_within, tolerances_for
from podscale.hpa.types import Config

GATED = Config(tolerance=0.1, feature_gates=frozenset({HPA_CONFIGURABLE_TOLERANCE}))
UNGATED = Config(tolerance=0.1, feature_gates=frozenset())

TOLERANCE_CASES = [
    ("no behavior", None, GATED, (0.1, 0.1)),
    ("empty behavior", {}, GATED, (0.1, 0.1)),
    ("rules without tolerance", {"scaleUp": {"policies": []}}, GATED, (0.1, 0.1)),
    ("scale-up only", {"scaleUp": {"tolerance": "0.05"}}, GATED, (0.1, 0.05)),
    ("scale-down only", {"scaleDown": {"tolerance": "200m"}}, GATED, (0.2, 0.1)),
    (
        "both directions",
        {"scaleDown": {"tolerance": "0.3"}, "scaleUp": {"tolerance": "0"}},
        GATED,
        (0.3, 0.0),
    ),
    ("bare number", {"scaleUp": {"tolerance": 0.25}}, GATED, (0.1, 0.25)),
    ("gate off ignores behavior", {"scaleUp": {"tolerance": "0.05"}}, UNGATED, (0.1, 0.1)),
    ("controller default used", None, Config(tolerance=0.2), (0.2, 0.2)),
]


@pytest.mark.parametrize(
    ("behavior", "config", "expected"),
    [case[1:] for case in TOLERANCE_CASES],
    ids=[case[0] for case in TOLERANCE_CASES],
)
def test_tolerances_for(
    behavior: dict[str, Any] | None, config: Config, expected: tuple[float, float]
) -> None:
    assert tolerances_for(behavior, config) == pytest.approx(expected)


def test_configurable_tolerance_gate_is_on_by_default() -> None:
    assert tolerances_for({"scaleUp": {"tolerance": "0.05"}}, Config()) == pytest.approx(
        (0.1, 0.05)
    )


@pytest.mark.parametrize(
    ("tolerances", "ratio", "expected"),
    [
        ((0.1, 0.1), 1.0, True),
        ((0.1, 0.1), 1.1, True),
        ((0.1, 0.1), 0.9, True),
        ((0.1, 0.1), 1.1000001, False),
        ((0.1, 0.1), 0.8999999, False),
        ((0.0, 0.5), 0.99, False),
        ((0.0, 0.5), 1.5, True),
        ((0.5, 0.0), 1.01, False),
        ((0.5, 0.0), 0.5, True),
        ((0.1, 0.1), float("nan"), False),
    ],
    ids=[
        "exact",
        "upper bound inclusive",
        "lower bound inclusive",
        "just above",
        "just below",
        "no scale-down slack",
        "wide scale-up slack",
        "no scale-up slack",
        "wide scale-down slack",
        "nan never within",
    ],
)
def test_is_within(tolerances: tuple[float, float], ratio: float, expected: bool) -> None:
    assert is_within(tolerances, ratio) is expected


@given(
    down=st.floats(0, 1),
    up=st.floats(0, 10),
    extra=st.floats(0, 1),
    ratio=st.floats(0, 20, allow_nan=False),
)
def test_band_contains_one_and_only_grows_with_tolerance(
    down: float, up: float, extra: float, ratio: float
) -> None:
    assert is_within((down, up), 1.0)
    if is_within((down, up), ratio):
        assert is_within((down + extra, up + extra), ratio)


@pytest.mark.parametrize(
    ("tolerances", "expected"),
    [((0.1, 0.1), "[down:10.0%, up:10.0%]"), ((0.025, 0.5), "[down:2.5%, up:50.0%]")],
    ids=["default", "asymmetric"],
)
def test_format_tolerances(tolerances: tuple[float, float], expected: str) -> None:
    assert format_tolerances(tolerances) == expected
