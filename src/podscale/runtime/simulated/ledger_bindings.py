"""The crediting hot loop of ``usage_ledger.UsageLedger`` as numpy over bound slots.

Every advance of ``usage.SimulatedUsage`` credits every pod (``UsageLedger.credit_laid``);
in between, the pods rarely change. Which slots of the ledger's arrays
(``ledger_slots.LedgerSlots``) each pod and container of a ``credit_layout.CreditLayout``
writes, and which row of the draw it reads, is answered once (``bind_credit``, index
arrays), and ``credit_bound`` credits a whole draw in a few array operations, each the same
IEEE operation on the same operands as the loop over the containers it replaced:
``floor(cpu) * seconds`` added to each counter, ``floor(memory)`` as each working set,
``share * span`` added to each pod's requests (``np.add.at``, which adds one index after the
other, where a binding has a slot twice: a pod laid twice, a repeated container name).
Each node's sum of the interval is its system usage then each container's product in
layout order: ``np.bincount`` adds its weights one by one in order into zeros
(``0.0 + x == x``), so it sums exactly as that loop did. (``ledger_points`` is the same for
reading the points at a scrape.)

Binding takes the slots it needs (zero: as no entry reads). A binding holds slot numbers,
so it is good only while the ledger gives none back: the ledger stamps each binding with a
generation it bumps whenever it does (``UsageLedger.forget``) and binds again when the
stamp is old.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from podscale.runtime.load import DrawnRows
from podscale.runtime.simulated.credit_layout import CreditLayout
from podscale.runtime.simulated.ledger_slots import LedgerSlots

__all__ = [
    "NODE_SYSTEM_MEMORY",
    "NODE_SYSTEM_MILLI_CPU",
    "BoundCredit",
    "bind_credit",
    "credit_bound",
]

# What a node's system daemons (kubelet, runtime, OS) use on their own.
NODE_SYSTEM_MILLI_CPU: Final = 50
NODE_SYSTEM_MEMORY: Final = 256 * 1024 * 1024
Index = npt.NDArray[np.intp]


def _index(values: list[int]) -> Index:
    return np.array(values, dtype=np.intp)


def _unique(slots: list[int]) -> bool:
    return len(set(slots)) == len(slots)


@dataclass(frozen=True, slots=True)
class BoundCredit:
    """``layout`` bound at ``generation``: per laid pod its requests slot and its
    workload's index (-1 when not ready: it serves nothing); per container with a start
    time, in layout order, its row in the draw (-1 on standby: it uses nothing), counter
    and working set slots, start and node index (into ``nodes``, ``len(nodes)`` when the
    ledger keeps no sums for it). ``*_unique``: no slot twice; ``last_gauge``: per
    working set slot the index of the last cell setting it (None when each has one)."""

    layout: CreditLayout
    generation: int
    requests: Index
    workloads: Index
    requests_unique: bool
    rows: Index
    counters: Index
    counters_unique: bool
    gauges: Index
    last_gauge: Index | None
    nodes: tuple[str, ...]  # the layout's, each once, in order
    node_of: Index  # ``range(len(nodes))`` (their system usage) then each cell's node
    starts: tuple[datetime, ...]
    latest: datetime | None  # the latest start (None without a cell)


def bind_credit(layout: CreditLayout, generation: int, slots: LedgerSlots) -> BoundCredit:
    """``layout`` bound to the slots of ``slots``, taken where missing (see above)."""
    nodes = tuple(dict.fromkeys(layout.nodes))
    node_index = {name: index for index, name in enumerate(nodes)}
    none = len(nodes)
    requests: list[int] = []
    workloads: list[int] = []
    rows: list[int] = []
    counters: list[int] = []
    gauges: list[int] = []
    node_of = list(range(len(nodes)))
    starts: list[datetime] = []
    # Once per pod change, over every container: lookups and appends hoisted, each pod's
    # maps of slots fetched once (``LedgerSlots.pod_slots`` and ``request_slot`` inlined).
    request_of, cpu_of_pod, memory_of_pod = slots.request_of, slots.cpu_of, slots.memory_of
    take_request, take_cpu, take_memory = slots.requests.take, slots.cpu.take, slots.memory.take
    add_counter, add_gauge, add_row = counters.append, gauges.append, rows.append
    add_node, add_start = node_of.append, starts.append
    for key, workload, ready, standby, node, laid in layout.pods:
        slot = request_of.get(key)
        requests.append(request_of.setdefault(key, take_request()) if slot is None else slot)
        workloads.append(workload if ready else -1)
        if not laid:
            continue
        cpu_of = cpu_of_pod.get(key)
        if cpu_of is None:
            cpu_of = cpu_of_pod[key] = {}
        memory_of = memory_of_pod.get(key)
        if memory_of is None:
            memory_of = memory_of_pod[key] = {}
        at = none if node is None else node_index[node]
        for row, name, began, counter in laid:
            slot = cpu_of.get(counter)
            add_counter(cpu_of.setdefault(counter, take_cpu()) if slot is None else slot)
            slot = memory_of.get(name)
            add_gauge(memory_of.setdefault(name, take_memory()) if slot is None else slot)
            add_row(-1 if standby else row)
            add_node(at)
            add_start(began)
    last_gauge = None
    if not _unique(gauges):
        last = {slot: cell for cell, slot in enumerate(gauges)}
        last_gauge = _index(list(last.values()))
        gauges = list(last)
    return BoundCredit(
        layout,
        generation,
        _index(requests),
        _index(workloads),
        _unique(requests),
        _index(rows),
        _index(counters),
        _unique(counters),
        _index(gauges),
        last_gauge,
        nodes,
        _index(node_of),
        tuple(starts),
        max(starts, default=None),
    )


def _with_zero(values: list[float] | npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``values`` and a 0.0 after them (what index -1 reads)."""
    array = np.empty(len(values) + 1)
    array[:-1] = values
    array[-1] = 0.0
    return array


def _since(began: datetime, end: datetime) -> float:
    """``max((end - began).total_seconds(), 0.0)``, spelled as the test it makes."""
    seconds = (end - began).total_seconds()
    return 0.0 if seconds < 0.0 else seconds


def _add(values: npt.NDArray[Any], slots: Index, unique: bool, amounts: npt.NDArray[Any]) -> None:
    """``values[slot] += amount`` for each pair, in order."""
    if unique:
        values[slots] += amounts
    else:
        np.add.at(values, slots, amounts)


def credit_bound(
    bound: BoundCredit,
    slots: LedgerSlots,
    drawn: DrawnRows,
    start: datetime,
    end: datetime,
    span: float,
) -> tuple[list[float], list[int]]:
    """``UsageLedger.credit_laid`` of ``drawn`` over ``bound``: requests served and the
    containers' counters and working sets into their slots; answers each node of
    ``bound.nodes``' CPU and memory sums of the interval, system usage included."""
    shares, cpu_rows, memory_rows = drawn
    # ``request_rate * span`` per workload; the last entry (index -1) is a pod not ready.
    served = _with_zero(shares)
    served[:-1] *= span
    served[-1] = 0.0 * span
    _add(slots.requests.values, bound.requests, bound.requests_unique, served[bound.workloads])
    rows = bound.rows
    # ``end - max(start, began)``: a container running since before the interval (the
    # usual case, and every one when the latest start is) is credited the whole span.
    seconds: float | npt.NDArray[np.float64] = span
    if bound.latest is not None and bound.latest > start:
        starts = bound.starts
        seconds = np.array([span if began <= start else _since(began, end) for began in starts])
    used = np.floor(_with_zero(cpu_rows)[rows]) * seconds  # the same product as the node's
    _add(slots.cpu.values, bound.counters, bound.counters_unique, used)
    memory = np.floor(_with_zero(memory_rows)[rows]).astype(np.int64)
    last = bound.last_gauge
    slots.memory.values[bound.gauges] = memory if last is None else memory[last]
    count = len(bound.nodes)
    system = np.full(count, NODE_SYSTEM_MILLI_CPU * span)
    node_cpu = np.bincount(bound.node_of, np.concatenate((system, used)), count + 1)
    node_memory = np.full(count + 1, NODE_SYSTEM_MEMORY, np.int64)
    np.add.at(node_memory, bound.node_of[count:], memory)
    return node_cpu[:count].tolist(), node_memory[:count].tolist()
