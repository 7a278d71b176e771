"""The ledger's kept bindings (``ledger_bindings``) read and credit as the general paths do:
a layout credited interval after interval through one binding leaves the ledger as
``credit_drawn`` with a fresh layout each time, and points read through a binding kept
across credits are ``pods_points``' answer, also after a pod's maps were dropped (the
invalidation case) and for a pod bound before it was ever credited."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.controllers.kapacity.kind import POD_STATE_LABEL
from podscale.runtime.load import (
    ContainerCost,
    ContainerResources,
    LoadProfile,
    PodLoad,
    draw_rows,
    plan_usage,
)
from podscale.runtime.simulated.credit_layout import credit_layout
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import RunningPod
from podscale.runtime.simulated.usage_ledger import UsageLedger

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NODES = {"node-1": Resources(milli_cpu=900, memory=2 * 1024**3)}


def state(ledger: UsageLedger) -> dict[str, Any]:
    """The ledger's bookkeeping, as plain maps."""
    return dict(ledger.contents())


def running(
    name: str,
    *,
    node: str = "node-1",
    at: int = -10,
    standby: bool = False,
    containers: tuple[str, ...] = ("web", "side"),
) -> RunningPod:
    load = PodLoad(name, tuple(ContainerResources(c) for c in containers), node=node)
    labels = {POD_STATE_LABEL: "Standby"} if standby else {}
    started = {"web": T0 + timedelta(seconds=at), "side": T0}
    return RunningPod(load, "u", labels, T0, {c: started[c] for c in containers})


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    starts=st.lists(st.integers(-30, 40), min_size=3, max_size=3),
    forget=st.sampled_from([None, "whole", "keep"]),
    at=st.integers(0, 3),
)
def test_a_kept_layout_credits_as_a_fresh_one(
    seed: int, starts: list[int], forget: str | None, at: int
) -> None:
    """Four intervals through one ``credit_laid`` layout (kept, as ``UsagePlans`` keeps it)
    against ``credit_drawn`` (a layout made afresh each time); before interval ``at`` both
    ledgers forget a pod wholly or keep its view (``forget``)."""
    pods = {
        p.key: p
        for p in (
            running("a", at=starts[0]),
            running("b", at=starts[1], standby=True),
            running("c", at=starts[2], node="gone"),
        )
    }
    loads = [p.load for p in pods.values()]
    profile = LoadProfile(default=ContainerCost(3.0, 1e6, 7.5, 2e5), noise_stddev=0.3)
    plan = plan_usage([(loads[:2], profile), (loads[2:], LoadProfile())])
    layout = credit_layout(plan, pods, NODES)
    kept, fresh = UsageLedger(), UsageLedger()
    kept_rng, fresh_rng = random.Random(seed), random.Random(seed)
    for index in range(4):
        if index == at and forget is not None:
            keep = pods[("default", "a")] if forget == "keep" else None
            kept.forget(("default", "a"), keep)
            fresh.forget(("default", "a"), keep)
        start = T0 + timedelta(seconds=15 * index)
        end = start + timedelta(seconds=15)
        rates = [100.0 * index, 3.0]
        kept.credit_laid(layout, draw_rows(plan, rates, NODES, kept_rng), start, end)
        fresh.credit_drawn(plan, draw_rows(plan, rates, NODES, fresh_rng), pods, NODES, start, end)
        assert state(kept) == state(fresh)


@pytest.mark.parametrize(
    "forget",
    [None, "whole", "keep"],
    ids=["kept", "after-forget", "after-forget-keeping"],
)
def test_kept_points_read_as_pods_points(forget: str | None) -> None:
    """A binding made before any credit (the pods' maps made empty) and kept over credits
    reads as ``pods_points``; a whole forget drops maps the binding held, so it is made
    again (and the dropped pod reads as never credited)."""
    # Pods of two containers and of one (bound as that container's cell).
    pods = (
        running("a"),
        running("b", at=5, containers=("web",)),
        running("c", standby=True),
        running("d", containers=("side",)),
    )
    ledger = UsageLedger()
    bound = ledger.points_binding(pods)
    assert ledger.bound_points(bound, T0) == ledger.pods_points(pods, T0)
    plan = plan_usage([(tuple(p.load for p in pods), LoadProfile(default=ContainerCost(5.0, 1e6)))])
    layout = credit_layout(plan, {p.key: p for p in pods}, NODES)
    rng = random.Random(7)
    rebound = False
    for index in range(3):
        if index == 2 and forget is not None:
            ledger.forget(pods[0].key, pods[0] if forget == "keep" else None)
        start = T0 + timedelta(seconds=15 * index)
        end = start + timedelta(seconds=15)
        ledger.credit_laid(layout, draw_rows(plan, [50.0], NODES, rng), start, end)
        again = ledger.points_binding(pods, bound)
        rebound, bound = rebound or again is not bound, again
        got = ledger.bound_points(bound, end)
        assert got == ledger.pods_points(pods, end)
        assert list(got) == list(ledger.pods_points(pods, end))
    assert rebound == (forget == "whole")


def test_a_pod_without_a_counter_plan_reads_through_the_general_path() -> None:
    """A view whose container has no start time keeps ``pods_points``' KeyError."""
    whole = running("a")
    broken = RunningPod(whole.load, "u", {}, T0, {"web": T0})
    ledger = UsageLedger()
    bound = ledger.points_binding((whole, broken))
    with pytest.raises(KeyError):
        ledger.bound_points(bound, T0)
