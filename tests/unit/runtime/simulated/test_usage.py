"""SimulatedUsage (podscale.runtime.simulated.usage) on a running plane, on virtual time:
the kubelet stats it serves integrate the load in sub-steps, idle at the baseline, respect
node capacity, reset on restarts, and a lost node's kubelet does not answer."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import kind_for
from podscale.api.selectors import selector_from_label_selector
from podscale.metrics.server.points import decode_summary
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import (
    ConstantRate,
    ContainerCost,
    LoadProfile,
    RateSource,
    RateStep,
    StepRate,
)
from podscale.runtime.load.usage import UsagePlan, plan_usage
from podscale.runtime.simulated import KubeletUnreachable, NodeSpec, SimulatedUsage
from podscale.runtime.simulated.credit_layout import CreditLayout, credit_layout
from podscale.runtime.simulated.rate_marks import mark_of, rate_table
from podscale.runtime.simulated.resources import Resources, node_allocatable
from podscale.runtime.simulated.usage import IDLE_PROFILE
from podscale.runtime.simulated.usage_loads import assign_pods

T = TypeVar("T")
START = datetime(2026, 2, 1, tzinfo=UTC)
DEPLOYMENT = kind_for("apps/v1", "Deployment")
POD = kind_for("v1", "Pod")
NODE = kind_for("v1", "Node")
MILLI_SECOND_NS = 1_000_000
COST = LoadProfile(default=ContainerCost(milli_cpu_per_rps=10.0))


def web(replicas: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"name": "web", "image": "web", "resources": {"requests": {"cpu": "100m"}}}
                    ]
                },
            },
        },
    }


def with_plane(
    body: Callable[[EmbeddedControlPlane], Awaitable[T]],
    *,
    seed: int = 3,
    nodes: list[NodeSpec] | None = None,
) -> T:
    """``body`` against a started plane running one ready ``web`` pod (at 20 s)."""
    clock = VirtualClock(START)

    async def main() -> T:
        plane = EmbeddedControlPlane(clock, seed=seed, nodes=nodes)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await plane.api.create(DEPLOYMENT, "default", web())
            await asyncio.sleep(20)
            return await body(plane)
        finally:
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert result is not None
    return result


async def counter(usage: SimulatedUsage, node: str | None = None) -> tuple[int, datetime]:
    """The web pod's container counter and start time, from its node's Summary."""
    for name in [node] if node else await usage.nodes():
        for pod in (await usage.summary(name)).pods:
            (container,) = pod.containers
            assert container.cpu is not None
            assert container.cpu.usage_core_nano_seconds
            assert container.start_time is not None
            return container.cpu.usage_core_nano_seconds, container.start_time
    raise AssertionError("no web pod in any summary")


async def milli_seconds_over(plane: EmbeddedControlPlane, seconds: float) -> float:
    before, _ = await counter(plane.usage)
    await asyncio.sleep(seconds)
    after, _ = await counter(plane.usage)
    return (after - before) / MILLI_SECOND_NS


def loaded(rate: RateSource, profile: LoadProfile = COST) -> Callable[..., Awaitable[float]]:
    async def body(plane: EmbeddedControlPlane) -> float:
        plane.usage.set_origin(plane.clock.now())
        plane.usage.set_load("Deployment", "default", "web", rate, profile)
        return await milli_seconds_over(plane, 15)

    return body


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        (ConstantRate(10.0), 15 * 100),
        # 0 req/s for 5 s, then 10 req/s (100m) for 10 s between two reads.
        (StepRate((RateStep(timedelta(0), 0.0), RateStep(timedelta(seconds=5), 10.0))), 1000),
    ],
    ids=["constant", "changes-between-reads"],
)
def test_cpu_counters_integrate_the_load_in_sub_steps(rate: RateSource, expected: int) -> None:
    assert with_plane(loaded(rate)) == pytest.approx(expected, abs=1)


def test_pods_without_a_load_idle_at_the_baseline() -> None:
    async def body(plane: EmbeddedControlPlane) -> float:
        return await milli_seconds_over(plane, 10)

    assert with_plane(body) == pytest.approx(10 * 1, abs=0.01)  # 1m for 10 s


def test_usage_is_capped_by_the_node() -> None:
    small = [NodeSpec("node-1", cpu="500m")]
    assert with_plane(loaded(ConstantRate(1000.0)), nodes=small) == pytest.approx(15 * 500, abs=1)


def test_noise_is_seeded() -> None:
    noisy = LoadProfile(default=ContainerCost(milli_cpu_per_rps=10.0), noise_stddev=0.2)
    runs = [with_plane(loaded(ConstantRate(10.0), noisy), seed=s) for s in (5, 5, 6)]
    assert runs[0] == runs[1] != runs[2]


def test_a_restart_starts_the_counter_afresh() -> None:
    async def body(
        plane: EmbeddedControlPlane,
    ) -> tuple[tuple[int, datetime], tuple[int, datetime]]:
        plane.usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        await asyncio.sleep(30)
        before = await counter(plane.usage)
        (pod,) = (await plane.api.list(POD, "default"))["items"]
        assert plane.cluster is not None
        await plane.cluster.crash_pod("default", pod["metadata"]["name"])
        await asyncio.sleep(5)
        return before, await counter(plane.usage)

    (old_counter, old_start), (new_counter, new_start) = with_plane(body)
    assert new_start > old_start
    assert new_counter < old_counter


def test_a_lost_node_does_not_answer() -> None:
    async def body(plane: EmbeddedControlPlane) -> tuple[list[str], str]:
        assert plane.cluster is not None
        names = await plane.usage.nodes()
        await plane.cluster.lose_node("node-2")
        with pytest.raises(KubeletUnreachable) as failure:
            await plane.usage.summary("node-2")
        return names, str(failure.value)

    names, message = with_plane(body)
    assert names == ["node-1", "node-2", "node-3"]
    assert message == "node node-2 is not reachable"


def test_only_workload_kinds_take_a_load() -> None:
    async def body(plane: EmbeddedControlPlane) -> str:
        with pytest.raises(ValueError, match="cannot load a Pod") as failure:
            plane.usage.set_load("Pod", "default", "web", ConstantRate(1.0))
        return str(failure.value)

    assert "Deployment, ReplicaSet, StatefulSet" in with_plane(body)


def test_a_long_interval_is_integrated_in_one_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost of an advance does not grow with the seconds it covers: one hour of a
    changing load between two reads is one usage computation, and the counter still holds
    the exact integral (no noise: 10 req/s x 10m for 30 min, then 20 req/s for 30 min)."""
    import podscale.runtime.simulated.usage_accounting as usage_module

    calls: list[float] = []
    original = usage_module.draw_rows

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(float(kwargs.get("samples", 1.0)))
        return original(*args, **kwargs)

    monkeypatch.setattr(usage_module, "draw_rows", counting)
    steps = (RateStep(timedelta(0), 10.0), RateStep(timedelta(minutes=30), 20.0))

    async def body(plane: EmbeddedControlPlane) -> float:
        usage = plane.usage
        usage.set_origin(plane.clock.now())
        usage.set_load("Deployment", "default", "web", StepRate(steps), COST)
        before, _ = await counter(usage)
        now = plane.clock.now()
        calls.clear()
        usage.advance(now + timedelta(hours=1))
        assert calls == [3600.0]
        after, _ = await counter(usage)  # read now: the ledger already holds the hour
        return (after - before) / MILLI_SECOND_NS

    assert with_plane(body) == pytest.approx(1800 * 100 + 1800 * 200, abs=1)


async def pod_counter(usage: SimulatedUsage, name: str) -> int:
    """The named pod's container counter, from its node's Summary."""
    for node in await usage.nodes():
        for pod in (await usage.summary(node)).pods:
            if pod.name == name:
                (container,) = pod.containers
                assert container.cpu is not None
                return int(container.cpu.usage_core_nano_seconds or 0)
    raise AssertionError(f"no pod {name} in any summary")


def test_a_relabelled_pod_leaves_the_load() -> None:
    """Which pods serve a load is worked out again when a pod's labels change: the pod
    relabelled out of the Deployment's selector idles at the baseline from then on."""

    async def body(plane: EmbeddedControlPlane) -> tuple[float, float]:
        plane.usage.set_origin(plane.clock.now())
        plane.usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        (pod,) = (await plane.api.list(POD, "default"))["items"]
        name = pod["metadata"]["name"]
        rates = []
        for relabel in (False, True):
            if relabel:
                patch = {"metadata": {"labels": {"app": "gone"}}}
                await plane.api.patch(POD, "default", name, patch)
                await asyncio.sleep(0)
            before = await pod_counter(plane.usage, name)
            await asyncio.sleep(10)
            rates.append((await pod_counter(plane.usage, name) - before) / MILLI_SECOND_NS / 10)
        return rates[0], rates[1]

    serving, idle = with_plane(body)
    assert serving == pytest.approx(100, abs=1)  # 10 req/s x 10m
    assert idle == pytest.approx(1, abs=0.01)  # the idle baseline


async def _decoded_and_points(plane: EmbeddedControlPlane) -> list[tuple[Any, Any]]:
    """Per node: (decoded Summary, ``summary_points``), or the two errors' texts."""
    answers: list[tuple[Any, Any]] = []
    for name in ["node-1", "node-2", "node-3"]:
        try:
            decoded: Any = decode_summary(await plane.usage.summary(name))
        except KubeletUnreachable as err:
            decoded = str(err)
        try:
            points: Any = await plane.usage.summary_points(name)
        except KubeletUnreachable as err:
            points = str(err)
        answers.append((decoded, points))
    return answers


def test_summary_points_are_the_decoded_summary() -> None:
    """The scraper's fast path (``DecodedStatsSource``) answers what decoding the Summary
    gives: under load, after a restart, with a lost node and while stats fail."""

    async def body(plane: EmbeddedControlPlane) -> list[list[tuple[Any, Any]]]:
        assert plane.cluster is not None
        seen = [await _decoded_and_points(plane)]
        plane.usage.set_load("Deployment", "default", "web", ConstantRate(30.0), COST)
        await plane.api.patch(DEPLOYMENT, "default", "web", {"spec": {"replicas": 3}})
        await asyncio.sleep(40)
        seen.append(await _decoded_and_points(plane))
        pod = (await plane.api.list(POD, "default"))["items"][0]
        await plane.cluster.crash_pod("default", pod["metadata"]["name"])
        await asyncio.sleep(3)
        seen.append(await _decoded_and_points(plane))
        await plane.cluster.lose_node("node-2")
        seen.append(await _decoded_and_points(plane))
        plane.usage.fail_stats("boom")
        seen.append(await _decoded_and_points(plane))
        return seen

    seen = with_plane(body)
    for answers in seen:
        for decoded, points in answers:
            assert decoded == points
    # The checks covered pods on several nodes, and both kinds of failure.
    loaded = [p for p, _ in seen[1] if not isinstance(p, str)]
    assert sum(len(batch.pods) for batch in loaded) == 3
    assert seen[3][1][1] == "node node-2 is not reachable"
    assert seen[4][0][1] == "node node-1: boom"


def test_a_workload_selector_is_read_again_when_the_workload_changes() -> None:
    """The selector is kept per resourceVersion: the same object while the workload is
    unchanged, the new selector once it is replaced (deleted and created again)."""

    async def body(plane: EmbeddedControlPlane) -> tuple[Any, Any, Any]:
        usage = plane.usage
        usage.set_load("Deployment", "default", "web", ConstantRate(1.0), COST)
        (load,) = usage.loads()
        first, again = usage._selectors.of(load), usage._selectors.of(load)
        assert first is again
        await plane.api.delete(DEPLOYMENT, "default", "web")
        await asyncio.sleep(1)
        gone = usage._selectors.of(load)
        other = web()
        other["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
        other["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
        await plane.api.create(DEPLOYMENT, "default", other)
        await asyncio.sleep(1)
        return first, gone, usage._selectors.of(load)

    first, gone, changed = with_plane(body)
    assert first == selector_from_label_selector({"matchLabels": {"app": "web"}})
    assert gone is None
    assert changed == selector_from_label_selector({"matchLabels": {"app": "web", "tier": "x"}})


def test_the_kept_load_list_follows_every_set_and_clear() -> None:
    async def body(plane: EmbeddedControlPlane) -> list[list[tuple[str, float]]]:
        usage = plane.usage
        seen = []
        usage.set_load("Deployment", "default", "web", ConstantRate(1.0), COST)
        usage.set_load("ReplicaSet", "default", "a", ConstantRate(2.0), COST)
        seen.append([(ld.name, ld.rate.rate_at(timedelta(0))) for ld in usage.loads()])
        usage.set_load("Deployment", "default", "web", ConstantRate(3.0), COST)
        seen.append([(ld.name, ld.rate.rate_at(timedelta(0))) for ld in usage.loads()])
        usage.clear_load("ReplicaSet", "default", "a")
        seen.append([(ld.name, ld.rate.rate_at(timedelta(0))) for ld in usage.loads()])
        usage.loads().clear()  # a caller's copy
        seen.append([(ld.name, ld.rate.rate_at(timedelta(0))) for ld in usage.loads()])
        return seen

    assert with_plane(body) == [
        [("web", 1.0), ("a", 2.0)],  # by kind, namespace and name
        [("web", 3.0), ("a", 2.0)],
        [("web", 3.0)],
        [("web", 3.0)],
    ]


async def make_change(plane: EmbeddedControlPlane, change: str) -> None:
    """One named change to the ``web`` Deployment's pods or the node: ``none``, ``scale`` (to
    2 replicas), ``node`` (node-1's allocatable halves), ``restart`` (the usage handler sees
    the first pod's container started anew), ``relabel`` (the first pod leaves the
    selector) or ``delete`` (the first pod); pods go by name."""
    pods = sorted(
        (await plane.api.list(POD, "default"))["items"], key=lambda p: p["metadata"]["name"]
    )
    name = pods[0]["metadata"]["name"] if pods else ""
    if change == "scale":
        await plane.api.patch(DEPLOYMENT, "default", "web", {"spec": {"replicas": 2}})
    elif change == "restart":
        restarted = copy.deepcopy(pods[0])
        (status,) = restarted["status"]["containerStatuses"]
        status["state"]["running"]["startedAt"] = "2026-02-01T00:30:00Z"
        plane.usage._on_pod(restarted)
    elif change == "node":
        patch = {"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "50"}}}
        await plane.api.patch(NODE, None, "node-1", patch, subresource="status")
    elif change == "relabel":
        await plane.api.patch(POD, "default", name, {"metadata": {"labels": {"app": "gone"}}})
    elif change == "delete":
        await plane.api.delete(POD, "default", name)
    else:
        assert change == "none", change


def test_the_usage_plan_is_kept_until_the_assignment_changes() -> None:
    """``advance`` draws from a plan made once per assignment of pods to loads: the same
    plan while nothing changes, a new one (that of the new assignment) once a pod starts
    or leaves the load's selector."""

    def expected(usage: SimulatedUsage) -> UsagePlan:
        members, idle = usage._assign()
        served = [(pods, load.profile) for load, pods in members]
        return plan_usage([*served, (idle, IDLE_PROFILE)])

    async def body(plane: EmbeddedControlPlane) -> list[tuple[bool, bool, int]]:
        usage = plane.usage
        usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        seen = []
        first = None
        for change in ("none", "none", "scale", "relabel"):
            await make_change(plane, change)
            await asyncio.sleep(30)
            usage.advance(plane.clock.now())
            plan = usage._plans.plan()
            seen.append((plan is first, plan == expected(usage), len(plan.pods)))
            first = plan
        return seen

    assert with_plane(body) == [
        (False, True, 1),
        (True, True, 1),  # nothing changed: the same plan
        (False, True, 2),  # a second pod
        (False, True, 3),  # one pod left the load (idles now; its replacement serves)
    ]


class RecordingPush:
    """Stands for the ``PushMetricsProvider``: keeps each ``refresh_pod_metrics`` call, its
    values read at once (and their names checked)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, tuple[str, int | None]]]] = []

    def refresh_pod_metrics(
        self,
        namespace: str,
        metric: str,
        names: tuple[str, ...],
        values: Callable[[], dict[str, tuple[str, int | None]]],
    ) -> None:
        read = values()
        assert names == tuple(sorted(read))
        self.calls.append((namespace, metric, dict(read)))


def test_published_rates_are_each_pods_own_window_and_rate() -> None:
    """``publish`` works a window out once per distinct last publish and a text once per
    distinct rate: what it pushes is still each pod's own (served since its last publish,
    over its own window), pods published at different times included."""

    async def body(plane: EmbeddedControlPlane) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        usage = plane.usage
        recorder = RecordingPush()
        usage.push = recorder  # type: ignore[assignment]
        usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        await plane.api.patch(DEPLOYMENT, "default", "web", {"spec": {"replicas": 3}})
        seen = []
        for step in range(6):
            await asyncio.sleep(7 if step % 2 else 11)
            if step == 3:  # a pod leaves the load: its last publish falls behind the others'
                (pod, *_) = (await plane.api.list(POD, "default"))["items"]
                name = pod["metadata"]["name"]
                await plane.api.patch(POD, "default", name, {"metadata": {"labels": {"app": "x"}}})
            if step == 4:
                await plane.api.patch(
                    POD, "default", name, {"metadata": {"labels": {"app": "web"}}}
                )
            now = plane.clock.now()
            usage.advance(now)
            members, _ = usage._assign()
            expected: dict[str, Any] = {}
            for pod_load in members[0][1]:
                key = (pod_load.namespace, pod_load.name)
                mark = mark_of(usage._published, usage._last_publish, key)
                since, before = mark if mark is not None else (None, 0.0)
                if pod_load.ready and since is not None:
                    seconds = (now - since).total_seconds()
                    rate = (usage._ledger.requests_served(key) - before) / max(seconds, 1e-9)
                    expected[pod_load.name] = (f"{round(rate * 1000)}m", round(seconds))
            recorder.calls.clear()
            usage.publish()
            got = {name: value for _, _, values in recorder.calls for name, value in values.items()}
            seen.append((got, expected))
            # The table publish kept (per assignment) is the members' own, after a relabel
            # (a new assignment) too.
            kept = usage._rate_rows
            assert kept is not None
            assert kept[1] == rate_table(members)
        return seen

    seen = with_plane(body)
    assert all(got == expected for got, expected in seen)
    # One publish had pods with different last publishes (the pod back in the load).
    assert any(len({value[1] for value in got.values()}) > 1 for got, _ in seen)


class _Names:
    """A stand-in for the simulated nodes: only their names."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def is_lost(self, name: str) -> bool:
        return False


def test_the_listed_nodes_are_sorted_again_when_the_names_change() -> None:
    """``nodes_now`` (each scrape's node list) keeps the node names sorted once per set of
    names: it answers the sorted listed nodes, and another set is sorted afresh."""

    async def body(plane: EmbeddedControlPlane) -> list[list[str]]:
        usage = plane.usage
        seen = [usage.nodes_now(), usage.nodes_now(), sorted(await usage.nodes())]
        # ``nodes_now`` reads the registered names through the kept allocatables.
        usage._allocatables._nodes = _Names(frozenset({"node-3", "node-1", "elsewhere"}))  # type: ignore[assignment]
        seen.append(usage.nodes_now())
        usage._allocatables._nodes = _Names(frozenset({"node-2"}))  # type: ignore[assignment]
        seen.append(usage.nodes_now())
        return seen

    seen = with_plane(body)
    assert seen[:3] == [["node-1", "node-2", "node-3"]] * 3
    assert seen[3:] == [["node-1", "node-3"], ["node-2"]]


def test_the_allocatable_is_kept_until_a_node_changes() -> None:
    """``_allocatable`` answers the same dict while the lister holds the same node objects,
    and always what reading every node afresh gives: after a node's labels change (a new
    object, the same allocatable) and after its allocatable changes."""

    def afresh(usage: SimulatedUsage) -> dict[str, Resources]:
        lister = usage._allocatables.lister
        assert lister is not None
        found = {name: lister.get("", name) for name in sorted(usage._nodes.names)}
        return {name: node_allocatable(obj) for name, obj in found.items() if obj is not None}

    async def body(plane: EmbeddedControlPlane) -> list[tuple[bool, bool, int]]:
        usage = plane.usage
        seen = []
        kept = None
        for change in ("none", "none", "labels", "allocatable", "none"):
            if change == "labels":
                patch: dict[str, Any] = {"metadata": {"labels": {"tier": "x"}}}
                await plane.api.patch(NODE, None, "node-1", patch)
            if change == "allocatable":
                patch = {"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "50"}}}
                await plane.api.patch(NODE, None, "node-1", patch, subresource="status")
            await asyncio.sleep(1)
            answer = usage._allocatable()
            seen.append((answer is kept, answer == afresh(usage), answer["node-1"].milli_cpu))
            kept = answer
        return seen

    assert with_plane(body) == [
        (False, True, 4000),
        (True, True, 4000),  # the same node objects: the same answer
        (False, True, 4000),  # a new object: read again, the same allocatable
        (False, True, 2000),
        (True, True, 2000),
    ]


def test_the_credit_layout_is_kept_until_the_plan_pods_or_nodes_change() -> None:
    """``advance`` credits through a layout kept between advances: always equal to the
    layout made afresh from the current plan, pod views and allocatable, the same object
    while nothing changed, and a new one after a pod is added, relabelled, restarted or
    deleted, or a node's allocatable changes."""

    def afresh(usage: SimulatedUsage) -> CreditLayout:
        return credit_layout(usage._plans.plan(), usage._pods, usage._allocatable())

    async def body(plane: EmbeddedControlPlane) -> list[tuple[str, bool, bool, int]]:
        usage = plane.usage
        usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        seen = []
        kept = None
        changes = ("none", "none", "scale", "none", "node", "none", "restart", "relabel", "delete")
        for change in changes:
            await make_change(plane, change)
            await asyncio.sleep(30)
            usage.advance(plane.clock.now())
            assert usage._plans.laid is not None
            layout = usage._plans.laid[3]
            seen.append((change, layout is kept, layout == afresh(usage), len(layout.pods)))
            kept = layout
        return seen

    seen = with_plane(body)
    assert [(change, same, equal) for change, same, equal, _ in seen] == [
        ("none", False, True),
        ("none", True, True),  # nothing changed: the same layout
        ("scale", False, True),
        ("none", True, True),
        ("node", False, True),
        ("none", True, True),
        ("restart", False, True),
        ("relabel", False, True),
        ("delete", False, True),
    ]
    assert seen[2][3] == 2  # the second pod is laid out


def test_a_publish_reads_the_assignment_its_advance_just_made() -> None:
    """``publish`` takes the pods each load serves from the advance it just ran, when that
    advance integrated (else it asks ``_assign``): always what assigning the current pods
    afresh gives, after a scale and a relabel too."""

    def afresh(usage: SimulatedUsage) -> list[tuple[str, list[str]]]:
        members, _ = assign_pods(usage.loads(), usage._pods, usage._selectors.of)
        return [(load.name, [pod.name for pod in pods]) for load, pods in members]

    async def body(plane: EmbeddedControlPlane) -> list[tuple[str, bool, bool]]:
        usage = plane.usage
        usage.set_load("Deployment", "default", "web", ConstantRate(10.0), COST)
        seen = []
        for change in ("none", "scale", "relabel", "none"):
            await make_change(plane, change)
            await asyncio.sleep(31)  # off the publish grid: this publish's advance integrates
            usage.publish()
            used = usage._just_assigned
            expected = afresh(usage)
            got = (
                None
                if used is None
                else [(load.name, [pod.name for pod in pods]) for load, pods in used.members]
            )
            seen.append((change, used is not None, got == expected))
        return seen

    assert with_plane(body) == [
        ("none", True, True),
        ("scale", True, True),
        ("relabel", True, True),
        ("none", True, True),
    ]
