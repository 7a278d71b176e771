"""A Kapacity ReplicaProfile on the whole stack on virtual time: cutoff, back online, scale in.

A Deployment of four pods whose template declares Kapacity's ``kapacitystack.io/online``
readiness gate runs on the in-process plane with the ReplicaProfile controller
(``controllers.kapacity.rp_controller``) in a manager of its own, its CRD installed through
the API. The controller opens the gate of each running Online pod, so they turn Ready.
Then the profile asks online 2 cutoff 2: two pods get the Cutoff label and their gate False,
so the simulated kubelet reports them not Ready (``ReadinessGatesNotReady``), and the
workload keeps 4 replicas. Online 4 brings the same pods back (no new pod, the same
names, Ready again); online 2 scales the Deployment to 2.
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
    READINESS_GATE_ONLINE,
    REPLICA_PROFILE,
    replica_profile_definition,
)
from podscale.controllers.kapacity.rp_controller import ReplicaProfileController
from podscale.controllers.manager import ControllerManager
from podscale.scenario.loader import parse_scenario

from .e2e_b_manifests import JSON, NAMESPACE, deployment
from .e2e_b_plane import E2E, run_e2e

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
APP: Final = "web"
CUTOFF_AT, ONLINE_AT, SCALE_IN_AT, END = 60, 120, 180, 260


def gated_deployment() -> JSON:
    manifest = deployment(APP, 4)
    manifest["spec"]["template"]["spec"]["readinessGates"] = [
        {"conditionType": READINESS_GATE_ONLINE}
    ]
    return manifest


def profile(online: int, cutoff: int, *, name: str = APP, paused: bool = False) -> JSON:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "ReplicaProfile",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "onlineReplicas": online,
            "cutoffReplicas": cutoff,
            "paused": paused,
        },
    }


@dataclass(frozen=True)
class PodView:
    name: str
    state: str | None
    ready: str | None
    ready_reason: str | None
    gate: str | None


@dataclass(frozen=True)
class RpRun:
    before: list[PodView]
    cutoff: list[PodView]
    cutoff_replicas: int
    cutoff_status: JSON
    online: list[PodView]
    online_replicas: int
    scaled_in_replicas: int
    scaled_in_status: JSON
    events: list[tuple[str, str]]
    ghost_status: JSON
    paused_status: JSON


def _condition(pod: JSON, kind: str) -> JSON:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return {}


async def _pods(e2e: E2E) -> list[PodView]:
    views = []
    for pod in await e2e.pods(APP):
        if pod["metadata"].get("deletionTimestamp"):
            continue
        ready = _condition(pod, "Ready")
        views.append(
            PodView(
                pod["metadata"]["name"],
                (pod["metadata"].get("labels") or {}).get(POD_STATE_LABEL),
                ready.get("status"),
                ready.get("reason"),
                _condition(pod, READINESS_GATE_ONLINE).get("status"),
            )
        )
    return sorted(views, key=lambda v: v.name)


async def _set_profile(e2e: E2E, online: int, cutoff: int) -> None:
    body = {"spec": {"onlineReplicas": online, "cutoffReplicas": cutoff}}
    await e2e.api.patch(
        REPLICA_PROFILE, NAMESPACE, APP, body, content_type="application/merge-patch+json"
    )


async def _events(e2e: E2E) -> list[tuple[str, str]]:
    listed = await e2e.api.list(kind_for("v1", "Event"), NAMESPACE)
    found = [
        (e["reason"], e["message"])
        for e in listed.get("items") or []
        if (e.get("involvedObject") or {}).get("kind") == "ReplicaProfile"
    ]
    return sorted(found)


def _scenario() -> object:
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": "kapacity-replica-profile"},
            "spec": {
                "seed": 3,
                "duration": "1h",
                "nodes": {"count": 2, "capacity": {"cpu": "4", "memory": "8Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": "3s"},
                "manifests": [gated_deployment()],
            },
        }
    )


@pytest.fixture(scope="module")
def rp_run() -> RpRun:
    async def body(e2e: E2E) -> RpRun:
        await e2e.api.create(CRD, None, replica_profile_definition())
        manager = ControllerManager(e2e.plane.api, e2e.plane.clock)
        manager.register(ReplicaProfileController(e2e.plane.api, e2e.plane.clock))
        task = asyncio.create_task(manager.run(), name="replicaprofile-manager")
        try:
            await manager.wait_started()
            await e2e.advance(10)
            await e2e.api.create(REPLICA_PROFILE, NAMESPACE, profile(4, 0))
            await e2e.api.create(REPLICA_PROFILE, NAMESPACE, profile(1, 0, name="ghost"))
            await e2e.api.create(
                REPLICA_PROFILE, NAMESPACE, profile(1, 0, name="idle", paused=True)
            )
            await e2e.advance(CUTOFF_AT)
            before = await _pods(e2e)
            await _set_profile(e2e, 2, 2)
            await e2e.advance(ONLINE_AT)
            cutoff = await _pods(e2e)
            cutoff_replicas = await e2e.replicas(APP)
            cutoff_status = (await e2e.api.get(REPLICA_PROFILE, NAMESPACE, APP))["status"]
            await _set_profile(e2e, 4, 0)
            await e2e.advance(SCALE_IN_AT)
            online = await _pods(e2e)
            online_replicas = await e2e.replicas(APP)
            await _set_profile(e2e, 2, 0)
            await e2e.advance(END)
            return RpRun(
                before=before,
                cutoff=cutoff,
                cutoff_replicas=cutoff_replicas,
                cutoff_status=cutoff_status,
                online=online,
                online_replicas=online_replicas,
                scaled_in_replicas=await e2e.replicas(APP),
                scaled_in_status=(await e2e.api.get(REPLICA_PROFILE, NAMESPACE, APP))["status"],
                events=await _events(e2e),
                ghost_status=(await e2e.api.get(REPLICA_PROFILE, NAMESPACE, "ghost"))["status"],
                paused_status=(await e2e.api.get(REPLICA_PROFILE, NAMESPACE, "idle"))["status"],
            )
        finally:
            manager.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return run_e2e(_scenario(), body)  # type: ignore[arg-type]


def test_gated_pods_turn_ready_once_the_controller_opens_their_gate(rp_run: RpRun) -> None:
    assert len(rp_run.before) == 4
    assert {(v.state, v.ready, v.gate) for v in rp_run.before} == {(None, "True", "True")}


def test_cutoff_pods_are_labelled_and_not_ready_with_the_replicas_kept(rp_run: RpRun) -> None:
    cutoff = [v for v in rp_run.cutoff if v.state == "Cutoff"]
    online = [v for v in rp_run.cutoff if v.state is None]
    assert len(cutoff) == 2
    assert len(online) == 2
    assert {(v.ready, v.ready_reason, v.gate) for v in cutoff} == {
        ("False", "ReadinessGatesNotReady", "False")
    }
    assert {(v.ready, v.gate) for v in online} == {("True", "True")}
    assert rp_run.cutoff_replicas == 4
    assert [v.name for v in rp_run.cutoff] == [v.name for v in rp_run.before]


def test_the_status_counts_the_states_and_is_ensured(rp_run: RpRun) -> None:
    status = rp_run.cutoff_status
    assert (status["onlineReplicas"], status["cutoffReplicas"], status["standbyReplicas"]) == (
        2,
        2,
        0,
    )
    conditions = {c["type"]: c for c in status["conditions"]}
    assert conditions["ReplicaProfileEnsured"]["status"] == "True"
    assert conditions["ReplicaProfileEnsured"]["message"] == "current replica profile is ensured"
    assert conditions["ReplicaProfileApplied"]["reason"] == "ReplicaProfileApplied"


def test_back_online_reuses_the_same_pods(rp_run: RpRun) -> None:
    assert [v.name for v in rp_run.online] == [v.name for v in rp_run.before]
    assert {(v.state, v.ready, v.gate) for v in rp_run.online} == {(None, "True", "True")}
    assert rp_run.online_replicas == 4


def test_online_two_scales_the_workload_in(rp_run: RpRun) -> None:
    assert rp_run.scaled_in_replicas == 2
    assert rp_run.scaled_in_status["onlineReplicas"] == 2


def test_events_carry_kapacitys_texts(rp_run: RpRun) -> None:
    reasons = {reason for reason, _ in rp_run.events}
    assert {"CutoffPods", "OnlinePods", "UpdateScale"} <= reasons
    cutoff_names = sorted(v.name for v in rp_run.cutoff if v.state == "Cutoff")
    messages = {message for reason, message in rp_run.events if reason == "CutoffPods"}
    assert len(messages) == 1
    (message,) = messages
    # The names space-separated in brackets, as Go prints a []string.
    assert message.startswith("cutoff pods: [")
    assert message.endswith("]")
    assert sorted(message[len("cutoff pods: [") : -1].split(" ")) == cutoff_names
    assert ("UpdateScale", "rescale target workload from 4 to 2 replicas") in rp_run.events


def test_a_missing_target_is_reported_and_retried(rp_run: RpRun) -> None:
    message = 'failed to get the target\'s current scale: deployments.apps "ghost" not found'
    (ensured,) = rp_run.ghost_status["conditions"]
    assert (ensured["type"], ensured["status"], ensured["reason"], ensured["message"]) == (
        "ReplicaProfileEnsured",
        "False",
        "FailedGetScale",
        message,
    )
    assert ("FailedGetScale", message) in rp_run.events


def test_a_paused_profile_only_reports_it(rp_run: RpRun) -> None:
    conditions = {c["type"]: c for c in rp_run.paused_status["conditions"]}
    assert set(conditions) == {"ReplicaProfileApplied", "ReplicaProfileEnsured"}
    for condition in conditions.values():
        assert (condition["status"], condition["reason"], condition["message"]) == (
            "False",
            "ReplicaProfilePaused",
            "the replica profile is paused",
        )
    assert "onlineReplicas" not in rp_run.paused_status
