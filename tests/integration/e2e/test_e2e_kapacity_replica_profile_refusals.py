"""What the ReplicaProfile controller refuses or holds, on the whole stack on virtual time.

Three Deployments of two pods each run on the in-process plane with the ReplicaProfile
controller in a manager of its own, its CRD installed through the API:
- ``held``: a profile with ``allowedScalingDirection: Neither`` asking for 1 online: the
  online count is held at 2 (no pod is deleted), and the profile says it is not satisfied
  (ReplicaProfileEnsured False ``ReplicaNumberNotSatisfied``) while everything it may do is
  applied;
- ``plugged``: a profile cutting one pod off through an ``External`` traffic controller (a
  user's plug-in, which podscale does not run): ReplicaProfileApplied False
  ``FailedGetPodTrafficController`` with Kapacity's text and a Warning event, and no pod
  is touched;
- ``bare``: a profile cutting one pod off of a ReplicaSet, a workload Kapacity cannot rank:
  ``FailedGetWorkload`` with Kapacity's ``unknown workload`` text.
Each failure is retried by the work queue with backoff; none stops the controller (the
last profile, reconciled after the others, still converges).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Final

import pytest

from podscale.api.kinds import kind_for
from podscale.controllers.kapacity.kind import (
    POD_STATE_LABEL,
    REPLICA_PROFILE,
    replica_profile_definition,
)
from podscale.controllers.kapacity.rp_controller import ReplicaProfileController
from podscale.controllers.manager import ControllerManager
from podscale.scenario.loader import parse_scenario

from .e2e_b_manifests import JSON, NAMESPACE, deployment
from .e2e_b_plane import E2E, run_e2e

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")


def replica_set(name: str, replicas: int) -> JSON:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": name}]},
            },
        },
    }


def profile(name: str, kind: str, online: int, cutoff: int, **spec: object) -> JSON:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "ReplicaProfile",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": name},
            "onlineReplicas": online,
            "cutoffReplicas": cutoff,
            **spec,
        },
    }


@dataclass(frozen=True)
class Outcome:
    replicas: int
    labelled: int  # pods carrying a state label
    conditions: dict[str, tuple[str, str, str]]
    warnings: list[tuple[str, str]]


async def _outcome(e2e: E2E, name: str, kind: str) -> Outcome:
    info = REPLICA_SET if kind == "ReplicaSet" else kind_for("apps/v1", "Deployment")
    status = (await e2e.api.get(REPLICA_PROFILE, NAMESPACE, name)).get("status") or {}
    pods = [p for p in await e2e.pods(name) if not p["metadata"].get("deletionTimestamp")]
    events = (await e2e.api.list(kind_for("v1", "Event"), NAMESPACE)).get("items") or []
    return Outcome(
        replicas=await e2e.replicas(name, info),
        labelled=sum(1 for p in pods if POD_STATE_LABEL in (p["metadata"].get("labels") or {})),
        conditions={
            c["type"]: (c["status"], c["reason"], c["message"])
            for c in status.get("conditions") or []
        },
        warnings=sorted(
            (e["reason"], e["message"])
            for e in events
            if e.get("type") == "Warning" and (e.get("involvedObject") or {}).get("name") == name
        ),
    )


def _scenario() -> object:
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": "kapacity-replica-profile-refusals"},
            "spec": {
                "seed": 5,
                "duration": "1h",
                "nodes": {"count": 2, "capacity": {"cpu": "4", "memory": "8Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": "1s"},
                "manifests": [
                    deployment("held", 2),
                    deployment("plugged", 2),
                    replica_set("bare", 2),
                ],
            },
        }
    )


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    async def body(e2e: E2E) -> dict[str, Outcome]:
        await e2e.api.create(CRD, None, replica_profile_definition())
        manager = ControllerManager(e2e.plane.api, e2e.plane.clock)
        manager.register(ReplicaProfileController(e2e.plane.api, e2e.plane.clock))
        task = asyncio.create_task(manager.run(), name="replicaprofile-manager")
        try:
            await manager.wait_started()
            await e2e.advance(15)
            external = {"podTrafficController": {"type": "External"}}
            for obj in (
                profile("held", "Deployment", 1, 0, allowedScalingDirection="Neither"),
                profile("plugged", "Deployment", 1, 1, behavior=external),
                profile("bare", "ReplicaSet", 1, 1),
            ):
                await e2e.api.create(REPLICA_PROFILE, NAMESPACE, obj)
            await e2e.advance(120)
            return {
                "held": await _outcome(e2e, "held", "Deployment"),
                "plugged": await _outcome(e2e, "plugged", "Deployment"),
                "bare": await _outcome(e2e, "bare", "ReplicaSet"),
            }
        finally:
            manager.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return run_e2e(_scenario(), body)  # type: ignore[arg-type]


def test_a_forbidden_direction_is_held_and_reported_unsatisfied(
    outcomes: dict[str, Outcome],
) -> None:
    held = outcomes["held"]
    assert held.replicas == 2
    assert held.conditions["ReplicaProfileEnsured"][:2] == ("False", "ReplicaNumberNotSatisfied")
    assert held.conditions["ReplicaProfileApplied"][:2] == ("True", "ReplicaProfileApplied")
    assert held.warnings == []


def test_an_external_traffic_controller_is_refused_with_kapacitys_text(
    outcomes: dict[str, Outcome],
) -> None:
    plugged = outcomes["plugged"]
    status, reason, message = plugged.conditions["ReplicaProfileApplied"]
    assert (status, reason) == ("False", "FailedGetPodTrafficController")
    assert message.startswith("failed to get pod traffic controller: ")
    assert ("FailedGetPodTrafficController", message) in plugged.warnings
    assert (plugged.replicas, plugged.labelled) == (2, 0)


def test_a_workload_kapacity_cannot_rank_is_refused(outcomes: dict[str, Outcome]) -> None:
    bare = outcomes["bare"]
    status, reason, message = bare.conditions["ReplicaProfileApplied"]
    assert (status, reason) == ("False", "FailedGetWorkload")
    assert message == (
        'failed to get the target workload: unknown workload with gvk "apps/v1, Kind=ReplicaSet"'
    )
    assert (bare.replicas, bare.labelled) == (2, 0)
