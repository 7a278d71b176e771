"""``usage.draw_rows`` over a large plan as numpy: the same draws, the same numbers.

Every advance of ``SimulatedUsage`` draws every container of its plan (thousands at a
fleet's peak). The noise draws stay the generator's own calls in the reference order
(``map`` over the stddevs when every row draws, else a comprehension skipping the draw
exactly where the loop does); everything else per container is elementwise IEEE arithmetic
that numpy does bit for bit the same (but for which of two NaNs a NaN result keeps the sign
of, which no output shows; the model's inputs are finite anyway): the noise
clamp ``not noise > 0.0`` (NaN and -0.0 give 0.0), ``(base + per_rps * share) * noise``
and the limit cap ``not limit < demand`` (no limit is +inf, which never caps, NaN and inf
included). Each node's sum is ``np.bincount``'s, which adds a node's rows one by one in row
order onto 0.0, as Python's ``sum`` does onto 0; only a node whose containers want more
than it has is shared out, in Python by ``node_caps`` (its arithmetic as it is).

The per-container constants are laid out once per plan (``plan_arrays``); numpy's fixed
cost per call is more than the Python loop spends on a small plan, so ``usage.UsagePlan``
lays them out (and draws through here) only from ``ARRAY_ROWS`` containers on. Pure.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from podscale.runtime.load.node_caps import NodeRows, share_capacity
from podscale.runtime.simulated.resources import Resources

__all__ = ["ARRAY_ROWS", "PlanArrays", "draw_arrays", "plan_arrays"]

# Containers from which a plan draws through numpy: below about 30 the Python loop is
# cheaper (best-of timeit of ``draw_rows``), and a day's single workload stays below.
ARRAY_ROWS: Final = 48

Floats = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class PlanArrays:
    """Per container of a plan, in draw order: its workload (-1 when its pod is not ready:
    a zero share), its pod's noise stddev, its costs, its limits (+inf for none) and its
    node's index in the plan's ``node_rows`` (their count for no node)."""

    workloads: Index
    stddev: Floats
    cpu_base: Floats
    cpu_per_rps: Floats
    memory_base: Floats
    memory_per_rps: Floats
    cpu_limit: Floats
    memory_limit: Floats
    node_of: Index


def plan_arrays(pods: Sequence[tuple[Any, ...]], groups: NodeRows, count: int) -> PlanArrays:
    """The ``PlanArrays`` of a plan's pods (``usage._PlannedPod``s) and ``node_rows``."""
    workloads: list[int] = []
    stddev: list[float] = []
    costs: list[tuple[Any, ...]] = []
    for _, _, _, workload, ready, deviation, rows in pods:
        workloads.extend([workload if ready else -1] * len(rows))
        stddev.extend([deviation] * len(rows))
        costs.extend(rows)
    inf = float("inf")
    node_of = np.full(count, len(groups), dtype=np.intp)
    for index, (_, rows) in enumerate(groups):
        node_of[list(rows)] = index

    def column(at: int) -> Floats:
        return np.array([row[at] for row in costs], dtype=np.float64)

    def limit(at: int) -> Floats:
        return np.array([inf if row[at] is None else row[at] for row in costs], np.float64)

    return PlanArrays(
        np.array(workloads, dtype=np.intp),
        np.array(stddev, dtype=np.float64),
        column(1),
        column(2),
        column(3),
        column(4),
        limit(5),
        limit(6),
        node_of,
    )


def draw_arrays(
    arrays: PlanArrays,
    groups: NodeRows,
    weights: tuple[Sequence[float], Sequence[float]],
    shares: list[float],
    cpu_spread: float,
    allocatable: Mapping[str, Resources],
    rng: random.Random,
) -> tuple[Floats, Floats]:
    """Each container's (cpu, memory) usage, capped: ``usage.draw_rows``' loop and node caps."""
    count = len(arrays.stddev)
    # The stddevs in draw order: per container its CPU one then its memory one.
    deviations = np.empty(2 * count)
    deviations[0::2] = arrays.stddev * cpu_spread
    deviations[1::2] = arrays.stddev
    gauss = rng.gauss
    bins = len(groups) + 1
    if count and deviations.min() > 0.0:  # all draw (the usual case; NaN is no min > 0)
        noise = np.fromiter(map(gauss, repeat(1.0), deviations.tolist()), np.float64, 2 * count)
    else:
        noise = np.array([gauss(1.0, s) if s > 0 else 1.0 for s in deviations.tolist()])
    share = np.array([*shares, 0.0])[arrays.workloads]
    # Python's float arithmetic gives inf and NaN silently (0 * inf, overflow): so here.
    with np.errstate(all="ignore"):
        noise = np.where(noise > 0.0, noise, 0.0)
        demand = (arrays.cpu_base + arrays.cpu_per_rps * share) * noise[0::2]
        cpu = np.where(arrays.cpu_limit < demand, arrays.cpu_limit, demand)
        demand = (arrays.memory_base + arrays.memory_per_rps * share) * noise[1::2]
        memory = np.where(arrays.memory_limit < demand, arrays.memory_limit, demand)
        cpu_sums = np.bincount(arrays.node_of, cpu, bins).tolist()
        memory_sums = np.bincount(arrays.node_of, memory, bins).tolist()
    cpu_weight, memory_weight = weights
    for index, (node, rows) in enumerate(groups):
        capacity = allocatable.get(node)
        if capacity is None:
            continue
        if not cpu_sums[index] <= capacity.milli_cpu:
            _share_out(cpu, rows, cpu_weight, capacity.milli_cpu)
        if not memory_sums[index] <= capacity.memory:
            _share_out(memory, rows, memory_weight, capacity.memory)
    return cpu, memory


def _share_out(
    values: Floats, rows: tuple[int, ...], weights: Sequence[float], capacity: float
) -> None:
    """``node_caps``' sharing out of a full node, on the node's rows of ``values``."""
    at = list(rows)
    values[at] = share_capacity(values[at].tolist(), [weights[r] for r in rows], capacity)
