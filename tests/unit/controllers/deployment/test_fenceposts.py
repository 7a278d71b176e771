"""maxSurge / maxUnavailable resolution (``podscale.controllers.deployment.fenceposts``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment.fenceposts import (
    RECREATE,
    Strategy,
    max_surge,
    max_unavailable,
    resolve_fenceposts,
    scaled_value,
    strategy_of,
)

SCALED_CASES = [
    ("int passes through", 3, 10, True, 3),
    ("int ignores total", 7, 0, False, 7),
    ("25% of 10 rounds up to 3", "25%", 10, True, 3),
    ("25% of 10 rounds down to 2", "25%", 10, False, 2),
    ("exact percentage", "50%", 10, True, 5),
    ("100% of 4", "100%", 4, False, 4),
    ("1% of 1 rounds up to 1", "1%", 1, True, 1),
    ("1% of 1 rounds down to 0", "1%", 1, False, 0),
    ("0% is zero", "0%", 10, True, 0),
    ("signed percentage", "+10%", 10, True, 1),
]


@pytest.mark.parametrize(
    ("value", "total", "round_up", "expected"),
    [case[1:] for case in SCALED_CASES],
    ids=[case[0] for case in SCALED_CASES],
)
def test_scaled_value(value: int | str, total: int, round_up: bool, expected: int) -> None:
    assert scaled_value(value, total, round_up=round_up) == expected


BAD_VALUES = [
    ("no percent sign", "5", "invalid type: string is not a percentage"),
    ("word", "abc%", 'invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax'),
    ("space inside", " 5%", 'invalid value " 5%"'),
    ("underscore digits", "1_0%", 'invalid value "1_0%"'),
]


@pytest.mark.parametrize(
    ("value", "message"), [c[1:] for c in BAD_VALUES], ids=[c[0] for c in BAD_VALUES]
)
def test_scaled_value_rejects_malformed_strings(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^invalid value for IntOrString: ") as caught:
        scaled_value(value, 10, round_up=True)
    assert message in str(caught.value)


FENCEPOST_CASES = [
    ("defaults on 10 replicas: surge 3, unavailable 2", "25%", "25%", 10, (3, 2)),
    ("absolute values", 3, 2, 10, (3, 2)),
    ("both zero forces unavailable 1", 0, 0, 10, (0, 1)),
    ("percentages resolving to zero force 1", "0%", "10%", 5, (0, 1)),
    ("surge rounds up on 1 replica", "25%", "25%", 1, (1, 0)),
    ("absent values count as zero", None, None, 4, (0, 1)),
    ("zero replicas", "25%", "25%", 0, (0, 1)),
]


@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "expected"),
    [c[1:] for c in FENCEPOST_CASES],
    ids=[c[0] for c in FENCEPOST_CASES],
)
def test_resolve_fenceposts(
    surge: int | str | None, unavailable: int | str | None, desired: int, expected: tuple[int, int]
) -> None:
    assert resolve_fenceposts(surge, unavailable, desired) == expected


LIMIT_CASES = [
    ("rolling 10 replicas defaults", Strategy(), 10, 3, 2),
    ("recreate has no surge nor unavailability", Strategy(type=RECREATE), 10, 0, 0),
    ("scaled to zero has no unavailability", Strategy(), 0, 0, 0),
    ("unavailable capped at replicas", Strategy(max_surge=0, max_unavailable=5), 3, 0, 3),
]


@pytest.mark.parametrize(
    ("strategy", "replicas", "surge", "unavailable"),
    [c[1:] for c in LIMIT_CASES],
    ids=[c[0] for c in LIMIT_CASES],
)
def test_max_surge_and_unavailable(
    strategy: Strategy, replicas: int, surge: int, unavailable: int
) -> None:
    assert max_surge(strategy, replicas) == surge
    assert max_unavailable(strategy, replicas) == unavailable


STRATEGY_CASES: list[tuple[str, dict[str, Any], Strategy]] = [
    ("no strategy: apps/v1 defaults", {"spec": {}}, Strategy()),
    (
        "explicit rolling values",
        {"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": "10%"}}}},
        Strategy(max_surge=1, max_unavailable="10%"),
    ),
    (
        "recreate ignores rolling values",
        {"spec": {"strategy": {"type": "Recreate"}}},
        Strategy(type=RECREATE, max_surge=None, max_unavailable=None),
    ),
]


@pytest.mark.parametrize(
    ("deployment", "expected"), [c[1:] for c in STRATEGY_CASES], ids=[c[0] for c in STRATEGY_CASES]
)
def test_strategy_of(deployment: dict[str, Any], expected: Strategy) -> None:
    assert strategy_of(deployment) == expected


@given(st.integers(0, 100), st.integers(0, 10_000))
def test_round_up_and_down_bracket_the_exact_share(percent: int, total: int) -> None:
    down = scaled_value(f"{percent}%", total, round_up=False)
    up = scaled_value(f"{percent}%", total, round_up=True)
    assert down * 100 <= percent * total <= up * 100
    assert up - down in (0, 1)


@given(st.integers(0, 100), st.integers(0, 100), st.integers(0, 1000))
def test_fenceposts_never_both_zero(surge: int, unavailable: int, desired: int) -> None:
    resolved = resolve_fenceposts(f"{surge}%", f"{unavailable}%", desired)
    assert resolved != (0, 0)
