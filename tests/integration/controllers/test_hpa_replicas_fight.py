"""The HPA controller reports who else writes its target's spec.replicas (kubernetes#25238).

An HPA scales a Deployment up; a GitOps controller ("argocd-controller") re-applies the
manifest with ``replicas: 1`` every minute. Within one sync of each write the HPA carries
podscale's ``ReplicasContested`` condition naming the manager and the fix, a Warning event
says the same, the stored decision trace has it (``contest``), and ``hpa/replicas-writes``
lists the writes; the second write within the window makes it a loop. Neither the HPA's
own ``/scale`` writes, the Deployment controller's status writes, a CronHPA raising the
HPA's bounds and the target with them, nor a scale to zero and back count.

``write_as`` writes as a named manager: through the API server's field manager
(``field_manager=``) when the in-process API takes one, else by putting the entry the
server would keep into ``metadata.managedFields`` (a server that does not maintain them
stores the client's). Both give the controller the same target to read.
"""

from __future__ import annotations

import asyncio
from typing import Any

from podscale.api.kinds import kind_for
from podscale.hpa.contest import REPLICAS_WRITES_STATE
from podscale.hpa.contest_verdict import (
    REASON_FIGHT_LOOP,
    REASON_OVERWRITTEN,
    REPLICAS_CONTESTED,
    TRANSFER_DOCS,
)
from podscale.hpa.trace import LAST_DECISION_STATE

from .hpa_cluster import HPA, SYNC, HpaCluster, hpa, run_scenario, workload

JSON = dict[str, Any]
DEPLOY = kind_for("apps/v1", "Deployment")
ARGO = "argocd-controller"


async def write_as(cluster: HpaCluster, manager: str, replicas: int) -> None:
    """Set the Deployment's spec.replicas with an update by ``manager``."""
    live = await cluster.api.get(DEPLOY, "default", "web")
    live["spec"]["replicas"] = replicas
    await cluster.api.update(DEPLOY, "default", live, field_manager=manager)


def contested(obj: JSON) -> JSON | None:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return next((dict(c) for c in conditions if c["type"] == REPLICAS_CONTESTED), None)


async def warnings(cluster: HpaCluster) -> list[tuple[str, str]]:
    return [
        (e["reason"], e["message"])
        for e in await cluster.events("web")
        if e["type"] == "Warning" and e["reason"] in (REASON_OVERWRITTEN, REASON_FIGHT_LOOP)
    ]


async def scaled_up(cluster: HpaCluster, **spec: Any) -> str:
    """A Deployment at 1 replica whose HPA scales it to 5; the HPA's uid."""
    await cluster.start()
    cluster.metrics.usage["web"] = "150m"  # three times the target per pod: max wanted
    await cluster.api.create(DEPLOY, "default", workload("Deployment", "web", 1))
    await cluster.api.create(HPA, "default", hpa("web", "web", kind="Deployment", **spec))
    await asyncio.sleep(4 * SYNC)
    assert await cluster.replicas("web", "Deployment") == 5
    return str((await cluster.hpa("web"))["metadata"]["uid"])


def test_a_gitops_loop_resetting_replicas_is_reported_within_one_sync() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        uid = await scaled_up(cluster)
        # The HPA's own writes and the Deployment controller's status writes: no fight.
        assert contested(await cluster.hpa("web")) is None
        assert await warnings(cluster) == []
        assert cluster.history.get_state(uid, REPLICAS_WRITES_STATE) is not None

        await write_as(cluster, ARGO, 1)
        await asyncio.sleep(SYNC + 1)
        condition = contested(await cluster.hpa("web"))
        assert condition is not None
        assert (condition["status"], condition["reason"]) == ("True", REASON_OVERWRITTEN)
        assert f'manager "{ARGO}" (Update)' in condition["message"]
        assert "Deployment/web was set to 1" in condition["message"]
        assert TRANSFER_DOCS in condition["message"]
        assert await warnings(cluster) == [(REASON_OVERWRITTEN, condition["message"])]
        trace = cluster.history.get_state(uid, LAST_DECISION_STATE)
        assert trace is not None
        assert trace["contest"]["manager"] == ARGO
        assert trace["contest"]["reason"] == REASON_OVERWRITTEN
        assert await cluster.replicas("web", "Deployment") > 1  # the HPA scales back, as upstream

        await asyncio.sleep(60 - SYNC - 1)
        await write_as(cluster, ARGO, 1)  # the next sync of the GitOps controller
        await asyncio.sleep(SYNC + 1)
        condition = contested(await cluster.hpa("web"))
        assert condition is not None
        assert (condition["status"], condition["reason"]) == ("True", REASON_FIGHT_LOOP)
        assert "2 writes in the last 30m" in condition["message"]
        assert "drop replicas from the manifest" in condition["message"]
        assert [reason for reason, _ in await warnings(cluster)] == [
            REASON_OVERWRITTEN,
            REASON_FIGHT_LOOP,
        ]
        trace = cluster.history.get_state(uid, LAST_DECISION_STATE)
        assert trace is not None
        assert trace["contest"]["reason"] == REASON_FIGHT_LOOP
        stored = cluster.history.get_state(uid, REPLICAS_WRITES_STATE)
        assert stored is not None
        assert [(w["manager"], w["replicas"], w["contested"]) for w in stored["writes"]] == [
            (ARGO, 1, True),
            (ARGO, 1, True),
        ]

    run_scenario(scenario)


def test_cooperating_writers_are_no_fight() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await scaled_up(cluster)
        cluster.metrics.usage["web"] = "10m"  # now the metrics want the minimum
        # Between two syncs: a sync at the very instant of the job could still read the
        # HPA's old bounds from its informer and undo the job once (a real, brief fight).
        await asyncio.sleep(SYNC / 2)
        # A CronHPA job of size 7 on the HPA, as kubernetes-cronhpa-controller runs one
        # (``controllers.cronhpa.hpa_target``): both bounds raised to 7, then the target
        # scaled to it through /scale.
        await cluster.api.patch(
            HPA, "default", "web", {"spec": {"minReplicas": 7, "maxReplicas": 7}}
        )
        scale = await cluster.api.get(DEPLOY, "default", "web", "scale")
        scale["spec"]["replicas"] = 7
        await cluster.api.update(DEPLOY, "default", scale, "scale")
        await asyncio.sleep(3 * SYNC)
        assert await cluster.replicas("web", "Deployment") == 7
        # Scaling to zero disables the HPA (as KEDA deactivates a workload); back to 2.
        scale = await cluster.api.get(DEPLOY, "default", "web", "scale")
        scale["spec"]["replicas"] = 0
        await cluster.api.update(DEPLOY, "default", scale, "scale")
        await asyncio.sleep(2 * SYNC)
        scale = await cluster.api.get(DEPLOY, "default", "web", "scale")
        scale["spec"]["replicas"] = 2
        await cluster.api.update(DEPLOY, "default", scale, "scale")
        await asyncio.sleep(2 * SYNC)
        assert contested(await cluster.hpa("web")) is None
        assert await warnings(cluster) == []

    run_scenario(scenario)
