"""The StatefulSet controller on virtual time: failed pods replaced under the same name,
status fields (minReadySeconds, revisions), the ``scale`` subresource an HPA reads,
adoption of orphans and a rolling update of the template."""

from __future__ import annotations

from .sts_cluster import POD, STS, StsCluster, run_scenario, stateful_set


def test_failed_pod_is_recreated_with_the_same_name() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 2))
        await cluster.bring_up(2)
        old_uid = (await cluster.pod("web-1"))["metadata"]["uid"]
        await cluster.make_failed("web-1")
        await cluster.settle(30)
        assert await cluster.pod_names() == ["web-0", "web-1"]
        replacement = await cluster.pod("web-1")
        assert replacement["metadata"]["uid"] != old_uid
        assert replacement["status"]["phase"] == "Pending"
        counts = {e["message"]: e["count"] for e in await cluster.events()}
        # The second create of web-1 counts on the first one's Event (the correlator).
        assert counts["delete Pod web-1 in StatefulSet web successful"] == 1
        assert counts["create Pod web-1 in StatefulSet web successful"] == 2

    run_scenario(scenario)


def test_status_tracks_ready_and_available_with_min_ready_seconds() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        sts = await cluster.api.create(STS, "default", stateful_set("web", 1, min_ready=20))
        await cluster.settle()
        await cluster.make_ready("web-0")
        await cluster.settle(10)
        status = (await cluster.sts("web"))["status"]
        revision = status["updateRevision"]
        assert revision.startswith("web-")
        assert status == {
            "observedGeneration": sts["metadata"]["generation"],
            "replicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 0,
            "currentReplicas": 1,
            "updatedReplicas": 1,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        await cluster.settle(20)
        assert (await cluster.sts("web"))["status"]["availableReplicas"] == 1
        pod = await cluster.pod("web-0")
        assert pod["metadata"]["labels"]["controller-revision-hash"] == revision

    run_scenario(scenario)


def test_scale_subresource_reports_replicas_and_selector() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 2))
        await cluster.bring_up(2)
        scale = await cluster.api.get(STS, "default", "web", "scale")
        assert scale["kind"] == "Scale"
        assert scale["spec"] == {"replicas": 2}
        assert scale["status"] == {"replicas": 2, "selector": "app=web"}
        await cluster.scale("web", 3)
        await cluster.bring_up(3)
        scale = await cluster.api.get(STS, "default", "web", "scale")
        assert (scale["spec"]["replicas"], scale["status"]["replicas"]) == (3, 3)

    run_scenario(scenario)


def test_orphan_members_are_adopted_and_strangers_ignored() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        for name in ("web-0", "web-extra"):
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            }
            await cluster.api.create(POD, "default", pod)
        await cluster.make_ready("web-0")
        sts = await cluster.api.create(STS, "default", stateful_set("web", 2))
        await cluster.bring_up(3)
        adopted = await cluster.pod("web-0")
        assert adopted["metadata"]["ownerReferences"][0]["uid"] == sts["metadata"]["uid"]
        assert adopted["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "web-0"
        assert "ownerReferences" not in (await cluster.pod("web-extra"))["metadata"]
        updates = [
            e["message"] for e in await cluster.events() if e["reason"] == "SuccessfulUpdate"
        ]
        assert updates == ["update Pod web-0 in StatefulSet web successful"]
        assert (await cluster.sts("web"))["status"]["replicas"] == 2

    run_scenario(scenario)


def test_template_change_rolls_pods_from_the_highest_ordinal() -> None:
    async def scenario(cluster: StsCluster) -> None:
        await cluster.start()
        await cluster.api.create(STS, "default", stateful_set("web", 3))
        await cluster.bring_up(3)
        before = (await cluster.sts("web"))["status"]["currentRevision"]
        template = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "v2"}]}}}}
        await cluster.api.patch(STS, "default", "web", template)
        for _ in range(12):
            await cluster.bring_up(3)
        status = (await cluster.sts("web"))["status"]
        assert status["updateRevision"] != before
        assert status["currentRevision"] == status["updateRevision"]
        assert (status["currentReplicas"], status["updatedReplicas"]) == (3, 3)
        for name in await cluster.pod_names():
            pod = await cluster.pod(name)
            assert pod["spec"]["containers"][0]["image"] == "v2"
        deleted = [
            e["message"].split()[2]
            for e in await cluster.events()
            if e["reason"] == "SuccessfulDelete"
        ]
        assert deleted == ["web-2", "web-1", "web-0"]

    run_scenario(scenario)
