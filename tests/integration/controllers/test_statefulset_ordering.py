"""The StatefulSet controller on virtual time: OrderedReady creation and scale-down order,
scaling through the ``scale`` subresource, and Parallel pod management."""

from __future__ import annotations

import pytest

from .sts_cluster import STS, StsCluster, run_scenario, stateful_set


def deletions(events: list[dict[str, object]]) -> list[str]:
    return [str(e["message"]) for e in events if e["reason"] == "SuccessfulDelete"]


@pytest.mark.parametrize("replicas", [2, 4], ids=["two", "four"])
def test_ordered_ready_creates_one_pod_after_another(replicas: int) -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", replicas))
        for ordinal in range(replicas):
            await cluster.settle(30)
            expected = [f"web-{i}" for i in range(ordinal + 1)]
            assert await cluster.pod_names() == expected, "waits for the previous pod"
            await cluster.make_ready(f"web-{ordinal}")
        await cluster.settle()
        assert len(await cluster.pod_names()) == replicas
        created = [
            e["message"] for e in await cluster.events() if e["reason"] == "SuccessfulCreate"
        ]
        assert created == [
            f"create Pod web-{i} in StatefulSet web successful" for i in range(replicas)
        ]

    run_scenario(scenario)


def test_scale_subresource_up_then_down_from_the_top() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 1))
        await cluster.settle()
        await cluster.make_ready("web-0")
        await cluster.scale("web", 3)
        await cluster.bring_up(3)
        assert await cluster.pod_names() == ["web-0", "web-1", "web-2"]
        await cluster.scale("web", 1)
        await cluster.settle(30)
        assert await cluster.pod_names() == ["web-0"]
        assert deletions(await cluster.events()) == [
            "delete Pod web-2 in StatefulSet web successful",
            "delete Pod web-1 in StatefulSet web successful",
        ]
        status = (await cluster.sts("web"))["status"]
        assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (
            1,
            1,
            1,
        )

    run_scenario(scenario)


def test_scale_down_waits_while_a_lower_pod_is_unhealthy() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 3))
        await cluster.bring_up(3)
        await cluster.set_phase("web-0", "Running", ready=False)
        await cluster.scale("web", 1)
        await cluster.settle(60)
        assert await cluster.pod_names() == ["web-0", "web-1", "web-2"]
        await cluster.make_ready("web-0")
        await cluster.settle(30)
        assert await cluster.pod_names() == ["web-0"]

    run_scenario(scenario)


def test_parallel_creates_and_deletes_all_at_once() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 4, policy="Parallel"))
        await cluster.settle()
        assert await cluster.pod_names() == ["web-0", "web-1", "web-2", "web-3"]
        status = (await cluster.sts("web"))["status"]
        assert (status["replicas"], status["availableReplicas"]) == (4, 0)
        assert "readyReplicas" not in status
        await cluster.scale("web", 1)
        await cluster.settle()
        assert await cluster.pod_names() == ["web-0"]
        assert sorted(deletions(await cluster.events())) == [
            f"delete Pod web-{i} in StatefulSet web successful" for i in (1, 2, 3)
        ]

    run_scenario(scenario)


def test_ordinals_start_numbers_pods_from_it() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        sts = await cluster.api.create(
            STS, "default", stateful_set("web", 2, policy="Parallel", start=5)
        )
        await cluster.settle()
        assert await cluster.pod_names() == ["web-5", "web-6"]
        pod = await cluster.pod("web-6")
        assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "6"
        assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("web-6", "nginx")
        for event in await cluster.events():
            assert event["involvedObject"]["kind"] == "StatefulSet"
            assert event["involvedObject"]["uid"] == sts["metadata"]["uid"]
            assert event["source"] == {"component": "statefulset-controller"}

    run_scenario(scenario)
