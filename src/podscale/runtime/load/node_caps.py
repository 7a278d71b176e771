"""Sharing out a full node: what the usage model (``usage.draw_usage``) does when the
containers on one node together want more CPU or memory than its allocatable.

Each node's capacity is shared as the kernel's CPU shares do, in proportion to the
containers' requests, with whatever a container does not need going to the others
(water-filling); memory the same way (the model clamps rather than simulating OOM kills).
A node whose containers fit is left as it is. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from podscale.runtime.simulated.resources import Resources

__all__ = [
    "NodeRows",
    "apply_node_caps",
    "apply_node_caps_grouped",
    "node_rows",
    "share_capacity",
]

# Each node with the rows (containers, in draw order) on it, nodes in order of their first row.
NodeRows = tuple[tuple[str, tuple[int, ...]], ...]


def share_capacity(demands: list[float], weights: list[float], capacity: float) -> list[float]:
    """Water-filling: weighted fair shares of ``capacity``, surplus redistributed."""
    if sum(demands) <= capacity:
        return demands
    granted = [0.0] * len(demands)
    pending = set(range(len(demands)))
    remaining = capacity
    while pending:
        total_weight = sum(weights[i] for i in pending)
        content = [i for i in pending if demands[i] <= remaining * weights[i] / total_weight]
        if not content:
            for i in pending:
                granted[i] = remaining * weights[i] / total_weight
            break
        for i in content:
            granted[i] = demands[i]
            remaining -= demands[i]
            pending.discard(i)
    return granted


def node_rows(nodes: Sequence[str | None]) -> NodeRows:
    """``nodes`` (one per container, in draw order) grouped by node, rows without a node
    left out: a function of the containers' placement alone, so ``usage.plan_usage`` groups
    once per plan and each draw only reads the groups."""
    by_node: dict[str, list[int]] = {}
    for row, node in enumerate(nodes):
        if node is not None:
            by_node.setdefault(node, []).append(row)
    return tuple((node, tuple(rows)) for node, rows in by_node.items())


def apply_node_caps(
    nodes: Sequence[str | None],
    demands: tuple[list[float], list[float]],
    weights: tuple[Sequence[float], Sequence[float]],
    allocatable: Mapping[str, Resources],
) -> None:
    """Cap the containers' (cpu, memory) ``demands`` in place, node by node: one list entry
    per container, in draw order; ``weights`` are their requests."""
    apply_node_caps_grouped(node_rows(nodes), demands, weights, allocatable)


def apply_node_caps_grouped(
    groups: NodeRows,
    demands: tuple[list[float], list[float]],
    weights: tuple[Sequence[float], Sequence[float]],
    allocatable: Mapping[str, Resources],
) -> None:
    """``apply_node_caps`` with the rows already grouped (``node_rows``); a node missing from
    ``allocatable`` is not capped."""
    cpu, memory = demands
    cpu_weight, memory_weight = weights
    for node, rows in groups:
        capacity = allocatable.get(node)
        if capacity is None:
            continue
        # Only a node whose containers want more than it has is shared out (what
        # ``share_capacity`` answers at once otherwise: the demands unchanged). The sum is
        # that of the node's demands in row order, read through ``map`` (no list, no frame).
        if not sum(map(cpu.__getitem__, rows)) <= capacity.milli_cpu:
            granted = share_capacity(
                [cpu[r] for r in rows], [cpu_weight[r] for r in rows], capacity.milli_cpu
            )
            for row, value in zip(rows, granted, strict=True):
                cpu[row] = value
        if not sum(map(memory.__getitem__, rows)) <= capacity.memory:
            granted = share_capacity(
                [memory[r] for r in rows], [memory_weight[r] for r in rows], capacity.memory
            )
            for row, value in zip(rows, granted, strict=True):
                memory[row] = value
