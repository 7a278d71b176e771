"""Who serves which load, and how intervals are cut (podscale.runtime.simulated.usage_loads)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import Selector, parse_selector
from podscale.runtime.load import ConstantRate, LoadProfile, PodLoad, SineRate
from podscale.runtime.simulated.running_pod import RunningPod
from podscale.runtime.simulated.usage_loads import (
    WorkloadLoad,
    _walk_steps,
    _whole_steps,
    assign_pods,
    grid_pieces,
    mean_rate,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def running(name: str, labels: dict[str, str], namespace: str = "default") -> RunningPod:
    return RunningPod(PodLoad(name, (), namespace), "", labels, None, {})


def load(name: str, namespace: str = "default") -> WorkloadLoad:
    return WorkloadLoad("Deployment", namespace, name, ConstantRate(1.0), LoadProfile())


PODS = {
    pod.key: pod
    for pod in [
        running("a-1", {"app": "a"}),
        running("a-2", {"app": "a", "tier": "web"}),
        running("b-1", {"app": "b"}),
        running("a-x", {"app": "a"}, namespace="other"),
    ]
}


@pytest.mark.parametrize(
    ("selectors", "expected", "idle"),
    [
        ({"a": "app=a", "b": "app=b"}, {"a": ["a-1", "a-2"], "b": ["b-1"]}, ["a-x"]),
        ({"a": "app=a", "web": "tier=web"}, {"a": ["a-1", "a-2"], "web": []}, ["b-1", "a-x"]),
        ({"a": None}, {"a": []}, ["a-1", "a-2", "b-1", "a-x"]),
    ],
    ids=["by-selector-and-namespace", "first-load-claims-a-shared-pod", "workload-gone"],
)
def test_assign_pods(
    selectors: dict[str, str | None], expected: dict[str, list[str]], idle: list[str]
) -> None:
    def selector_of(workload: WorkloadLoad) -> Selector | None:
        text = selectors[workload.name]
        return None if text is None else parse_selector(text)

    members, rest = assign_pods([load(n) for n in selectors], PODS, selector_of)
    assert {w.name: [p.name for p in pods] for w, pods in members} == expected
    assert [p.name for p in rest] == idle


@pytest.mark.parametrize(
    ("start", "end", "cuts"),
    [(0.0, 0.0, []), (0.5, 3.2, [1.0, 2.0, 3.0]), (1.0, 2.0, []), (1.0, 2.5, [2.0])],
    ids=["empty", "unaligned", "one-step", "aligned-start"],
)
def test_grid_pieces_cut_at_every_step(start: float, end: float, cuts: list[float]) -> None:
    pieces = grid_pieces(
        T0 + timedelta(seconds=start), T0 + timedelta(seconds=end), T0, timedelta(seconds=1)
    )
    assert [(b - T0).total_seconds() for b, _ in pieces[1:]] == cuts


@given(
    st.integers(0, 10_000), st.integers(0, 10_000), st.integers(1, 5_000), st.integers(-999, 999)
)
def test_grid_pieces_tile_the_interval(start: int, length: int, step: int, shift: int) -> None:
    begin = T0 + timedelta(milliseconds=start)
    end = begin + timedelta(milliseconds=length)
    origin = T0 + timedelta(milliseconds=shift)
    pieces = grid_pieces(begin, end, origin, timedelta(milliseconds=step))
    assert pieces[0][0] == begin
    assert pieces[-1][1] == end
    assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
    assert all(b - a <= timedelta(milliseconds=step) for a, b in pieces)
    assert all((a - origin) % timedelta(milliseconds=step) == timedelta(0) for a, _ in pieces[1:])


@given(
    st.integers(0, 100_000), st.integers(0, 100_000), st.integers(1, 5_000), st.integers(-999, 999)
)
def test_mean_rate_is_the_grid_pieces_at_their_start_rates(
    start: int, length: int, step: int, shift: int
) -> None:
    """One number for the interval, equal to crediting each grid piece on its own."""
    rate = SineRate(base=50.0, amplitude=40.0, period=timedelta(seconds=37))
    begin = T0 + timedelta(milliseconds=start)
    end = begin + timedelta(milliseconds=length)
    origin = T0 + timedelta(milliseconds=shift)
    grid = timedelta(milliseconds=step)
    got = mean_rate(rate, begin, end, origin, grid)
    if length == 0:
        assert got == rate.rate_at(begin - origin)
        return
    pieces = grid_pieces(begin, end, origin, grid)
    total = sum(rate.rate_at(a - origin) * (b - a).total_seconds() for a, b in pieces)
    assert got == pytest.approx(total / (end - begin).total_seconds(), rel=1e-9, abs=1e-9)


@given(
    st.integers(-(10**12), 10**12),
    st.integers(0, 10**9),
    st.integers(1, 3_600),
)
def test_whole_steps_count_out_the_walked_grid(start_us: int, length_us: int, step: int) -> None:
    """On a step of whole seconds, the cuts counted out by ``range`` are the walked ones:
    the same starts and lengths, float for float."""
    t = timedelta(microseconds=start_us).total_seconds()
    stop = timedelta(microseconds=start_us + length_us).total_seconds()
    step_s = float(step)
    cut = (t // step_s + 1) * step_s
    assert _whole_steps(t, cut, stop, step_s) == _walk_steps(t, cut, stop, step_s)
