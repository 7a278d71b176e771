"""``request_rates``: a rate per ready pod from its second publish on, over its own window,
in milli-units, and every member pod's publish recorded (ready or not, pushing or not)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.runtime.load import PodLoad
from podscale.runtime.simulated.request_rates import Published, request_rates

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = T0 + timedelta(seconds=15)
MEMBERS: Any = [(None, [PodLoad("a", ()), PodLoad("b", (), ready=False)])]
MEMBERS_B: Any = [(None, [PodLoad("c", (), namespace="other")])]
# Namespaces alternating from pod to pod and from load to load.
MEMBERS_MIXED: Any = [
    (None, [PodLoad("a", ()), PodLoad("c", (), namespace="other"), PodLoad("d", ())]),
    (None, [PodLoad("e", (), namespace="other"), PodLoad("f", ())]),
]


@pytest.mark.parametrize(
    ("members", "served", "before", "pushing", "expected"),
    [
        (MEMBERS, {"a": 30.0, "b": 45.0}, {}, True, {}),
        (
            MEMBERS,
            {"a": 30.0, "b": 45.0},
            {"a": (T0, 0.0), "b": (T0, 0.0)},
            True,
            {"default": {"a": ("2000m", 15)}},
        ),
        (MEMBERS, {"a": 30.0}, {"a": (T0, 0.0)}, False, {}),
        (
            MEMBERS_B,
            {"c": 10.0},
            {"c": (T0 + timedelta(seconds=5), 5.0)},
            True,
            {"other": {"c": ("500m", 10)}},
        ),
        (
            MEMBERS_MIXED,
            {"a": 15.0, "c": 30.0, "d": 45.0, "e": 60.0, "f": 75.0},
            dict.fromkeys("acdef", (T0, 0.0)),
            True,
            {
                "default": {"a": ("1000m", 15), "d": ("3000m", 15), "f": ("5000m", 15)},
                "other": {"c": ("2000m", 15), "e": ("4000m", 15)},
            },
        ),
    ],
    ids=[
        "first-publish-only-starts",
        "second-publish-rates",
        "not-pushing",
        "own-window",
        "namespaces-alternate",
    ],
)
def test_request_rates(
    members: Any,
    served: dict[str, float],
    before: dict[str, tuple[datetime, float]],
    pushing: bool,
    expected: dict[str, dict[str, tuple[str, int]]],
) -> None:
    namespaces = {pod.name: pod.namespace for _, pods in members for pod in pods}
    published: Published = {(namespaces[n], n): mark for n, mark in before.items()}
    by_key = {(namespaces[n], n): v for n, v in served.items() if n in namespaces}
    rates = request_rates(members, by_key, published, T1, pushing)
    assert rates == expected
    assert published == {(namespaces[n], n): (T1, served.get(n, 0.0)) for n in namespaces}
