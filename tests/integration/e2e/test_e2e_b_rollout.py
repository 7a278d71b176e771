"""An HPA on a Deployment in the middle of a rollout, through the whole stack.

The template changes (``kubectl set image``) and, while the rolling update is under way, the
HPA scales the Deployment up. Upstream's Deployment controller (pkg/controller/deployment/
sync.go, ``scale``) then scales proportionally: the added replicas are shared among the old
and new ReplicaSets by their sizes, never beyond ``replicas + maxSurge`` in total; the
rollout goes on and completes at the HPA's count, and only the HPA changes
``spec.replicas``. Pods take 20 s to become ready so the rollout lasts several HPA syncs;
the HPA follows an External metric so its count does not depend on the pods' readiness.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .e2e_b_manifests import JSON, NAMESPACE, deployment, external, hpa, scenario
from .e2e_b_plane import DEPLOYMENT, E2E, run_e2e

ROLL, END = 60.0, 300.0
LOAD_AFTER = 3.0  # the rollout has begun; its first new pod is ready only 22 s after ROLL
SURGE = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
STRATEGIC = "application/strategic-merge-patch+json"


@dataclass(frozen=True, slots=True)
class Sample:
    """One second of the rollout: the Deployment's replicas and each image's ReplicaSet."""

    at: float
    replicas: int
    by_image: dict[str, int]


@dataclass(frozen=True, slots=True)
class RolloutRun:
    e2e: E2E
    samples: list[Sample]
    deployment: JSON
    replica_sets: list[JSON]
    hpa_status: JSON


def image_of(rs: JSON) -> str:
    return str(rs["spec"]["template"]["spec"]["containers"][0]["image"])


async def sample(e2e: E2E) -> Sample:
    sets = await e2e.replica_sets("web")
    by_image = {image_of(rs): int(rs["spec"]["replicas"]) for rs in sets}
    return Sample(e2e.now(), await e2e.replicas("web"), by_image)


@pytest.fixture(scope="module")
def rollout() -> RolloutRun:
    # 40 / 20 = 2 pods before the rollout; 120 / 20 = 6 once it has begun.
    manifests = [
        deployment("web", 2, strategy=SURGE),
        hpa("web", "web", [external("queue", average_value="20")], max_replicas=8),
    ]

    async def body(e2e: E2E) -> RolloutRun:
        e2e.set_external("queue", "40")
        await e2e.advance(ROLL)
        patch = {
            "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "web:2"}]}}}
        }
        await e2e.api.patch(DEPLOYMENT, NAMESPACE, "web", patch, content_type=STRATEGIC)
        samples = []
        while e2e.now() < END:
            await e2e.advance(e2e.now() + 1, tick=1)
            samples.append(await sample(e2e))
            if e2e.now() == ROLL + LOAD_AFTER:
                e2e.set_external("queue", "120")
        return RolloutRun(
            e2e,
            samples,
            await e2e.api.get(DEPLOYMENT, NAMESPACE, "web"),
            await e2e.replica_sets("web"),
            (await e2e.hpa("web"))["status"],
        )

    return run_e2e(scenario("rollout", manifests, readiness_delay="20s"), body)


def test_the_hpa_scales_while_the_rollout_is_under_way(rollout: RolloutRun) -> None:
    scaled = [s for s in rollout.samples if s.replicas > 2]
    assert scaled
    first = scaled[0]
    assert first.by_image.get("web:2", 0) > 0  # the new ReplicaSet exists ...
    assert first.by_image.get("web:1", 0) > 0  # ... and the old one still runs


def test_scaling_mid_rollout_is_proportional(rollout: RolloutRun) -> None:
    before = [s for s in rollout.samples if s.replicas == 2]
    after = [s for s in rollout.samples if s.replicas > 2]
    old_before = before[-1].by_image["web:1"]
    # The first sample after the Deployment controller answered the new replicas (a sample
    # can fall between the HPA's scale write and that answer, in the same virtual second).
    pods_before = sum(before[-1].by_image.values())
    answered = next(s for s in after if sum(s.by_image.values()) > pods_before)
    assert answered.at - after[0].at <= 1
    # The old ReplicaSet, being the larger, took a share of the added replicas ...
    assert answered.by_image["web:1"] > old_before
    # ... and at no time did all ReplicaSets together exceed replicas + maxSurge.
    for s in rollout.samples:
        assert sum(s.by_image.values()) <= s.replicas + 1, s


def test_the_rollout_completes_at_the_hpa_count(rollout: RolloutRun) -> None:
    sets = {image_of(rs): rs for rs in rollout.replica_sets}
    assert sets["web:2"]["spec"]["replicas"] == 6
    assert sets["web:2"]["status"].get("readyReplicas") == 6
    assert sets["web:1"]["spec"]["replicas"] == 0
    status = rollout.deployment["status"]
    assert rollout.deployment["spec"]["replicas"] == 6
    assert (status["updatedReplicas"], status["availableReplicas"]) == (6, 6)
    progressing = next(c for c in status["conditions"] if c["type"] == "Progressing")
    assert progressing["reason"] == "NewReplicaSetAvailable"


def test_only_the_hpa_changes_the_replica_count(rollout: RolloutRun) -> None:
    counts = [rollout.samples[0].replicas]
    for s in rollout.samples[1:]:
        if s.replicas != counts[-1]:
            counts.append(s.replicas)
    rescales = rollout.e2e.events_of("web", "SuccessfulRescale", start=ROLL)
    assert counts[1:] == [int(e.message.split(";")[0].removeprefix("New size: ")) for e in rescales]
    assert counts == sorted(counts)
    assert counts[-1] == 6
    assert (rollout.hpa_status["currentReplicas"], rollout.hpa_status["desiredReplicas"]) == (6, 6)
