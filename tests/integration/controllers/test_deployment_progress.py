"""Progress reporting on virtual time: a rollout whose pods never become ready is reported
ProgressDeadlineExceeded right after ``progressDeadlineSeconds`` (the controller requeues
itself; nothing else happens to wake it), kubectl's rollout status then fails, and a
pause stops the clock."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi

from .cluster import Passthrough
from .deploy_cluster import (
    DEPLOYMENT,
    DeployCluster,
    deployment,
    kubectl_rollout_status,
    run_deploy,
)


def _progressing(d: dict[str, Any]) -> dict[str, str]:
    conditions: list[dict[str, str]] = d["status"]["conditions"]
    return next(c for c in conditions if c["type"] == "Progressing")


@pytest.mark.parametrize("deadline", [30, 90], ids=["30s", "90s"])
def test_progress_deadline_exceeded_when_pods_never_become_ready(deadline: int) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 2, progressDeadlineSeconds=deadline)
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(deadline - 5)
        d = await cluster.deploy()
        [rs] = await cluster.replica_sets()
        name = rs["metadata"]["name"]
        progressing = _progressing(d)
        assert (progressing["status"], progressing["reason"]) == ("True", "ReplicaSetUpdated")
        assert progressing["message"] == f'ReplicaSet "{name}" is progressing.'
        assert kubectl_rollout_status(d) == ("0 of 2 updated replicas are available", False)
        await cluster.settle(8)  # past the deadline (+1 s of upstream's requeue slack)
        d = await cluster.deploy()
        progressing = _progressing(d)
        assert (progressing["status"], progressing["reason"], progressing["message"]) == (
            "False",
            "ProgressDeadlineExceeded",
            f'ReplicaSet "{name}" has timed out progressing.',
        )
        assert kubectl_rollout_status(d) == (
            'error: deployment "web" exceeded its progress deadline',
            False,
        )
        # Late readiness is progress again: the rollout completes and says so.
        await cluster.ready_all()
        await cluster.settle(10)
        d = await cluster.deploy()
        assert _progressing(d)["reason"] == "NewReplicaSetAvailable"
        assert kubectl_rollout_status(d)[1]

    run_deploy(scenario, ready_after=None)


def test_a_paused_deployment_never_times_out() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 2, progressDeadlineSeconds=30)
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(10)
        await cluster.patch_deployment({"spec": {"paused": True}})
        await cluster.settle(120)
        d = await cluster.deploy()
        assert (_progressing(d)["status"], _progressing(d)["reason"]) == (
            "Unknown",
            "DeploymentPaused",
        )
        await cluster.patch_deployment({"spec": {"paused": False}})
        await cluster.settle(5)
        d = await cluster.deploy()
        assert (_progressing(d)["status"], _progressing(d)["reason"]) == (
            "Unknown",
            "DeploymentResumed",
        )
        await cluster.settle(40)
        assert _progressing(await cluster.deploy())["reason"] == "ProgressDeadlineExceeded"

    run_deploy(scenario, ready_after=None)


def test_no_progress_deadline_means_no_progressing_condition() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 1, progressDeadlineSeconds=2**31 - 1)
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        d = await cluster.deploy()
        assert [c["type"] for c in d["status"]["conditions"]] == ["Available"]
        assert kubectl_rollout_status(d)[1]

    run_deploy(scenario)


class RefusingReplicaSets(Passthrough):
    """The in-process API, except that the first ``refusals`` ReplicaSet creations get a 403."""

    def __init__(self, inner: InProcessApi, refusals: int) -> None:
        super().__init__(inner)
        self.refusals = refusals

    async def create(self, kind: KindInfo, namespace: str | None, obj: dict[str, Any]) -> Any:
        if kind.kind == "ReplicaSet" and self.refusals > 0:
            self.refusals -= 1
            message = f'replicasets.apps "{obj["metadata"]["name"]}" is forbidden: quota'
            raise ApiError(403, {"kind": "Status", "message": message, "code": 403})
        return await self.inner.create(kind, namespace, obj)


def test_refused_replica_set_creation_is_reported_then_retried() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(0.001)  # the first attempt only
        d = await cluster.deploy()
        warnings = [e for e in await cluster.events() if e["type"] == "Warning"]
        [rs_name] = {e["message"].split('"')[1] for e in warnings}
        message = (
            f'Failed to create new replica set "{rs_name}": '
            f'replicasets.apps "{rs_name}" is forbidden: quota'
        )
        assert {(e["reason"], e["message"]) for e in warnings} == {
            ("ReplicaSetCreateError", message)
        }
        assert (_progressing(d)["status"], _progressing(d)["reason"]) == (
            "False",
            "ReplicaSetCreateError",
        )
        assert _progressing(d)["message"] == message
        await cluster.settle(60)  # the rate-limited retries get through
        d = await cluster.deploy()
        [rs] = await cluster.replica_sets()
        assert rs["metadata"]["name"] == rs_name
        assert _progressing(d)["reason"] == "NewReplicaSetAvailable"
        assert kubectl_rollout_status(d)[1]

    run_deploy(scenario, wrap=lambda api: RefusingReplicaSets(api, 3))
