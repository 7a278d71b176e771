"""The Deployment controller on virtual time: a new Deployment gets one ReplicaSet named by
its pod-template-hash, pods, status and conditions; scaling through the ``scale``
subresource; scale to zero and back; kubectl's rollout status verdict."""

from __future__ import annotations

import re

import pytest

from podscale.controllers.deployment.hashing import compute_hash

from .cluster import NAME_PATTERN
from .deploy_cluster import (
    DEPLOYMENT,
    REVISION,
    DeployCluster,
    deployment,
    kubectl_rollout_status,
    run_deploy,
)


@pytest.mark.parametrize("replicas", [1, 3], ids=["one", "three"])
def test_create_makes_one_hashed_replica_set_and_reports_complete(replicas: int) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        created = await cluster.api.create(DEPLOYMENT, "default", deployment("web", replicas))
        await cluster.settle(30)
        [rs] = await cluster.replica_sets()
        template_hash = compute_hash(created["spec"]["template"])
        assert re.fullmatch(NAME_PATTERN, template_hash[:5])
        assert rs["metadata"]["name"] == f"web-{template_hash}"
        assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": template_hash}
        assert rs["spec"]["selector"] == {
            "matchLabels": {"app": "web", "pod-template-hash": template_hash}
        }
        assert rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == template_hash
        assert rs["metadata"]["ownerReferences"] == [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "web",
                "uid": created["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        assert rs["metadata"]["annotations"] == {
            REVISION: "1",
            "deployment.kubernetes.io/desired-replicas": str(replicas),
            "deployment.kubernetes.io/max-replicas": str(replicas + 1),
        }
        pods = await cluster.pods_of(rs)
        assert len(pods) == replicas
        assert all(p["metadata"]["labels"]["pod-template-hash"] == template_hash for p in pods)
        d = await cluster.deploy()
        assert d["metadata"]["annotations"] == {REVISION: "1"}
        status = d["status"]
        assert {k: v for k, v in status.items() if k != "conditions"} == {
            "observedGeneration": 1,
            "replicas": replicas,
            "updatedReplicas": replicas,
            "readyReplicas": replicas,
            "availableReplicas": replicas,
        }
        conditions = {c["type"]: c for c in status["conditions"]}
        assert conditions["Available"]["status"] == "True"
        assert conditions["Available"]["reason"] == "MinimumReplicasAvailable"
        assert conditions["Available"]["message"] == "Deployment has minimum availability."
        progressing = conditions["Progressing"]
        assert (progressing["status"], progressing["reason"]) == ("True", "NewReplicaSetAvailable")
        assert (
            progressing["message"]
            == f'ReplicaSet "web-{template_hash}" has successfully progressed.'
        )
        assert kubectl_rollout_status(d) == ('deployment "web" successfully rolled out', True)
        assert await cluster.deployment_events() == [
            f"Scaled up replica set web-{template_hash} from 0 to {replicas}"
        ]

    run_deploy(scenario)


def test_status_before_pods_are_ready_keeps_rollout_status_waiting() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(DEPLOYMENT, "default", deployment("web", 3))
        await cluster.settle(5)
        d = await cluster.deploy()
        assert d["status"]["updatedReplicas"] == 3
        assert "availableReplicas" not in d["status"]
        assert d["status"]["unavailableReplicas"] == 3
        conditions = {c["type"]: c for c in d["status"]["conditions"]}
        assert (conditions["Available"]["status"], conditions["Available"]["reason"]) == (
            "False",
            "MinimumReplicasUnavailable",
        )
        assert conditions["Progressing"]["reason"] == "ReplicaSetUpdated"
        assert kubectl_rollout_status(d) == ("0 of 3 updated replicas are available", False)

    run_deploy(scenario, ready_after=None)


@pytest.mark.parametrize(
    ("steps", "events"),
    [
        ((5,), ["from 0 to 2", "Scaled up replica set {rs} from 2 to 5"]),
        (
            (0, 3),
            [
                "from 0 to 2",
                "Scaled down replica set {rs} from 2 to 0",
                "Scaled up replica set {rs} from 0 to 3",
            ],
        ),
        ((1,), ["from 0 to 2", "Scaled down replica set {rs} from 2 to 1"]),
    ],
    ids=["up", "to-zero-and-back", "down"],
)
def test_scale_subresource_resizes_the_only_replica_set(
    steps: tuple[int, ...], events: list[str]
) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(30)
        for replicas in steps:
            await cluster.scale_deployment(replicas)
            await cluster.settle(30)
            [rs] = await cluster.replica_sets()
            assert rs["spec"]["replicas"] == replicas
            assert rs["metadata"]["annotations"][
                "deployment.kubernetes.io/desired-replicas"
            ] == str(replicas)
            assert len(await cluster.pods_of(rs)) == replicas
            d = await cluster.deploy()
            assert d["status"].get("replicas", 0) == replicas
            assert d["status"].get("availableReplicas", 0) == replicas
            assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
            assert kubectl_rollout_status(d)[1]
        name = rs["metadata"]["name"]
        messages = await cluster.deployment_events()
        assert messages[0].endswith(events[0])
        assert messages[1:] == [e.format(rs=name) for e in events[1:]]
        assert [r["metadata"]["name"] for r in await cluster.replica_sets()] == [name]

    run_deploy(scenario)
