"""The Deployment's ReplicaSets and the StatefulSet's pods are claimed by the same
``ClaimObject`` loop as the ReplicaSet's pods (``runtime_pods.claim_objects``), so they report
upstream's errors: an adoption refused by the fresh recheck is wrapped in "can't adopt
<Kind> ns/name (uid)", a deleting owner is "has just been deleted at <time>", and an adopted
object comes back as the patch returned it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.controllers.deployment.claim import claim_replica_sets
from podscale.controllers.statefulset.pod_control import claim_stateful_pods
from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, bare_pod, replica_set

JSON = dict[str, Any]
DEPLOYMENT = kind_for("apps/v1", "Deployment")
STATEFUL_SET = kind_for("apps/v1", "StatefulSet")
_DELETED_AT = "default/web has just been deleted at 2026-03-01 00:00:00 +0000 UTC"


def run(scenario: Any) -> Any:
    async def main() -> tuple[Any]:
        return (await scenario(Cluster()),)

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None
    return result[0]


def _orphan_replica_set() -> JSON:
    body = replica_set("web-1", 1, app="web")
    body["metadata"]["labels"] = {"app": "web"}  # what the Deployment's selector matches
    return body


def _workload(kind: str) -> JSON:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
    }
    spec: JSON = {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": template}
    if kind == "StatefulSet":
        spec["serviceName"] = "web"
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default", "finalizers": ["example.com/hold"]},
        "spec": spec,
    }


@pytest.mark.parametrize("owner_kind", ["Deployment", "StatefulSet"])
def test_a_deleting_owner_cannot_adopt_and_says_so_as_upstream(owner_kind: str) -> None:
    owner_api = DEPLOYMENT if owner_kind == "Deployment" else STATEFUL_SET

    async def scenario(cluster: Cluster) -> str:
        stale = await cluster.api.create(owner_api, "default", _workload(owner_kind))
        await cluster.api.delete(owner_api, "default", "web")  # held by its finalizer
        if owner_kind == "Deployment":
            orphan = await cluster.api.create(RS, "default", _orphan_replica_set())
            claim = claim_replica_sets(cluster.api, stale, [orphan])
        else:
            orphan = await cluster.api.create(POD, "default", bare_pod("web-0", {"app": "web"}))
            claim = claim_stateful_pods(cluster.api, stale, [orphan])
        with pytest.raises(RuntimeError) as caught:
            await claim
        return str(caught.value)

    owned = "ReplicaSet default/web-1" if owner_kind == "Deployment" else "Pod default/web-0"
    message = run(scenario)
    assert re.fullmatch(
        rf"can't adopt {owned} \([-0-9a-f]+\): {re.escape(_DELETED_AT)}", message
    ), message


def test_an_adopted_replica_set_comes_back_as_patched() -> None:
    async def scenario(cluster: Cluster) -> tuple[JSON, JSON]:
        body = _workload("Deployment")
        body["metadata"].pop("finalizers")
        deployment = await cluster.api.create(DEPLOYMENT, "default", body)
        orphan = await cluster.api.create(RS, "default", _orphan_replica_set())
        [claimed] = await claim_replica_sets(cluster.api, deployment, [orphan])
        return deployment, claimed

    deployment, claimed = run(scenario)
    [ref] = claimed["metadata"]["ownerReferences"]
    assert (ref["kind"], ref["uid"], ref["controller"]) == (
        "Deployment",
        deployment["metadata"]["uid"],
        True,
    )
