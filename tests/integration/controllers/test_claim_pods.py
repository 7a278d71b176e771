"""``claim_pods`` against the in-process API: adoption rechecks the owner with a fresh read
(upstream's RecheckDeletionTimestamp) and reports upstream's errors; release and adoption
patch ownerReferences and keep unrelated references."""

from __future__ import annotations

import re
from typing import Any

import pytest

from podscale.client.http import ApiError
from podscale.controllers.runtime_pods import claim_pods
from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, Passthrough, bare_pod, replica_set

JSON = dict[str, Any]


def run(scenario: Any) -> Any:
    async def main() -> tuple[Any]:
        return (await scenario(Cluster()),)

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None
    return result[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            "deleting",
            r"can't adopt Pod default/stray \([-0-9a-f]+\): default/web has just been deleted "
            r"at 2026-03-01 00:00:00 \+0000 UTC",
        ),
        (
            "recreated",
            r"can't adopt Pod default/stray \([-0-9a-f]+\): can't recheck DeletionTimestamp: "
            r"original ReplicaSet default/web is gone: got uid [-0-9a-f]+, wanted [-0-9a-f]+",
        ),
        (
            "gone",
            r"can't adopt Pod default/stray \([-0-9a-f]+\): can't recheck DeletionTimestamp: "
            r'replicasets.apps "web" not found',
        ),
    ],
    ids=["owner-being-deleted", "owner-recreated", "owner-gone"],
)
def test_adoption_rechecks_the_owner_with_a_fresh_read(change: str, message: str) -> None:
    async def scenario(cluster: Cluster) -> None:
        body = replica_set("web", 1)
        if change == "deleting":
            body["metadata"]["finalizers"] = ["example.com/hold"]
        stale = await cluster.api.create(RS, "default", body)
        await cluster.api.delete(RS, "default", "web")
        if change == "recreated":
            await cluster.api.create(RS, "default", replica_set("web", 1))
        stray = await cluster.api.create(POD, "default", bare_pod("stray", {"app": "web"}))
        with pytest.raises(RuntimeError) as caught:
            await claim_pods(cluster.api, stale, [stray])
        assert re.fullmatch(message, str(caught.value))
        after = await cluster.api.get(POD, "default", "stray")
        assert not after["metadata"].get("ownerReferences")

    run(scenario)


def test_claims_keep_adopt_release_and_ignore_in_one_pass() -> None:
    async def scenario(cluster: Cluster) -> list[str]:
        rs = await cluster.api.create(RS, "default", replica_set("web", 1))
        mine = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "web",
            "uid": rs["metadata"]["uid"],
            "controller": True,
        }
        other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u-cm"}
        pods = [
            bare_pod("kept", {"app": "web"}, owners=[mine]),
            bare_pod("orphan", {"app": "web"}, owners=[other]),
            bare_pod("moved", {"app": "db"}, owners=[other, mine]),
            bare_pod("foreign", {"app": "web"}, owners=[{**other, "controller": True}]),
        ]
        created = [await cluster.api.create(POD, "default", pod) for pod in pods]
        claimed = await claim_pods(cluster.api, rs, created)
        orphan = await cluster.api.get(POD, "default", "orphan")
        # The order of the merged list is the server's strategic-merge business.
        assert sorted(r["uid"] for r in orphan["metadata"]["ownerReferences"]) == sorted(
            ["u-cm", rs["metadata"]["uid"]]
        )
        moved = await cluster.api.get(POD, "default", "moved")
        assert moved["metadata"]["ownerReferences"] == [other]
        return [p["metadata"]["name"] for p in claimed]

    assert run(scenario) == ["kept", "orphan"]


class RefusingPatches(Passthrough):
    """The in-process API, with every pod patch answered ``code`` (as ``ReleasePod`` and
    ``AdoptPod`` may see from a real server)."""

    def __init__(self, inner: Any, code: int) -> None:
        super().__init__(inner)
        self.code = code

    async def patch(self, *args: Any, **kwargs: Any) -> JSON:
        raise ApiError(self.code, {"message": f"refused with {self.code}", "code": self.code})


@pytest.mark.parametrize(
    ("code", "action", "raises"),
    [
        (422, "release", False),
        (404, "release", False),
        (409, "release", True),
        (422, "adopt", True),
        (404, "adopt", False),
    ],
    ids=[
        "release-invalid-ignored",
        "release-gone-ignored",
        "release-conflict-reported",
        "adopt-invalid-reported",
        "adopt-gone-ignored",
    ],
)
def test_claim_errors_that_upstream_ignores(code: int, action: str, raises: bool) -> None:
    async def scenario(cluster: Cluster) -> None:
        rs = await cluster.api.create(RS, "default", replica_set("web", 1))
        mine = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"}
        mine |= {"uid": rs["metadata"]["uid"], "controller": True}
        pod = (
            bare_pod("moved", {"app": "db"}, owners=[mine])
            if action == "release"
            else bare_pod("orphan", {"app": "web"})
        )
        created = await cluster.api.create(POD, "default", pod)
        api = RefusingPatches(cluster.api, code)
        if raises:
            with pytest.raises(ApiError, match=f"refused with {code}"):
                await claim_pods(api, rs, [created])  # type: ignore[arg-type]
        else:
            assert await claim_pods(api, rs, [created]) == []  # type: ignore[arg-type]

    run(scenario)
