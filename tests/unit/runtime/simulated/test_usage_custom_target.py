"""SimulatedUsage on a custom target: the load of a kind with a scale subresource (here a
``Widget`` with no controller, its ``status.selector`` written by the test) goes to the pods
its Scale's ``status.selector`` chooses, as an HPA finds them, and follows a new selector
from the instant it is written; a deleted target's pods idle. Built-in kinds without a scale
subresource are still refused."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import ConstantRate, ContainerCost, LoadProfile
from podscale.runtime.simulated import SimulatedUsage

T = TypeVar("T")
START = datetime(2026, 2, 1, tzinfo=UTC)
DEPLOYMENT = kind_for("apps/v1", "Deployment")
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
GROUP = "tests.podscale.dev"
API_VERSION = f"{GROUP}/v1"
COST = LoadProfile(default=ContainerCost(milli_cpu_per_rps=10.0))
MILLI_SECOND_NS = 1_000_000
WIDGETS: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {
            "kind": "Widget",
            "plural": "widgets",
            "singular": "widget",
            "listKind": "WidgetList",
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
            }
        ],
    },
}


def deployment(name: str) -> dict[str, Any]:
    container = {"name": "app", "image": "app", "resources": {"requests": {"cpu": "100m"}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container]},
            },
        },
    }


async def widget_kind(plane: EmbeddedControlPlane) -> KindInfo:
    await plane.api.create(CRD, None, WIDGETS)
    return await plane.api.resolve_kind(GROUP, "v1", "widgets")


def with_plane(body: Callable[[EmbeddedControlPlane, KindInfo], Awaitable[T]]) -> T:
    """``body`` against a started plane running one ready pod of ``a`` and one of ``b``
    (at 20 s), and the ``Widget`` ``w`` whose Scale selects ``app=a``."""
    clock = VirtualClock(START)

    async def main() -> T:
        plane = EmbeddedControlPlane(clock, seed=3)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            kind = await widget_kind(plane)
            for name in ("a", "b"):
                await plane.api.create(DEPLOYMENT, "default", deployment(name))
            widget = {
                "apiVersion": API_VERSION,
                "kind": "Widget",
                "metadata": {"name": "w", "namespace": "default"},
                "spec": {"replicas": 1},
            }
            await plane.api.create(kind, "default", widget)
            await select(plane, kind, "app=a")
            await asyncio.sleep(20)
            return await body(plane, kind)
        finally:
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert result is not None
    return result


async def select(plane: EmbeddedControlPlane, kind: KindInfo, selector: str) -> None:
    patch = {"status": {"selector": selector, "replicas": 1}}
    await plane.api.patch(
        kind,
        "default",
        "w",
        patch,
        content_type="application/merge-patch+json",
        subresource="status",
    )


async def counters(usage: SimulatedUsage) -> dict[str, int]:
    """Each pod's CPU counter (nanoseconds) by its Deployment's name (the label ``app``)."""
    found: dict[str, int] = {}
    for node in await usage.nodes():
        for pod in (await usage.summary(node)).pods:
            (container,) = pod.containers
            assert container.cpu is not None
            assert container.cpu.usage_core_nano_seconds
            found[pod.name.split("-")[0]] = container.cpu.usage_core_nano_seconds
    return found


async def cpu_over(plane: EmbeddedControlPlane, seconds: float) -> dict[str, float]:
    """Millicore-seconds each pod used over the next ``seconds``."""
    before = await counters(plane.usage)
    await asyncio.sleep(seconds)
    after = await counters(plane.usage)
    return {name: (after[name] - before[name]) / MILLI_SECOND_NS for name in sorted(after)}


def test_the_load_goes_to_the_pods_of_the_scale_selector_and_follows_it() -> None:
    async def body(plane: EmbeddedControlPlane, kind: KindInfo) -> list[dict[str, float]]:
        plane.usage.set_origin(plane.clock.now())
        plane.usage.set_load(
            "Widget", "default", "w", ConstantRate(10.0), COST, api_version=API_VERSION
        )
        first = await cpu_over(plane, 15)
        await select(plane, kind, "app=b")
        second = await cpu_over(plane, 15)
        await plane.api.delete(kind, "default", "w")
        third = await cpu_over(plane, 15)
        return [first, second, third]

    first, second, third = with_plane(body)
    # 10 req/s x 10m = 100m for 15 s on the selected pod; the other idles at 1m.
    assert first == pytest.approx({"a": 1500, "b": 15}, abs=1)
    assert second == pytest.approx({"a": 15, "b": 1500}, abs=1)
    assert third == pytest.approx({"a": 15, "b": 15}, abs=1)


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [("v1", "Pod"), ("autoscaling/v2", "HorizontalPodAutoscaler"), ("apps/v1", "Widget")],
    ids=["pod", "hpa", "unknown-kind-in-a-built-in-group"],
)
def test_a_built_in_kind_without_a_scale_subresource_takes_no_load(
    api_version: str, kind: str
) -> None:
    async def body(plane: EmbeddedControlPlane, _: KindInfo) -> str:
        with pytest.raises(ValueError, match=f"cannot load a {kind}") as failure:
            plane.usage.set_load(kind, "default", "w", ConstantRate(1.0), api_version=api_version)
        return str(failure.value)

    assert "or a custom kind with a scale subresource" in with_plane(body)
