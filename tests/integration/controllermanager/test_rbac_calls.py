"""The RBAC of ``podscale manifests`` against the calls the controllers really make.

An embedded control plane on virtual time plays the cluster (its workload controllers and
simulated nodes run unrecorded); a second manager, as ``podscale controller-manager``
would, runs every controller with an RBAC table over recording APIs, one per controller,
with a metrics client of its own over HTTP (through the API server app). The workloads
have an HPA, a CronHPA (on a Deployment and on an HPA), a PHPA, two EHPAs (Auto and
Preview), a ScaledObject, later deleted, and an IHPA whose gray scale-down cuts pods off.
Every call a controller made must be allowed by the ClusterRole rules of that controller
alone; the union must be allowed by the default ClusterRole plus the HPA controller's.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.http import HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.kubeconfig import Connection
from podscale.controllermanager.rbac import CONTROLLER_RULES, allows, cluster_rules
from podscale.controllers.cronhpa.kind import CRONHPA
from podscale.controllers.ehpa.kind import EHPA
from podscale.controllers.hpa import RestMetricsClient
from podscale.controllers.kapacity.kind import IHPA
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.controllers.manager import ControllerManager
from podscale.controllers.phpa.kind import PHPA
from podscale.controllers.registry import ControllerContext, build_controllers
from podscale.controllers.shipped_crds import shipped_definition
from podscale.history import MemoryHistory
from podscale.plane.controller_sets import controllers_from_flag
from podscale.plane.embedded import EmbeddedControlPlane, seeded_uids
from podscale.runtime import VirtualClock, run_virtual
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.store.memory import MemoryStore

from .recording import (
    DISCOVERY,
    Attributed,
    Call,
    Recorder,
    RecordingApi,
    RecordingTransport,
    as_controller_api,
)

JSON = dict[str, Any]
START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
DEPLOY = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
WORKLOAD_CONTROLLERS = "replicaset,deployment,statefulset,garbagecollector,namespace,podgc"
PROFILE = StartupProfile(
    startup=timedelta(seconds=5),
    readiness_delay=timedelta(seconds=2),
    termination=timedelta(seconds=1),
)
CPU_50 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}


def deployment(name: str, replicas: int = 2) -> JSON:
    labels = {"app": name}
    container = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


def target(name: str, kind: str = "Deployment", api_version: str = "apps/v1") -> JSON:
    return {"apiVersion": api_version, "kind": kind, "name": name}


def autoscalers() -> list[tuple[KindInfo, JSON]]:
    """(kind, object) of every autoscaler the run creates."""
    return [
        (
            HPA,
            {
                "apiVersion": "autoscaling/v2",
                "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "shop", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": target("shop"),
                    "minReplicas": 1,
                    "maxReplicas": 10,
                    "metrics": [CPU_50],
                },
            },
        ),
        (
            CRONHPA,
            {
                "apiVersion": "autoscaling.alibabacloud.com/v1beta1",
                "kind": "CronHorizontalPodAutoscaler",
                "metadata": {"name": "shop", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": target("shop", "HorizontalPodAutoscaler", "autoscaling/v2"),
                    "jobs": [{"name": "rush", "schedule": "0 5 0 * * *", "targetSize": 4}],
                },
            },
        ),
        (
            CRONHPA,
            {
                "apiVersion": "autoscaling.alibabacloud.com/v1beta1",
                "kind": "CronHorizontalPodAutoscaler",
                "metadata": {"name": "batch", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": target("batch"),
                    "jobs": [{"name": "up", "schedule": "0 4 0 * * *", "targetSize": 3}],
                },
            },
        ),
        (
            PHPA,
            {
                "apiVersion": "autoscaling.podscale.dev/v1alpha1",
                "kind": "PredictiveHorizontalPodAutoscaler",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": target("web"),
                    "minReplicas": 1,
                    "maxReplicas": 10,
                    "metrics": [CPU_50],
                    "prediction": {},
                },
            },
        ),
        *(
            (
                EHPA,
                {
                    "apiVersion": "autoscaling.crane.io/v1alpha1",
                    "kind": "EffectiveHorizontalPodAutoscaler",
                    "metadata": {"name": name, "namespace": "default"},
                    "spec": {
                        "scaleTargetRef": target(name),
                        "maxReplicas": 10,
                        "scaleStrategy": strategy,
                        "metrics": [CPU_50],
                        "crons": [
                            {
                                "name": "rush",
                                "start": "3 0 * * *",
                                "end": "30 0 * * *",
                                "targetReplicas": 4,
                            }
                        ],
                    },
                },
            )
            for name, strategy in (("crane", "Auto"), ("preview", "Preview"))
        ),
        (
            SCALED_OBJECT,
            {
                "apiVersion": "keda.sh/v1alpha1",
                "kind": "ScaledObject",
                "metadata": {"name": "queue", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": {"name": "queue"},
                    "pollingInterval": 15,
                    "minReplicaCount": 1,
                    "maxReplicaCount": 10,
                    "triggers": [
                        {
                            "type": "cron",
                            "metadata": {
                                "timezone": "UTC",
                                "start": "2 0 * * *",
                                "end": "0 1 * * *",
                                "desiredReplicas": "3",
                            },
                        },
                        {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "50"}},
                        {
                            "type": "kubernetes-workload",
                            "metadata": {"podSelector": "app=web", "value": "2"},
                        },
                    ],
                },
            },
        ),
        (
            IHPA,
            {
                "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
                "kind": "IntelligentHorizontalPodAutoscaler",
                "metadata": {"name": "gray", "namespace": "default"},
                "spec": {
                    "scaleTargetRef": target("gray"),
                    "minReplicas": 1,
                    "maxReplicas": 10,
                    # Static 3 with a Reactive portrait beside it, then a Cron rule (1 from
                    # 00:03) starts a gray scale-down: pods are cut off, then deleted.
                    "portraitProviders": [
                        {"type": "Static", "priority": 0, "static": {"replicas": 3}},
                        {
                            "type": "Dynamic",
                            "priority": 0,
                            "dynamic": {
                                "portraitType": "Reactive",
                                "metrics": [CPU_50],
                                "algorithm": {"type": "KubeHPA"},
                            },
                        },
                        {
                            "type": "Cron",
                            "priority": 1,
                            "cron": {
                                "crons": [
                                    {
                                        "name": "low",
                                        "start": "3 0 * * *",
                                        "end": "0 1 * * *",
                                        "replicas": 1,
                                    }
                                ]
                            },
                        },
                    ],
                    "behavior": {
                        "scaleDown": {
                            "grayStrategy": {
                                "grayState": "Cutoff",
                                "changeIntervalSeconds": 60,
                                "changePercent": 50,
                                "observationSeconds": 60,
                            }
                        }
                    },
                    "stabilityCheckers": [
                        {
                            "type": "Metrics",
                            "stabilizationAction": "Pause",
                            "metrics": {"metrics": [CPU_50]},
                        }
                    ],
                },
            },
        ),
    ]


def record_run() -> dict[str, set[Call]]:
    """Every call of each controller with an RBAC table, over 12 virtual minutes."""
    clock = VirtualClock(START)
    recorders = {name: Recorder() for name in CONTROLLER_RULES}
    shared = Recorder()  # the manager's own informers: charged to no controller

    async def main() -> bool:
        store = MemoryStore(clock, new_uid=seeded_uids(random.Random(5)))
        app = create_app(store, clock=clock)
        api = InProcessApi.for_app(app)
        plane = EmbeddedControlPlane(
            clock,
            api=api,
            seed=5,
            profile=PROFILE,
            controllers=controllers_from_flag(WORKLOAD_CONTROLLERS),
        )
        clients: list[HttpApi] = []

        def metrics_for(recorder: Recorder) -> RestMetricsClient:
            # The metrics APIs over HTTP, through the API server app, charged to ``recorder``.
            transport = RecordingTransport(httpx.ASGITransport(app=app), recorder)
            clients.append(HttpApi(Connection(server="http://podscale"), transport=transport))
            return RestMetricsClient(clients[-1])

        context = ControllerContext(
            as_controller_api(RecordingApi(api, shared)),
            clock,
            history=MemoryHistory(),
            external_metrics_writer=plane.push,
            external_metrics_routes=plane.external_routes,
        )
        manager = ControllerManager(context.api, clock)
        for name, recorder in recorders.items():
            own = replace(
                context,
                api=as_controller_api(RecordingApi(api, recorder)),
                metrics=metrics_for(recorder),
            )
            for controller in build_controllers(own, [name]):
                manager.register(Attributed(controller, recorder))
        for crd in (
            "cronhorizontalpodautoscalers.autoscaling.alibabacloud.com",
            "effectivehorizontalpodautoscalers.autoscaling.crane.io",
            "substitutes.autoscaling.crane.io",
            "predictivehorizontalpodautoscalers.autoscaling.podscale.dev",
            "scaledobjects.keda.sh",
            "intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io",
            "replicaprofiles.autoscaling.kapacitystack.io",
        ):
            await api.create(CRD, None, shipped_definition(crd))
        tasks = [asyncio.create_task(plane.run()), asyncio.create_task(manager.run())]
        try:
            await plane.wait_started()
            await manager.wait_started()
            for name in ("shop", "batch", "web", "crane", "preview", "queue", "gray"):
                await api.create(DEPLOY, "default", deployment(name))
            for kind, obj in autoscalers():
                await api.create(kind, "default", obj)
            await asyncio.sleep(8 * 60)
            # KEDA's pause deletes the generated HPA; deletion then runs the finalizer.
            paused = {"metadata": {"annotations": {"autoscaling.keda.sh/paused": "true"}}}
            await api.patch(SCALED_OBJECT, "default", "queue", paused)
            await asyncio.sleep(2 * 60)
            await api.delete(SCALED_OBJECT, "default", "queue")
            await asyncio.sleep(2 * 60)
        finally:
            manager.stop()
            plane.stop()
            await asyncio.gather(*tasks)
            for client in clients:
                await client.aclose()
        return True

    assert run_virtual(main(), start=START, until=timedelta(hours=1)), "ran out of virtual time"
    calls = {name: set(recorder.calls) for name, recorder in recorders.items()}
    calls["(informers)"] = shared.calls
    return calls


@pytest.fixture(scope="module")
def recorded() -> dict[str, set[Call]]:
    return record_run()


def denied(rules: list[JSON], calls: set[Call]) -> list[str]:
    return sorted(
        str(call)
        for call in calls
        if call != DISCOVERY
        and not allows(rules, call.verb, call.group, call.resource, call.subresource)
    )


@pytest.mark.parametrize("name", sorted(CONTROLLER_RULES), ids=sorted(CONTROLLER_RULES))
def test_every_call_of_a_controller_is_allowed_by_its_own_rules(
    recorded: dict[str, set[Call]], name: str
) -> None:
    calls = recorded[name]
    assert calls, f"{name} made no call: the run does not exercise it"
    assert denied(cluster_rules([name]), calls) == []


def test_the_run_exercises_what_the_rules_are_for(recorded: dict[str, set[Call]]) -> None:
    """Writes of every kind happened, so the check above covers them (no vacuous pass)."""
    everything = set().union(*recorded.values())
    expected = {
        Call("update", "apps", "deployments", "scale"),
        Call("update", "autoscaling", "horizontalpodautoscalers", "status"),
        Call("update", "autoscaling", "horizontalpodautoscalers"),
        Call("create", "autoscaling", "horizontalpodautoscalers"),
        Call("delete", "autoscaling", "horizontalpodautoscalers"),
        Call("patch", "autoscaling.alibabacloud.com", "cronhorizontalpodautoscalers", "status"),
        Call("update", "autoscaling.podscale.dev", "predictivehorizontalpodautoscalers", "status"),
        Call("patch", "autoscaling.crane.io", "effectivehorizontalpodautoscalers", "status"),
        Call("create", "autoscaling.crane.io", "substitutes"),
        Call("patch", "keda.sh", "scaledobjects"),
        Call("patch", "keda.sh", "scaledobjects", "status"),
        Call("list", "metrics.k8s.io", "pods"),
        Call("create", "", "events"),
        Call(
            "patch", "autoscaling.kapacitystack.io", "intelligenthorizontalpodautoscalers", "status"
        ),
        Call("create", "autoscaling.kapacitystack.io", "replicaprofiles"),
        Call("patch", "autoscaling.kapacitystack.io", "replicaprofiles"),
        Call("patch", "autoscaling.kapacitystack.io", "replicaprofiles", "status"),
        Call("patch", "", "pods"),
        Call("patch", "", "pods", "status"),
    }
    assert sorted(map(str, expected - everything)) == []


def test_the_default_manifests_with_the_hpa_controller_allow_every_call(
    recorded: dict[str, set[Call]],
) -> None:
    everything = set().union(*recorded.values())
    assert denied(cluster_rules(CONTROLLER_RULES), everything) == []
