"""The ledger's numbers in numpy slots (``ledger_slots``, ``ledger_bindings``) answer as the
per-pod dicts they replaced: ``DictLedger`` below is that model (the ledger's former general
path: dicts per pod, one Python step per container), and a run of credits, forgets,
restarts, standby changes and pods coming back, through a kept layout and kept point
bindings (rebound when slots were given back), reads the same points, node points and
requests served as the model after every step. Also: duplicated pods and container names
(``np.add.at`` and the last working set standing), ``np.bincount`` summing one weight after
the other, the arrays growing and slots reused, and counters beyond int64."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.controllers.kapacity.kind import POD_STATE_LABEL
from podscale.metrics.server.points import MetricsPoint
from podscale.runtime.load import (
    ContainerCost,
    ContainerResources,
    LoadProfile,
    PodLoad,
    PodUsage,
    draw_rows,
    plan_usage,
    usages_of,
)
from podscale.runtime.simulated.credit_layout import credit_layout
from podscale.runtime.simulated.ledger_bindings import NODE_SYSTEM_MEMORY, NODE_SYSTEM_MILLI_CPU
from podscale.runtime.simulated.ledger_points import _core_nanos
from podscale.runtime.simulated.ledger_slots import LedgerSlots, SlotArray
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import PodKey, RunningPod
from podscale.runtime.simulated.usage_ledger import UsageLedger

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NODES = {
    "node-1": Resources(milli_cpu=900, memory=2 * 1024**3),
    "node-2": Resources(milli_cpu=4000, memory=8 * 1024**3),
}
PROFILE = LoadProfile(default=ContainerCost(3.0, 1e6, 7.5, 2e5), noise_stddev=0.3)


class DictLedger:
    """The model: the ledger's numbers in per-pod dicts, credited one container at a time."""

    def __init__(self) -> None:
        self.cpu: dict[PodKey, dict[tuple[str, datetime], float]] = {}
        self.memory: dict[PodKey, dict[str, int]] = {}
        self.requests: dict[PodKey, float] = {}
        self.node_cpu: dict[str, float] = {}
        self.node_memory: dict[str, int] = {}

    def credit(
        self,
        usages: Iterable[PodUsage],
        pods: Mapping[PodKey, RunningPod],
        nodes: Iterable[str],
        start: datetime,
        end: datetime,
    ) -> None:
        span = max((end - start).total_seconds(), 0.0)
        node_cpu = dict.fromkeys(nodes, NODE_SYSTEM_MILLI_CPU * span)
        node_memory = dict.fromkeys(node_cpu, NODE_SYSTEM_MEMORY)
        for namespace, name, usage_node, rate, containers in usages:
            key = (namespace, name)
            pod = pods.get(key)
            if pod is None:
                continue
            self.requests[key] = self.requests.get(key, 0.0) + rate * span
            node = usage_node if usage_node in node_cpu else None
            for container, milli_cpu, memory in containers:
                began = pod.started.get(container)
                if began is None:
                    continue
                seconds = span if began <= start else max((end - began).total_seconds(), 0.0)
                if pod.standby:
                    milli_cpu = memory = 0
                counters = self.cpu.setdefault(key, {})
                counter = (container, began)
                counters[counter] = counters.get(counter, 0.0) + milli_cpu * seconds
                self.memory.setdefault(key, {})[container] = memory
                if node is not None:
                    node_cpu[node] += milli_cpu * seconds
                    node_memory[node] += memory
        for name, used in node_cpu.items():
            self.node_cpu[name] = self.node_cpu.get(name, 0.0) + used
            self.node_memory[name] = node_memory[name]

    def forget(self, key: PodKey, keep: RunningPod | None = None) -> None:
        if keep is None:
            self.cpu.pop(key, None)
            self.memory.pop(key, None)
            self.requests.pop(key, None)
            return
        counters = self.cpu.get(key, {})
        for counter in [c for c in counters if keep.started.get(c[0]) != c[1]]:
            del counters[counter]
        gauges = self.memory.get(key, {})
        for name in [g for g in gauges if g not in keep.started]:
            del gauges[name]

    def pods_points(
        self, pods: Iterable[RunningPod], now: datetime
    ) -> dict[PodKey, dict[str, MetricsPoint]]:
        found: dict[PodKey, dict[str, MetricsPoint]] = {}
        for pod in pods:
            key = pod.key
            points: dict[str, MetricsPoint] = {}
            for container in pod.load.containers:
                name = container.name
                if name in points:
                    continue
                began = pod.started[name]
                core_ns = int(self.cpu.get(key, {}).get((name, began), 0.0) * 1_000_000)
                memory = self.memory.get(key, {}).get(name, 0)
                points[name] = MetricsPoint(began, now, max(core_ns, 1), max(memory, 1))
            if points:
                found[key] = points
        return found


def view(
    name: str, containers: tuple[str, ...], node: str | None, at: int, standby: bool
) -> RunningPod:
    load = PodLoad(name, tuple(ContainerResources(c) for c in containers), node=node, ready=at < 0)
    labels = {POD_STATE_LABEL: "Standby"} if standby else {}
    started = {c: T0 + timedelta(seconds=at + 3 * i) for i, c in enumerate(containers)}
    return RunningPod(load, "u", labels, T0, started)


_PODS = {
    "a": (("web",), "node-1"),
    "b": (("web", "side"), "node-2"),
    "c": (("web", "web"), "node-1"),  # a repeated name: its counter credited twice
    "d": (("side",), "gone"),  # on a node the ledger keeps no sums for
    "e": (("web",), None),
}
_STEPS = st.one_of(
    st.tuples(st.just("credit"), st.floats(0, 400), st.integers(5, 40)),
    st.tuples(
        st.sampled_from(["gone", "back", "restart", "standby"]), st.sampled_from(sorted(_PODS))
    ),
)


def _readings(ledger: UsageLedger, pods: tuple[RunningPod, ...], now: datetime) -> Any:
    nodes = {name: ledger.node_point(name, now) for name in NODES}
    requests = {pod.key: ledger.requests_served(pod.key) for pod in pods}
    return ledger.pods_points(pods, now), nodes, requests, list(ledger.requests_by_pod.items())


def _model_readings(model: DictLedger, pods: tuple[RunningPod, ...], now: datetime) -> Any:
    nodes = {
        name: MetricsPoint(
            T0,
            now,
            max(int(model.node_cpu.get(name, 0.0) * 1_000_000), 1),
            model.node_memory.get(name, NODE_SYSTEM_MEMORY),
        )
        for name in NODES
    }
    requests = {pod.key: model.requests.get(pod.key, 0.0) for pod in pods}
    return model.pods_points(pods, now), nodes, requests, list(model.requests.items())


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(_STEPS, min_size=1, max_size=14),
    twice=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_the_slots_read_as_the_dict_model(
    steps: list[tuple[Any, ...]], twice: bool, seed: int
) -> None:
    """Every step, then every reading, on the slots and on the model; ``twice`` plans the
    pods in two workloads at once (each pod laid twice: ``np.add.at`` and the last working
    set standing)."""
    rng = random.Random(seed)
    running = {name: view(name, *spec, -10, False) for name, spec in _PODS.items()}
    ledger, model = UsageLedger(), DictLedger()
    layout: Any = None
    bound: Any = None
    # A binding of the first pods, kept throughout: rebound when slots were given back,
    # it reads a pod gone as never credited.
    first = tuple(running.values())
    fixed = ledger.points_binding(first)
    now = T0
    for step in steps:
        if step[0] == "credit":
            pods = {pod.key: pod for pod in running.values()}
            loads = [pod.load for pod in running.values()]
            loads += [view("never", ("web",), "node-1", 0, False).load]  # planned, not running
            workloads = [(loads, PROFILE), (loads[::-1], PROFILE)] if twice else [(loads, PROFILE)]
            plan = plan_usage(workloads)
            if layout is None:
                layout = credit_layout(plan, pods, NODES)  # kept until the pods change
            drawn = draw_rows(plan, [step[1]] * len(workloads), NODES, rng, samples=3)
            end = now + timedelta(seconds=step[2])
            ledger.credit_laid(layout, drawn, now, end)
            model.credit(usages_of(plan, drawn), pods, NODES, now, end)
            now = end
        else:
            verb, name = step
            layout = None
            old = running.pop(name, None)
            key = ("default", name)
            at = int((now - T0).total_seconds()) + rng.randint(-5, 20)
            if verb == "gone" or (verb != "back" and old is None):
                ledger.forget(key)
                model.forget(key)
                continue
            standby = old is not None and (old.standby != (verb == "standby"))
            fresh = view(name, *_PODS[name], at, standby)
            if verb == "restart" and old is not None:  # one container restarts
                restarted = fresh.load.containers[0].name
                started = {**old.started, restarted: fresh.started[restarted]}
                fresh = RunningPod(old.load, "u", old.labels, T0, started)
            elif verb == "standby" and old is not None:
                fresh = RunningPod(old.load, "u", fresh.labels, T0, old.started)
            running[name] = fresh
            ledger.forget(key, keep=fresh)
            model.forget(key, keep=fresh)
        pods_now = tuple(running.values())
        if bound is None or bound.pods != pods_now:
            bound = ledger.points_binding(pods_now)
        bound = ledger.points_binding(bound.pods, bound)
        assert ledger.bound_points(bound, now) == model.pods_points(pods_now, now)
        fixed = ledger.points_binding(first, fixed)
        assert ledger.bound_points(fixed, now) == model.pods_points(first, now)
        assert _readings(ledger, pods_now, now) == _model_readings(model, pods_now, now)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.floats(-1e300, 1e300, allow_nan=False)),
        max_size=40,
    )
)
def test_bincount_adds_one_weight_after_the_other(cells: list[tuple[int, float]]) -> None:
    """The node sums rely on it: each bin is 0.0 plus its weights in order, bit for bit."""
    sums = [0.0] * 4
    for index, weight in cells:
        sums[index] += weight
    got = np.bincount([i for i, _ in cells] or np.zeros(0, np.intp), [w for _, w in cells], 4)
    assert [float(x).hex() for x in got.tolist()] == [x.hex() for x in sums]


def test_slots_grow_keep_their_numbers_and_are_taken_again_zeroed() -> None:
    array = SlotArray(np.float64)
    taken = [array.take() for _ in range(600)]
    array.values[taken] = np.arange(600.0)
    assert taken == list(range(600))
    assert array.values[:600].tolist() == list(range(600))
    array.give(7)
    assert array.take() == 7
    assert array.values[7] == 0.0
    assert array.in_use() == 600


def test_a_served_snapshot_keeps_its_instant() -> None:
    # What a publish keeps: the requests served as of the call, in slot order, whatever
    # is credited, dropped or taken again afterwards.
    slots = LedgerSlots()
    a, b, c = ("ns", "a"), ("ns", "b"), ("ns", "c")
    for key, served in [(a, 1.5), (b, 2.25)]:
        slots.requests.values[slots.request_slot(key)] = served
    snapshot = slots.served_by_pod()
    slots.requests.values[slots.request_slot(a)] += 10.0
    slots.drop(b)
    slots.requests.values[slots.request_slot(c)] = 7.0  # takes b's slot again
    assert dict(snapshot) == {a: 1.5, b: 2.25}
    assert list(snapshot) == [a, b]
    assert len(snapshot) == 2
    assert snapshot.get(c) is None
    assert snapshot.get(b) == 2.25
    assert dict(slots.served_by_pod()) == {a: 11.5, c: 7.0}


def test_a_dropped_pod_gives_back_every_slot() -> None:
    slots = LedgerSlots()
    pod = view("a", ("web", "side"), "node-1", 0, False)
    for name, counter in pod.counters or ():
        slots.cpu_slot(pod.key, counter)
        slots.memory_slot(pod.key, name)
    slots.request_slot(pod.key)
    restarted = RunningPod(pod.load, "u", {}, T0, {"web": T0})
    assert slots.drop_stale(pod.key, restarted)  # "side" no longer runs
    assert not slots.drop_stale(pod.key, restarted)
    assert (slots.cpu.in_use(), slots.memory.in_use(), slots.requests.in_use()) == (1, 1, 1)
    slots.drop(pod.key)
    assert (slots.cpu.in_use(), slots.memory.in_use(), slots.requests.in_use()) == (0, 0, 0)
    assert slots.maps() == {"cpu": {}, "memory": {}, "requests": {}}


@pytest.mark.parametrize(
    "counters",
    [
        [0.0, -0.0, 1e-7, 5e-7, 2.5, 1e12],
        [1e14, 9.2e12, 9.3e12],  # products around int64's bound: Python ints
        [-3.0, 1e13],
        [],
    ],
    ids=["usual", "beyond-int64", "negative", "none"],
)
def test_core_nanos_truncate_as_int_does(counters: list[float]) -> None:
    expected = [max(int(c * 1_000_000), 1) for c in counters]
    assert _core_nanos(np.array(counters, dtype=np.float64)) == expected
    assert all(type(n) is int for n in _core_nanos(np.array(counters, dtype=np.float64)))
    assert math.isfinite(sum(counters))
