"""Upstream's min/max adjustment of an HPA target, over plain numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.cronhpa.hpa_target import HpaAdjustment, adjust


@pytest.mark.parametrize(
    ("desired", "low", "high", "current", "expected"),
    [
        (10, 2, 5, 3, HpaAdjustment(10, 10, True, True)),
        (4, 2, 10, 3, HpaAdjustment(4, 10, True, True)),
        (4, 2, 10, 6, HpaAdjustment(2, 10, False, False)),
        (1, 3, 10, 5, HpaAdjustment(1, 10, True, False)),
        (2, 3, 10, 3, HpaAdjustment(2, 10, True, False)),
        (3, 3, 10, 3, HpaAdjustment(3, 10, False, False)),
        (5, 5, 10, 2, HpaAdjustment(5, 10, False, True)),
        (0, 1, 10, 4, HpaAdjustment(0, 10, True, False)),
    ],
    ids=[
        "above-max-raises-max-and-min",
        "above-current-sets-min",
        "below-current-within-bounds-left-to-hpa",
        "below-min-lowers-min",
        "at-min-lowers-min-to-desired",
        "equal-everything-no-change",
        "current-below-min-scales-target-only",
        "zero-lowers-min-to-zero",
    ],
)
def test_adjust(desired: int, low: int, high: int, current: int, expected: HpaAdjustment) -> None:
    assert adjust(desired, low, high, current) == expected


@given(
    desired=st.integers(0, 50),
    low=st.integers(1, 20),
    span=st.integers(0, 20),
    current=st.integers(0, 60),
)
def test_the_desired_size_always_fits_the_new_bounds(
    desired: int, low: int, span: int, current: int
) -> None:
    result = adjust(desired, low, low + span, current)
    assert result.min_replicas <= desired <= result.max_replicas
    assert result.max_replicas >= low + span  # max is only ever raised
    assert result.scale_target == (current < desired)
    if current < desired:
        assert result.min_replicas == desired  # scaling up pins the minimum
