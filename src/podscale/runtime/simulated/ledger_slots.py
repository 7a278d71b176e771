"""``LedgerSlots``: the usage ledger's per-container and per-pod numbers, in numpy arrays.

``usage_ledger.UsageLedger`` keeps, per pod, each container's cumulative CPU counter (by
counter key (name, start), in milli-core-seconds), each container's memory working set (by
name, in bytes) and the requests the pod served. Every advance credits all of them and
every scrape reads all the counters back, so they live here batch-shaped: each number in a
slot of one array (``cpu`` float64, ``memory`` int64, ``requests`` float64), a slot taken
for good by its (pod, counter), (pod, container) or pod when first asked for (``*_slot``)
and given back when the ledger forgets it (``drop``, ``drop_stale``), so that
``ledger_bindings`` credits a whole layout, and ``ledger_points`` reads a node's pods, with
a few numpy operations over the slots they bound.

A slot is zero when taken, which reads as no entry did before: every reader takes a
missing counter, working set or request count as zero. The arrays grow by doubling, so a
binding keeps slot numbers, never an array (read ``SlotArray.values`` at each use).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = ["LedgerSlots", "ServedSnapshot", "SlotArray"]

_FIRST_SIZE: Final = 256
Counter = tuple[str, datetime]


class ServedSnapshot(Mapping[PodKey, float]):
    """The requests each pod had served at one instant (``LedgerSlots.served_by_pod``),
    never changed afterwards. A publish takes one every period and reads it per pod only
    when its rates are read (often never): two C-level copies (the slot map, the array)
    instead of a float object and a dict entry per pod."""

    __slots__ = ("_floats", "_slots", "_values")

    def __init__(self, slots: dict[PodKey, int], values: npt.NDArray[np.float64]) -> None:
        self._slots = slots
        self._values = values
        self._floats: list[float] | None = None  # ``_values`` as floats, on first read

    def __getitem__(self, key: PodKey) -> float:
        floats = self._floats
        if floats is None:
            floats = self._floats = self._values.tolist()
        return floats[self._slots[key]]

    def __iter__(self) -> Iterator[PodKey]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)


class SlotArray:
    """Numbers in the slots of one growing array; freed slots are taken again first."""

    __slots__ = ("_free", "_top", "values")

    def __init__(self, dtype: type[np.float64] | type[np.int64]) -> None:
        self.values: npt.NDArray[Any] = np.zeros(_FIRST_SIZE, dtype)
        self._free: list[int] = []
        self._top = 0  # slots below were taken at least once

    def take(self) -> int:
        """A slot holding zero."""
        if self._free:
            slot = self._free.pop()
        else:
            slot = self._top
            self._top += 1
            if slot == len(self.values):
                grown = np.zeros(2 * slot, self.values.dtype)
                grown[:slot] = self.values
                self.values = grown
        self.values[slot] = 0
        return slot

    def give(self, slot: int) -> None:
        self._free.append(slot)

    def in_use(self) -> int:
        """How many slots are taken (tests)."""
        return self._top - len(self._free)


class LedgerSlots:
    """The slots of every pod's counters, working sets and requests served."""

    def __init__(self) -> None:
        self.cpu = SlotArray(np.float64)
        self.memory = SlotArray(np.int64)
        self.requests = SlotArray(np.float64)
        # The slots, per pod (forgetting a pod costs only its own): read, and written
        # through ``SlotArray.take`` only, by ``ledger_bindings`` binding a whole layout.
        self.cpu_of: dict[PodKey, dict[Counter, int]] = {}
        self.memory_of: dict[PodKey, dict[str, int]] = {}
        self.request_of: dict[PodKey, int] = {}

    def cpu_slot(self, key: PodKey, counter: Counter) -> int:
        """The slot of the pod's counter ``counter``, taken if it has none."""
        slots = self.cpu_of.get(key)
        if slots is None:
            slots = self.cpu_of[key] = {}
        slot = slots.get(counter)
        if slot is None:
            slot = slots[counter] = self.cpu.take()
        return slot

    def memory_slot(self, key: PodKey, name: str) -> int:
        """The slot of the working set of the pod's container ``name``, taken if it has none."""
        slots = self.memory_of.get(key)
        if slots is None:
            slots = self.memory_of[key] = {}
        slot = slots.get(name)
        if slot is None:
            slot = slots[name] = self.memory.take()
        return slot

    def request_slot(self, key: PodKey) -> int:
        """The slot of the requests the pod served, taken if it has none."""
        slot = self.request_of.get(key)
        if slot is None:
            slot = self.request_of[key] = self.requests.take()
        return slot

    def counter(self, key: PodKey, counter: Counter) -> float:
        """The pod's counter ``counter`` (0.0 without a slot); takes no slot."""
        slot = self.cpu_of.get(key, {}).get(counter)
        return 0.0 if slot is None else float(self.cpu.values[slot])

    def working_set(self, key: PodKey, name: str) -> int:
        """The working set of the pod's container ``name`` (0 without a slot); takes none."""
        slot = self.memory_of.get(key, {}).get(name)
        return 0 if slot is None else int(self.memory.values[slot])

    def served(self, key: PodKey) -> float:
        """The requests the pod served (0.0 without a slot); takes no slot."""
        slot = self.request_of.get(key)
        return 0.0 if slot is None else float(self.requests.values[slot])

    def served_by_pod(self) -> ServedSnapshot:
        """``served`` of every pod with a slot as of now, by key, in the order the slots
        were taken: the slot map and the array copied whole, read per pod only when asked."""
        return ServedSnapshot(dict(self.request_of), self.requests.values.copy())

    def drop(self, key: PodKey) -> None:
        """Give back every slot of the pod."""
        for slot in (self.cpu_of.pop(key, None) or {}).values():
            self.cpu.give(slot)
        for slot in (self.memory_of.pop(key, None) or {}).values():
            self.memory.give(slot)
        if key in self.request_of:
            self.requests.give(self.request_of.pop(key))

    def drop_stale(self, key: PodKey, keep: RunningPod) -> bool:
        """Give back the slots of the pod's counters and working sets of containers that
        ``keep`` no longer runs under the same start time; whether any was given back."""
        started = keep.started
        counters = self.cpu_of.get(key, {})
        stale = [c for c in counters if started.get(c[0]) != c[1]]
        for counter in stale:
            self.cpu.give(counters.pop(counter))
        gauges = self.memory_of.get(key, {})
        gone = [name for name in gauges if name not in started]
        for name in gone:
            self.memory.give(gauges.pop(name))
        return bool(stale or gone)

    def maps(self) -> dict[str, Mapping[Any, Any]]:
        """Every slot's number as the per-pod maps it stands for (tests compare ledgers by it)."""
        cpu, memory = self.cpu.values, self.memory.values
        return {
            "cpu": {k: {c: float(cpu[s]) for c, s in v.items()} for k, v in self.cpu_of.items()},
            "memory": {
                k: {n: int(memory[s]) for n, s in v.items()} for k, v in self.memory_of.items()
            },
            "requests": self.served_by_pod(),
        }
