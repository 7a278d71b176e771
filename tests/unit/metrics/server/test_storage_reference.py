"""The storage's write side and the usage arithmetic against plain versions of their rules.

``pairing.previous_containers`` inlines its helpers (is the container fresh, which
stored point pairs with it), ``compute_usage`` its start-time test and ``go_seconds`` the
division of the total microseconds: each must answer exactly what the plain version does,
for any points (fresh, restarted, repeated, out of order, missing start times).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.metrics.server import FRESH_CONTAINER_MIN_AGE
from podscale.metrics.server.pairing import previous_containers, previous_pods
from podscale.metrics.server.points import MetricsPoint
from podscale.metrics.server.usage import UsageError, compute_usage, go_seconds

T0 = datetime(2026, 3, 1, tzinfo=UTC)
RESOLUTION = timedelta(seconds=15)

# -- the plain versions -------------------------------------------------------------------


def reference_go_seconds(duration: timedelta) -> float:
    micros = (duration.days * 86_400 + duration.seconds) * 1_000_000 + duration.microseconds
    whole, rest = divmod(micros, 1_000_000)
    return float(whole) + float(rest * 1000) / 1e9


def reference_previous_of(
    new: MetricsPoint, last: MetricsPoint | None, prev: MetricsPoint | None
) -> MetricsPoint | None:
    if last is None:
        return None
    if new.timestamp > last.timestamp:
        return last
    if prev is not None and prev.timestamp < new.timestamp:
        return prev
    return None


def reference_is_fresh(point: MetricsPoint) -> bool:
    if point.start_time is None or point.start_time >= point.timestamp:
        return False
    age = point.timestamp - point.start_time
    return FRESH_CONTAINER_MIN_AGE <= age < RESOLUTION


def reference_previous_containers(
    containers: Mapping[str, MetricsPoint],
    last: Mapping[str, MetricsPoint],
    prev: Mapping[str, MetricsPoint],
) -> dict[str, MetricsPoint]:
    chosen: dict[str, MetricsPoint] = {}
    for name, point in containers.items():
        if reference_is_fresh(point):
            assert point.start_time is not None
            chosen[name] = point._replace(timestamp=point.start_time, cumulative_cpu_used=0)
            continue
        stored = last.get(name)
        restarted = stored is None or (
            point.start_time is not None and point.start_time >= stored.timestamp
        )
        if restarted:
            continue
        previous = reference_previous_of(point, stored, prev.get(name))
        if previous is not None:
            chosen[name] = previous
    return chosen


def reference_started_before(last: datetime | None, prev: datetime | None) -> bool:
    if prev is None:
        return False
    return last is None or last < prev


# -- strategies ---------------------------------------------------------------------------

# Instants on a coarse grid around the scrapes, so that ties and the 10 s / 15 s edges occur.
_instants = st.integers(-4, 8).map(lambda k: T0 + timedelta(seconds=5 * k))
_points = st.builds(
    MetricsPoint,
    st.none() | _instants,
    _instants,
    st.integers(0, 3),
    st.integers(1, 3),
)
_containers = st.dictionaries(st.sampled_from(["a", "b", "c"]), _points, max_size=3)


@settings(max_examples=500, deadline=None)
@given(containers=_containers, last=_containers, prev=_containers)
def test_previous_containers_equal_the_plain_rules(
    containers: dict[str, MetricsPoint],
    last: dict[str, MetricsPoint],
    prev: dict[str, MetricsPoint],
) -> None:
    expected = reference_previous_containers(containers, last, prev)
    assert previous_containers(containers, last, prev, RESOLUTION) == expected


@settings(max_examples=500, deadline=None)
@given(st.integers(-(10**15), 10**15))
def test_go_seconds_equals_dividing_the_microseconds(micros: int) -> None:
    duration = timedelta(microseconds=micros)
    assert go_seconds(duration) == reference_go_seconds(duration)


@settings(max_examples=500, deadline=None)
@given(last=_points, prev=_points)
def test_compute_usage_refuses_and_rates_as_the_plain_rules(
    last: MetricsPoint, prev: MetricsPoint
) -> None:
    if reference_started_before(last.start_time, prev.start_time):
        with pytest.raises(UsageError, match="startTime"):
            compute_usage(last, prev)
        return
    if last.cumulative_cpu_used < prev.cumulative_cpu_used:
        with pytest.raises(UsageError, match="cumulative CPU"):
            compute_usage(last, prev)
        return
    window = last.timestamp - prev.timestamp
    if window <= timedelta(0):
        with pytest.raises(UsageError, match="out of order"):
            compute_usage(last, prev)
        return
    usage = compute_usage(last, prev)
    rate = float(last.cumulative_cpu_used - prev.cumulative_cpu_used) / reference_go_seconds(window)
    assert usage == (int(rate), last.memory_usage, last.timestamp, window)


@settings(max_examples=300, deadline=None)
@given(
    batch=st.dictionaries(st.sampled_from(["p", "q", "r"]), _containers, max_size=3),
    last=st.dictionaries(st.sampled_from(["p", "q", "s"]), _containers, max_size=3),
    prev=st.dictionaries(st.sampled_from(["p", "r", "s"]), _containers, max_size=3),
)
def test_previous_pods_equal_each_pods_previous_containers(
    batch: dict[str, dict[str, MetricsPoint]],
    last: dict[str, dict[str, MetricsPoint]],
    prev: dict[str, dict[str, MetricsPoint]],
) -> None:
    """``store``'s fused loop over a scrape's pods chooses, pod by pod and in the batch's
    order, what ``previous_containers`` chooses, and leaves out the pods with nothing."""
    keyed = [{("ns", name): points for name, points in d.items()} for d in (batch, last, prev)]
    expected = {}
    for key, containers in keyed[0].items():
        chosen = previous_containers(
            containers, keyed[1].get(key, {}), keyed[2].get(key, {}), RESOLUTION
        )
        if chosen:
            expected[key] = chosen
    got = previous_pods(keyed[0], keyed[1], keyed[2], RESOLUTION)
    assert list(got.items()) == list(expected.items())


def _pt(start: int | None, at: int, cpu: int = 1) -> MetricsPoint:
    """A point started at second ``start`` (None: unknown) and sampled at second ``at``."""
    return MetricsPoint(
        None if start is None else T0 + timedelta(seconds=start), T0 + timedelta(seconds=at), cpu, 1
    )


_STORED = {"a": _pt(0, 15), "b": _pt(0, 15)}
_EARLIER = {"a": _pt(0, 0), "b": _pt(0, 0)}


@pytest.mark.parametrize(
    ("batch", "reused"),
    [
        pytest.param({"a": _pt(0, 30, 2), "b": _pt(0, 30, 2)}, True, id="steady-state"),
        pytest.param({"b": _pt(0, 30, 2), "a": _pt(0, 30, 2)}, True, id="other-order"),
        pytest.param({"a": _pt(None, 30, 2), "b": _pt(0, 30, 2)}, True, id="no-start-time"),
        pytest.param({"a": _pt(0, 30, 2), "b": _pt(20, 30, 2)}, False, id="one-restarted"),
        pytest.param({"a": _pt(0, 30, 2), "b": _pt(18, 30, 2)}, False, id="one-fresh"),
        pytest.param({"a": _pt(0, 30, 2), "c": _pt(0, 30, 2)}, False, id="one-new"),
        pytest.param({"a": _pt(0, 30, 2)}, False, id="one-gone"),
        pytest.param({"a": _pt(0, 30), "b": _pt(0, 30), "c": _pt(0, 30)}, False, id="one-more"),
        pytest.param({"a": _pt(0, 15), "b": _pt(0, 15)}, False, id="same-sample-again"),
        pytest.param({"a": _pt(0, 10), "b": _pt(0, 30)}, False, id="one-older"),
    ],
)
def test_previous_pods_keep_the_stored_containers_only_when_all_pair_with_them(
    batch: dict[str, MetricsPoint], reused: bool
) -> None:
    """The steady state keeps the stored mapping itself; anything else is chosen container
    by container. Either way the pairs are what ``previous_containers`` chooses."""
    key = ("ns", "p")
    got = previous_pods({key: batch}, {key: _STORED}, {key: _EARLIER}, RESOLUTION)
    expected = previous_containers(batch, _STORED, _EARLIER, RESOLUTION)
    assert got.get(key, {}) == expected
    assert (got.get(key) is _STORED) is reused


_STORED_ONE = {"a": _pt(0, 15)}
_EARLIER_ONE = {"a": _pt(0, 0)}


@pytest.mark.parametrize(
    ("batch", "reused"),
    [
        pytest.param({"a": _pt(0, 30, 2)}, True, id="steady-state"),
        pytest.param({"a": _pt(None, 30, 2)}, True, id="no-start-time"),
        pytest.param({"a": _pt(20, 30, 2)}, False, id="restarted"),
        pytest.param({"a": _pt(18, 30, 2)}, False, id="fresh"),
        pytest.param({"a": _pt(15, 30, 2)}, False, id="started-at-the-stored-point"),
        pytest.param({"b": _pt(0, 30, 2)}, False, id="another-name"),
        pytest.param({"a": _pt(0, 15)}, False, id="same-sample-again"),
        pytest.param({"a": _pt(0, 10)}, False, id="older"),
        pytest.param({"a": _pt(0, 30), "b": _pt(0, 30)}, False, id="one-more"),
    ],
)
def test_previous_pods_of_one_container_as_each_pods_previous_containers(
    batch: dict[str, MetricsPoint], reused: bool
) -> None:
    """A pod of one container stored before (the fast path without the loop) pairs as
    ``previous_containers`` chooses; the stored mapping itself only in the steady state."""
    key = ("ns", "p")
    got = previous_pods({key: batch}, {key: _STORED_ONE}, {key: _EARLIER_ONE}, RESOLUTION)
    expected = previous_containers(batch, _STORED_ONE, _EARLIER_ONE, RESOLUTION)
    assert got.get(key, {}) == expected
    assert (got.get(key) is _STORED_ONE) is reused
