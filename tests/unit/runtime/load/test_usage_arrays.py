"""``usage_arrays.draw_arrays`` (numpy) against a copy of ``usage.draw_rows``' per-container
loop as it was before it: the same generator calls in the same order, and every usage equal
bit for bit (-0.0 and infinities included; NaN as NaN, see ``_bits``), with limits or none,
stddevs zero, negative, NaN or underflowing, noise that is NaN, negative or -0.0, and full
nodes."""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.load.node_caps import apply_node_caps_grouped
from podscale.runtime.load.usage import UsagePlan, _PlannedPod, draw_rows
from podscale.runtime.load.usage_arrays import ARRAY_ROWS, draw_arrays, plan_arrays
from podscale.runtime.simulated.resources import Resources


def reference_rows(
    plan: UsagePlan,
    rates: Sequence[float],
    allocatable: Mapping[str, Resources],
    rng: random.Random,
    samples: float,
) -> tuple[list[float], list[float]]:
    """``draw_rows``' loop before numpy (the reference)."""
    shares = [rate / ready if ready else 0.0 for rate, ready in zip(rates, plan.ready, strict=True)]
    cpu_spread = 1.0 / math.sqrt(samples) if samples > 1.0 else 1.0
    cpu: list[float] = []
    memory: list[float] = []
    for _, _, _, workload, ready, stddev, rows in plan.pods:
        share = shares[workload] if ready else 0.0
        cpu_stddev = stddev * cpu_spread
        for _, cpu_base, cpu_per_rps, memory_base, memory_per_rps, cpu_limit, memory_limit in rows:
            if cpu_stddev > 0:
                noise = rng.gauss(1.0, cpu_stddev)
                if not noise > 0.0:
                    noise = 0.0
            else:
                noise = 1.0
            demand = (cpu_base + cpu_per_rps * share) * noise
            cpu.append(demand if cpu_limit is None or not cpu_limit < demand else cpu_limit)
            if stddev > 0:
                noise = rng.gauss(1.0, stddev)
                if not noise > 0.0:
                    noise = 0.0
            else:
                noise = 1.0
            demand = (memory_base + memory_per_rps * share) * noise
            memory.append(
                demand if memory_limit is None or not memory_limit < demand else memory_limit
            )
    apply_node_caps_grouped(
        plan.node_rows, (cpu, memory), (plan.cpu_weight, plan.memory_weight), allocatable
    )
    return cpu, memory


class _OddNoise(random.Random):
    """A generator whose draws are sometimes NaN, -0.0, 0.0, negative or infinite."""

    def __init__(self, seed: int, odd: Sequence[float]) -> None:
        super().__init__(seed)
        self._odd = list(odd)
        self._calls = 0

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        self._calls += 1
        drawn = super().gauss(mu, sigma)
        if self._odd and self._calls % 3 == 0:
            return self._odd[self._calls % len(self._odd)]
        return drawn


def _bits(values: Sequence[float]) -> list[bytes | str]:
    """Each value's bits; a NaN as just NaN: of two NaNs combined (``nan * -nan``) the
    hardware keeps either one's sign and payload, by operand order, which the compiled loops
    of numpy and Python's float need not share, and no output can tell them apart
    (``floor`` raises, ``repr`` and JSON print any NaN alike)."""
    return ["nan" if math.isnan(v) else struct.pack("<d", v) for v in values]


_special = st.sampled_from([0.0, -0.0, math.inf, math.nan, 1e-320, 5e-324])
_cost = st.floats(0, 1e6) | _special
_limit = st.none() | st.floats(0, 2000) | st.sampled_from([0.0, math.inf])
_stddev = st.sampled_from([0.0, -0.0, -0.2, 0.1, 0.5, 3.0, math.nan, 1e-320, 5e-324])
_row = st.tuples(st.just("c"), _cost, _cost, _cost, _cost, _limit, _limit)
_NODES = ("n1", "n2", "n3")


@st.composite
def _plans(draw: st.DrawFn) -> tuple[UsagePlan, list[float]]:
    workloads = draw(st.integers(1, 4))
    pods = []
    nodes: list[str | None] = []
    cpu_weight: list[float] = []
    memory_weight: list[float] = []
    for index in range(draw(st.integers(0, 30))):
        node = draw(st.none() | st.sampled_from(_NODES))
        rows = tuple(draw(st.lists(_row, min_size=1, max_size=3)))
        ready = draw(st.booleans())
        stddev = draw(_stddev)
        pods.append(
            _PlannedPod(
                "ns", f"p{index}", node, draw(st.integers(0, workloads - 1)), ready, stddev, rows
            )
        )
        for _ in rows:
            nodes.append(node)
            cpu_weight.append(float(draw(st.integers(1, 800))))
            memory_weight.append(float(draw(st.integers(1, 10**9))))
    ready_counts = tuple(draw(st.integers(0, 5)) for _ in range(workloads))
    plan = UsagePlan(
        tuple(pods), ready_counts, tuple(nodes), tuple(cpu_weight), tuple(memory_weight)
    )
    rates = draw(st.lists(st.floats(0, 1e4) | _special, min_size=workloads, max_size=workloads))
    return plan, rates


_allocatable = st.dictionaries(
    st.sampled_from(_NODES),
    st.builds(Resources, milli_cpu=st.integers(0, 3000), memory=st.integers(0, 10**10)),
)


@settings(max_examples=300, deadline=None)
@given(
    planned=_plans(),
    allocatable=_allocatable,
    seed=st.integers(0, 2**32),
    samples=st.sampled_from([1.0, 0.5, 15.0, 1e300]),
    odd=st.lists(st.sampled_from([math.nan, -0.0, 0.0, -1.0, math.inf, 1.5]), max_size=4),
)
def test_draw_arrays_is_the_loop_bit_for_bit(
    planned: tuple[UsagePlan, list[float]],
    allocatable: dict[str, Resources],
    seed: int,
    samples: float,
    odd: list[float],
) -> None:
    plan, rates = planned
    fast_rng, reference_rng = _OddNoise(seed, odd), _OddNoise(seed, odd)
    shares = [rate / ready if ready else 0.0 for rate, ready in zip(rates, plan.ready, strict=True)]
    spread = 1.0 / math.sqrt(samples) if samples > 1.0 else 1.0
    arrays = plan_arrays(plan.pods, plan.node_rows, len(plan.nodes))
    weights = (plan.cpu_weight, plan.memory_weight)
    cpu, memory = draw_arrays(
        arrays, plan.node_rows, weights, shares, spread, allocatable, fast_rng
    )
    want_cpu, want_memory = reference_rows(plan, rates, allocatable, reference_rng, samples)
    assert _bits(cpu.tolist()) == _bits(want_cpu)
    assert _bits(memory.tolist()) == _bits(want_memory)
    assert fast_rng.getstate() == reference_rng.getstate()
    # ``draw_rows`` itself: numpy from ``ARRAY_ROWS`` containers on, the loop below.
    assert (plan.arrays is not None) == (len(plan.nodes) >= ARRAY_ROWS)
    drawn_rng, loop_rng = _OddNoise(seed, odd), _OddNoise(seed, odd)
    drawn = draw_rows(plan, rates, allocatable, drawn_rng, samples=samples)
    want_cpu, want_memory = reference_rows(plan, rates, allocatable, loop_rng, samples)
    assert _bits(list(drawn.cpu)) == _bits(want_cpu)
    assert _bits(list(drawn.memory)) == _bits(want_memory)
    assert drawn_rng.getstate() == loop_rng.getstate()


@pytest.mark.parametrize("count", [ARRAY_ROWS - 1, ARRAY_ROWS], ids=["loop", "numpy"])
def test_full_nodes_are_shared_out_on_both_paths(count: int) -> None:
    """A node too small for its containers binds on either side of ``ARRAY_ROWS``."""
    rows = (("c", 100.0, 1.0, 1e6, 1e3, None, None),)
    pods = tuple(_PlannedPod("ns", f"p{i:03}", "n1", 0, True, 0.3, rows) for i in range(count))
    weights = tuple(float(1 + i % 7) for i in range(count))
    plan = UsagePlan(pods, (count,), ("n1",) * count, weights, weights)
    allocatable = {"n1": Resources(milli_cpu=2000, memory=10**7)}
    assert (plan.arrays is not None) == (count >= ARRAY_ROWS)
    drawn = draw_rows(plan, [500.0], allocatable, random.Random(7), samples=4.0)
    want_cpu, want_memory = reference_rows(plan, [500.0], allocatable, random.Random(7), 4.0)
    assert _bits(list(drawn.cpu)) == _bits(want_cpu)
    assert _bits(list(drawn.memory)) == _bits(want_memory)
    assert sum(want_cpu) == pytest.approx(2000)  # the node binds
    assert sum(want_memory) == pytest.approx(10**7)
