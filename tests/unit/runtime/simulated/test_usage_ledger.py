"""The kubelet stats bookkeeping (podscale.runtime.simulated.usage_ledger): counters credited
from each container's start, reset by a restart, never reported as zero."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.controllers.kapacity.kind import POD_STATE_LABEL
from podscale.metrics.server.points import decode_summary
from podscale.metrics.server.summary import NodeSummary
from podscale.runtime.load import (
    ContainerCost,
    ContainerResources,
    ContainerUsage,
    LoadProfile,
    PodLoad,
    PodUsage,
    draw_rows,
    draw_usage,
    plan_usage,
    usages_of,
)
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import RunningPod, running_pod
from podscale.runtime.simulated.usage_ledger import (
    NODE_SYSTEM_MEMORY,
    NODE_SYSTEM_MILLI_CPU,
    UsageLedger,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MILLI_SECOND_NS = 1_000_000  # one millicore for one second, in core-nanoseconds


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def pod(
    name: str = "web-1",
    *,
    started: dict[str, datetime | None] | None = None,
    phase: str = "Running",
    ready: bool = True,
) -> dict[str, Any]:
    started = {"web": T0} if started is None else started
    statuses = []
    for container, at in started.items():
        state = {"running": {"startedAt": stamp(at)}} if at else {"waiting": {"reason": "X"}}
        statuses.append({"name": container, "state": state})
    return {
        "metadata": {"name": name, "namespace": "default", "uid": "u-1", "labels": {"a": "b"}},
        "spec": {"nodeName": "node-1", "containers": [{"name": c} for c in started]},
        "status": {
            "phase": phase,
            "startTime": stamp(T0),
            "containerStatuses": statuses,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def usage(milli: int, *, name: str = "web-1", memory: int = 1000, rate: float = 0.0) -> PodUsage:
    return PodUsage("default", name, "node-1", rate, (ContainerUsage("web", milli, memory),))


def view(**options: Any) -> RunningPod:
    found = running_pod(pod(**options))
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, ("web",)),
        ({"phase": "Pending"}, None),
        ({"started": {"web": None}}, None),
        ({"started": {"web": T0, "side": None}}, ("web",)),
    ],
    ids=["running", "pending", "nothing-started", "only-running-containers"],
)
def test_running_pod_keeps_the_running_containers(
    options: dict[str, Any], expected: tuple[str, ...] | None
) -> None:
    found = running_pod(pod(**options))
    names = None if found is None else tuple(c.name for c in found.load.containers)
    assert names == expected


def test_running_pod_reads_readiness_labels_and_start_times() -> None:
    found = view(ready=False)
    assert (found.load.ready, found.labels, found.uid) == (False, {"a": "b"}, "u-1")
    assert found.started == {"web": T0}
    assert found.start_time == T0


def test_a_container_is_credited_from_its_start() -> None:
    ledger = UsageLedger()
    late = view(started={"web": T0 + timedelta(seconds=6)})
    ledger.credit([usage(100)], {late.key: late}, ["node-1"], T0, T0 + timedelta(seconds=10))
    stats = ledger.pod_stats(late, T0 + timedelta(seconds=10))
    (container,) = stats.containers
    assert container.cpu is not None
    assert container.memory is not None
    assert container.cpu.usage_core_nano_seconds == 4 * 100 * MILLI_SECOND_NS
    assert container.start_time == T0 + timedelta(seconds=6)
    assert container.memory.working_set_bytes == 1000


def test_a_restart_starts_a_new_counter() -> None:
    ledger = UsageLedger()
    first = view()
    ledger.credit([usage(100)], {first.key: first}, [], T0, T0 + timedelta(seconds=10))
    restarted = view(started={"web": T0 + timedelta(seconds=20)})
    ledger.forget(restarted.key, keep=restarted)
    stats = ledger.pod_stats(restarted, T0 + timedelta(seconds=20))
    assert stats.containers[0].cpu is not None
    assert stats.containers[0].cpu.usage_core_nano_seconds == 1  # fresh, floored at 1


def test_zero_readings_are_reported_as_one() -> None:
    ledger = UsageLedger()
    idle = view()
    ledger.credit([usage(0, memory=0)], {idle.key: idle}, [], T0, T0 + timedelta(seconds=5))
    (container,) = ledger.pod_stats(idle, T0 + timedelta(seconds=5)).containers
    assert container.cpu is not None
    assert container.memory is not None
    assert (container.cpu.usage_core_nano_seconds, container.memory.working_set_bytes) == (1, 1)


def test_the_node_adds_its_system_usage() -> None:
    ledger = UsageLedger()
    running = view()
    ledger.credit([usage(100)], {running.key: running}, ["node-1"], T0, T0 + timedelta(seconds=2))
    node = ledger.node_stats("node-1", T0 + timedelta(seconds=2))
    assert node.cpu is not None
    assert node.memory is not None
    assert node.cpu.usage_core_nano_seconds == 2 * (100 + NODE_SYSTEM_MILLI_CPU) * MILLI_SECOND_NS
    assert node.memory.working_set_bytes == NODE_SYSTEM_MEMORY + 1000
    assert node.start_time == T0


def test_requests_are_integrated_and_forgotten_with_the_pod() -> None:
    ledger = UsageLedger()
    running = view()
    ledger.credit([usage(1, rate=2.5)], {running.key: running}, [], T0, T0 + timedelta(seconds=4))
    assert ledger.requests_served(running.key) == 10.0
    ledger.forget(running.key)
    assert ledger.requests_served(running.key) == 0.0


@given(st.lists(st.tuples(st.integers(0, 2000), st.integers(1, 30)), min_size=1, max_size=20))
def test_the_counter_is_the_integral_and_never_goes_back(pieces: list[tuple[int, int]]) -> None:
    ledger = UsageLedger()
    running = view()
    now, previous, expected = T0, 0, 0
    for milli, seconds in pieces:
        end = now + timedelta(seconds=seconds)
        ledger.credit([usage(milli)], {running.key: running}, [], now, end)
        now = end
        expected += milli * seconds * MILLI_SECOND_NS
        cpu = ledger.pod_stats(running, now).containers[0].cpu
        assert cpu is not None
        assert cpu.usage_core_nano_seconds is not None
        assert cpu.usage_core_nano_seconds >= previous
        previous = cpu.usage_core_nano_seconds
    assert previous == max(expected, 1)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (None, (10 * 100 * MILLI_SECOND_NS, 1000)),
        ("Cutoff", (10 * 100 * MILLI_SECOND_NS, 1000)),
        ("Standby", (1, 1)),
    ],
    ids=["online-uses-its-share", "cutoff-still-runs", "standby-resources-reclaimed"],
)
def test_a_kapacity_standby_pod_uses_nothing(state: str | None, expected: tuple[int, int]) -> None:
    raw = pod()
    if state is not None:
        raw["metadata"]["labels"]["kapacitystack.io/pod-state"] = state
    found = running_pod(raw)
    assert found is not None
    ledger = UsageLedger()
    ledger.credit([usage(100)], {found.key: found}, ["node-1"], T0, T0 + timedelta(seconds=10))
    (container,) = ledger.pod_stats(found, T0 + timedelta(seconds=10)).containers
    assert container.cpu is not None
    assert container.memory is not None
    assert (container.cpu.usage_core_nano_seconds, container.memory.working_set_bytes) == expected
    node = ledger.node_stats("node-1", T0 + timedelta(seconds=10))
    assert node.memory is not None
    assert node.memory.working_set_bytes == NODE_SYSTEM_MEMORY + (0 if state == "Standby" else 1000)


_STARTS = st.sampled_from([-20, 0, 3, 7, 12, 40])  # seconds from T0: before, at, inside


@given(
    starts=st.fixed_dictionaries({"web": _STARTS, "side": st.none() | _STARTS}),
    pieces=st.lists(
        st.tuples(st.integers(0, 900), st.integers(0, 5000), st.integers(0, 15)),
        min_size=1,
        max_size=6,
    ),
    standby=st.booleans(),
)
def test_points_are_the_decoded_stats_and_counters_integrate_from_each_start(
    starts: dict[str, int | None], pieces: list[tuple[int, int, int]], standby: bool
) -> None:
    """``pod_points``/``node_point`` equal ``decode_summary`` of ``pod_stats``/``node_stats``
    (the scraper's fast path), and ``credit`` credits each container from
    ``max(interval start, its start)`` whether it started before, at or inside the interval."""
    raw = pod(
        started={n: None if s is None else T0 + timedelta(seconds=s) for n, s in starts.items()}
    )
    if standby:
        raw["metadata"]["labels"]["kapacitystack.io/pod-state"] = "Standby"
    found = running_pod(raw)
    assert found is not None
    ledger = UsageLedger()
    now = T0
    expected: dict[str, float] = {}
    for milli, memory, seconds in pieces:
        end = now + timedelta(seconds=seconds)
        containers = tuple(ContainerUsage(n, milli, memory) for n in starts)
        used = PodUsage("default", "web-1", "node-1", 1.0, containers)
        ledger.credit([used], {found.key: found}, ["node-1"], now, end)
        for name, began in found.started.items():
            credited = max((end - max(now, began)).total_seconds(), 0.0)
            expected[name] = expected.get(name, 0.0) + (0 if standby else milli) * credited
        now = end
        summary = NodeSummary(ledger.node_stats("node-1", now), (ledger.pod_stats(found, now),))
        decoded = decode_summary(summary)
        assert {found.key: ledger.pod_points(found, now)} == decoded.pods
        assert {"node-1": ledger.node_point("node-1", now)} == decoded.nodes
    points = ledger.pod_points(found, now)
    assert {n: p.cumulative_cpu_used for n, p in points.items()} == {
        n: max(int(v * MILLI_SECOND_NS), 1) for n, v in expected.items()
    }


def test_a_pod_without_containers_has_no_points() -> None:
    """As ``decode_summary`` drops a pod whose Summary lists no container."""
    found = view()
    empty = RunningPod(
        replace(found.load, containers=()), found.uid, found.labels, found.start_time, {}
    )
    ledger = UsageLedger()
    assert ledger.pod_points(empty, T0) == {}
    summary = NodeSummary(ledger.node_stats("node-1", T0), (ledger.pod_stats(empty, T0),))
    assert decode_summary(summary).pods == {}


def test_points_of_many_pods_at_once_are_each_pods_points() -> None:
    """``pods_points`` (a scrape's read of a node) answers each pod's ``pod_points``, in the
    order given, and leaves out a pod without points, as decoding their Summary does: a
    credited pod, one never credited (its readings at 1) and one without containers."""
    busy = view(name="web-1", started={"web": T0, "side": T0})
    fresh = view(name="web-2")
    found = view(name="web-3")
    empty = RunningPod(
        replace(found.load, containers=()), found.uid, found.labels, found.start_time, {}
    )
    ledger = UsageLedger()
    end = T0 + timedelta(seconds=15)
    containers = (ContainerUsage("web", 120, 5000), ContainerUsage("side", 3, 700))
    ledger.credit(
        [PodUsage("default", "web-1", "node-1", 1.0, containers)],
        {busy.key: busy, fresh.key: fresh},
        ["node-1"],
        T0,
        end,
    )
    pods = [fresh, empty, busy]
    got = ledger.pods_points(pods, end)
    assert list(got) == [fresh.key, busy.key]
    assert got == {p.key: ledger.pod_points(p, end) for p in pods if p.load.containers}
    summary = NodeSummary(
        ledger.node_stats("node-1", end), tuple(ledger.pod_stats(p, end) for p in pods)
    )
    assert got == decode_summary(summary).pods


def plain_pods_points(
    ledger: UsageLedger, pods: list[RunningPod], now: datetime
) -> dict[tuple[str, str], dict[str, Any]]:
    """``pods_points`` without the pods' precomputed counter keys (``RunningPod.counters``):
    the containers walked as the pod lists them."""
    stripped = []
    for found in pods:
        copy = replace(found)
        object.__setattr__(copy, "counters", None)  # the general walk
        stripped.append(copy)
    return ledger.pods_points(stripped, now)


def _repeated(found: RunningPod) -> RunningPod:
    containers = found.load.containers
    return replace(found, load=replace(found.load, containers=(*containers, *containers)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: [view()],
        lambda: [view(started={"web": T0, "side": T0 + timedelta(seconds=5)})],
        lambda: [_repeated(view(started={"web": T0, "side": T0}))],
        lambda: [view(name="web-1"), view(name="web-2", started={"web": T0, "x": T0})],
    ],
    ids=["one-container", "two-starts", "repeated-name", "two-pods"],
)
def test_precomputed_counter_keys_read_as_the_plain_walk(make: Any) -> None:
    pods = make()
    ledger = UsageLedger()
    end = T0 + timedelta(seconds=20)
    containers = (ContainerUsage("web", 120, 5000), ContainerUsage("side", 3, 700))
    usages = [PodUsage("default", p.load.name, "node-1", 1.0, containers) for p in pods]
    ledger.credit(usages, {p.key: p for p in pods}, ["node-1"], T0, end)
    assert all(p.counters is not None for p in pods)
    got = ledger.pods_points(pods, end)
    assert got == plain_pods_points(ledger, pods, end)
    assert [list(points) for points in got.values()] == [
        list(points) for points in plain_pods_points(ledger, pods, end).values()
    ]


def test_counter_keys_follow_a_restart_and_a_missing_start_fails_as_before() -> None:
    """A new view (a restart's new start time) names the new counter; a view whose
    container has no start time keeps the plain walk's KeyError."""
    ledger = UsageLedger()
    first = view()
    end = T0 + timedelta(seconds=30)
    ledger.credit([usage(100)], {first.key: first}, ["node-1"], T0, end)
    restarted = view(started={"web": T0 + timedelta(seconds=20)})
    assert restarted.counters == (("web", ("web", T0 + timedelta(seconds=20))),)
    assert ledger.pods_points([restarted], end) == plain_pods_points(ledger, [restarted], end)
    assert ledger.pod_points(restarted, end)["web"].cumulative_cpu_used == 1  # new counter
    broken = RunningPod(first.load, first.uid, first.labels, first.start_time, {})
    assert broken.counters is None
    with pytest.raises(KeyError):
        ledger.pods_points([broken], end)


_CONTAINERS = ("web", "side")


@st.composite
def _drawn_cases(
    draw: st.DrawFn,
) -> tuple[list[tuple[list[PodLoad], LoadProfile]], dict[tuple[str, str], RunningPod]]:
    """Workloads of pods (some on a node the ledger keeps, some not), and the running view
    of some of them: containers started before or inside the interval or not at all, some
    pods on standby."""
    names = draw(st.lists(st.sampled_from("abcdefg"), unique=True, min_size=1, max_size=6))
    loads = [
        PodLoad(
            name,
            tuple(
                ContainerResources(c)
                for c in draw(st.lists(st.sampled_from(_CONTAINERS), min_size=1, unique=True))
            ),
            node=draw(st.sampled_from([None, "node-1", "gone"])),
            ready=draw(st.booleans()),
        )
        for name in names
    ]
    profile = LoadProfile(
        default=ContainerCost(3.0, 1e6, 7.5, 2e5), noise_stddev=draw(st.sampled_from([0.0, 0.3]))
    )
    workloads = [(loads[::2], profile), (loads[1::2], LoadProfile())]
    running: dict[tuple[str, str], RunningPod] = {}
    for load in loads:
        if not draw(st.booleans()):
            continue  # credited by no one (not in the view)
        started = {
            c.name: T0 + timedelta(seconds=draw(st.integers(-30, 40)))
            for c in load.containers
            if draw(st.booleans())
        }
        labels = {POD_STATE_LABEL: "Standby"} if draw(st.booleans()) else {}
        running[load.key] = RunningPod(load, "u", labels, T0, started)
    return workloads, running


@settings(max_examples=200, deadline=None)
@given(
    case=_drawn_cases(),
    seed=st.integers(0, 2**32),
    rates=st.lists(st.tuples(st.floats(0, 500), st.floats(0, 500)), min_size=1, max_size=3),
)
def test_crediting_the_drawn_rows_equals_crediting_their_usages(
    case: tuple[list[tuple[list[PodLoad], LoadProfile]], dict[tuple[str, str], RunningPod]],
    seed: int,
    rates: list[tuple[float, float]],
) -> None:
    """``credit_drawn`` (what ``SimulatedUsage.advance`` calls) leaves the ledger exactly as
    ``credit`` of ``draw_usage``'s ``PodUsage``s does, interval after interval."""
    workloads, running = case
    plan = plan_usage(workloads)
    allocatable = {"node-1": Resources(milli_cpu=900, memory=2 * 1024**3)}
    fused, unfused = UsageLedger(), UsageLedger()
    fused_rng, unfused_rng = random.Random(seed), random.Random(seed)
    for index, at in enumerate(rates):
        start = T0 + timedelta(seconds=15 * index)
        end = start + timedelta(seconds=15)
        drawn = draw_rows(plan, at, allocatable, fused_rng, samples=15)
        fused.credit_drawn(plan, drawn, running, allocatable, start, end)
        usages = draw_usage(plan, at, allocatable, unfused_rng, samples=15)
        unfused.credit(usages, running, allocatable, start, end)
        assert usages_of(plan, drawn) == usages
        assert state(fused) == state(unfused)


def state(ledger: UsageLedger) -> dict[str, Any]:
    """The ledger's bookkeeping, as plain maps."""
    return dict(ledger.contents())
