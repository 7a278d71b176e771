"""``podscale describe ihpa`` and ``describe rp``: Kapacity's IHPA with its portrait
providers, portrait values, gray change (and the strategy of its direction), the
ReplicaProfile of the same name, stability checkers, conditions and events; the profile on
its own; end to end against a server with both CRDs installed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.cli.describe_ihpa import describe_ihpa, is_ihpa
from podscale.cli.describe_rp import describe_replica_profile, is_replica_profile
from podscale.cli.main import cli
from podscale.controllers.kapacity.kind import definition, replica_profile_definition
from podscale.plane.files import write_kubeconfig
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

from .served import post

JSON = dict[str, Any]
NOW = datetime(2026, 11, 26, 1, 30, tzinfo=UTC)
GROUP_VERSION = "/apis/autoscaling.kapacitystack.io/v1alpha1/namespaces/default"
PROVIDERS = [
    {"type": "Static", "priority": 0, "static": {"replicas": 2}},
    {
        "type": "Cron",
        "priority": 1,
        "cron": {
            "crons": [
                {
                    "name": "night",
                    "timeZone": "Asia/Shanghai",
                    "start": "0 1 * * *",
                    "end": "0 2 * * *",
                    "replicas": 4,
                }
            ]
        },
    },
    {
        "type": "Dynamic",
        "priority": 2,
        "dynamic": {
            "portraitType": "Reactive",
            "metrics": [],
            "algorithm": {"type": "KubeHPA", "kubeHPA": {}},
        },
    },
]
BEHAVIOR = {
    "scaleUp": {
        "grayStrategy": {"grayState": "Online", "changeIntervalSeconds": 30, "changePercent": 50}
    },
    "scaleDown": {
        "grayStrategy": {
            "grayState": "Cutoff",
            "changeIntervalSeconds": 60,
            "changePercent": 20,
            "observationSeconds": 120,
        }
    },
}
CONDITION = {
    "type": "GrayProgressing",
    "status": "True",
    "reason": "GrayStepped",
    "message": "gray change at 40%",
    "lastTransitionTime": "2026-11-26T01:20:00Z",
}


def ihpa(status: JSON | None = None, **spec: Any) -> JSON:
    obj: JSON = {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "IntelligentHorizontalPodAutoscaler",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web"},
            "creationTimestamp": "2026-11-26T00:00:00Z",
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "portraitProviders": PROVIDERS,
            "behavior": BEHAVIOR,
            "stabilityCheckers": [
                {"type": "Metrics", "stabilizationAction": "Rollback", "coolDownSeconds": 300}
            ],
            **spec,
        },
    }
    if status is not None:
        obj["status"] = status
    return obj


def profile(**status: int) -> JSON:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "ReplicaProfile",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web"},
            "onlineReplicas": 6,
            "cutoffReplicas": 2,
            "allowedScalingDirection": "Down",
        },
        "status": {"onlineReplicas": 5, **{f"{k}Replicas": v for k, v in status.items()}},
    }


def value(replicas: int, provider: str) -> JSON:
    return {"provider": provider, "replicas": replicas, "expireTime": "2026-11-26T02:00:00Z"}


def lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


SCALING_DOWN: JSON = {
    "previousPortraitValue": value(8, "Static"),
    "currentPortraitValue": value(4, "Cron-night"),
    "gray": {"grayPercent": 40, "lastUpdateTime": "2026-11-26T01:20:00Z"},
    "conditions": [CONDITION],
}


@pytest.mark.parametrize(
    ("obj", "rp", "present", "absent"),
    [
        (
            ihpa(SCALING_DOWN),
            profile(cutoff=3),
            [
                ["Reference:", "StatefulSet/web"],
                ["Min", "replicas:", "1"],
                ["Max", "replicas:", "10"],
                ["Scale", "mode:", "Auto"],
                ["Paused:", "false"],
                ["Static", "0", "2", "replicas"],
                ["Cron", "1", "1", "rule", "(see", "Cron", "rules)"],
                [
                    "Dynamic",
                    "2",
                    "portrait",
                    "Reactive,",
                    "algorithm",
                    "KubeHPA",
                    "(sync",
                    "15s,",
                    "tolerance",
                    "0.1)",
                ],
                [
                    "1",
                    "night",
                    "Asia/Shanghai",
                    "0",
                    "1",
                    "*",
                    "*",
                    "*",
                    "0",
                    "2",
                    "*",
                    "*",
                    "*",
                    "4",
                ],
                ["Provider:", "Cron-night"],
                ["Percent:", "40%"],
                ["Direction:", "Scale", "down"],
                ["Strategy:", "state", "Cutoff,", "20%", "every", "60s,", "observation", "120s"],
                ["Allowed", "scaling", "direction:", "Down"],
                ["Online", "6", "5"],
                ["Cutoff", "2", "3"],
                ["Standby", "0", "0"],
                ["Metrics", "Rollback", "300s"],
                ["GrayProgressing", "True", "GrayStepped", "gray", "change", "at", "40%"],
            ],
            ["Replica profile:  <none>"],
        ),
        (
            ihpa({"currentPortraitValue": value(3, "Static")}),
            None,
            [
                ["Replica", "profile:", "<none>"],
                ["Previous", "portrait:", "<none>"],
                ["Gray:", "<none>"],
                ["Replicas:", "3"],
            ],
            ["Conditions:", "Desired"],
        ),
        (
            ihpa(None, scaleMode="Preview", portraitProviders=[], stabilityCheckers=[]),
            None,
            [
                ["Scale", "mode:", "Preview"],
                ["Portrait", "providers:", "<none>"],
                ["Current", "portrait:", "<none>"],
                ["Stability", "checkers:", "<none>"],
                ["Replica", "profile:", "<none>"],
                ["Events:", "<none>"],
            ],
            ["Cron rules:", "Conditions:"],
        ),
        (
            ihpa(
                {
                    "previousPortraitValue": value(2, "Static"),
                    "currentPortraitValue": value(20, "Dynamic"),
                    "gray": {"grayPercent": 50, "lastUpdateTime": "2026-11-26T01:25:00Z"},
                }
            ),
            profile(),
            # Clamped to maxReplicas 10, the change still goes up: the scale-up strategy.
            [
                ["Percent:", "50%"],
                ["Direction:", "Scale", "up"],
                ["Strategy:", "state", "Online,", "50%", "every", "30s,", "observation", "0s"],
            ],
            ["Cutoff,"],
        ),
    ],
    ids=["with-profile", "without-profile", "preview", "gray-scaling-up"],
)
def test_describe_ihpa(
    obj: JSON, rp: JSON | None, present: list[list[str]], absent: list[str]
) -> None:
    text = describe_ihpa(obj, rp, [], NOW)
    rows = lines(text)
    for expected in present:
        assert expected in rows, (expected, text)
    for missing in absent:
        assert missing not in text, (missing, text)
    order = ["Name:", "Scale mode:", "Current portrait:", "Gray:", "Replica profile:", "Events:"]
    positions = [text.index(title) for title in order]
    assert positions == sorted(positions), text


def test_events_and_conditions_come_last() -> None:
    event = {
        "type": "Normal",
        "reason": "UpdateReplicaProfile",
        "message": "update replica profile",
        "source": {"component": "ihpa-controller"},
        "lastTimestamp": "2026-11-26T01:00:00Z",
    }
    text = describe_ihpa(ihpa(SCALING_DOWN), None, [event], NOW)
    assert text.index("Stability checkers:") < text.index("Conditions:") < text.index("Events:")
    assert "ihpa-controller" in text


def test_describe_replica_profile() -> None:
    rp = profile(cutoff=3)
    rp["metadata"]["ownerReferences"] = [
        {"kind": "IntelligentHorizontalPodAutoscaler", "name": "web", "controller": True}
    ]
    rp["status"]["conditions"] = [
        {"type": "Ready", "status": "True", "reason": "Synced", "message": "all synced"}
    ]
    rows = lines(describe_replica_profile(rp, [], NOW))
    for expected in (
        ["Controlled", "By:", "IntelligentHorizontalPodAutoscaler/web"],
        ["Reference:", "StatefulSet/web"],
        ["Paused:", "false"],
        ["Allowed", "scaling", "direction:", "Down"],
        ["Online", "6", "5"],
        ["Cutoff", "2", "3"],
        ["Pod", "sorter:", "WorkloadDefault"],
        ["Traffic", "controller:", "ReadinessGate"],
        ["Ready", "True", "Synced", "all", "synced"],
        ["Events:", "<none>"],
    ):
        assert expected in rows, (expected, rows)


@pytest.mark.parametrize(
    ("name", "ihpa_kind", "rp_kind"),
    [
        ("ihpa", True, False),
        ("IHPA", True, False),
        ("intelligenthorizontalpodautoscalers", True, False),
        ("intelligenthorizontalpodautoscaler", True, False),
        ("intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io", True, False),
        ("intelligenthorizontalpodautoscalers.v1alpha1.autoscaling.kapacitystack.io", True, False),
        ("rp", False, True),
        ("replicaprofile", False, True),
        ("replicaprofiles.autoscaling.kapacitystack.io", False, True),
        ("ehpa", False, False),
    ],
    ids=[
        "short",
        "upper",
        "plural",
        "singular",
        "qualified",
        "versioned",
        "rp",
        "rp-singular",
        "rp-qualified",
        "ehpa",
    ],
)
def test_which_names_mean_the_kinds(name: str, ihpa_kind: bool, rp_kind: bool) -> None:
    assert (is_ihpa(name), is_replica_profile(name)) == (ihpa_kind, rp_kind)


def test_podscale_describe_ihpa_against_a_server(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    server = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        kubeconfig = tmp_path / "config"
        write_kubeconfig(kubeconfig, server=server.url, token=None)
        args = ["--kubeconfig", str(kubeconfig)]
        crds = f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        post(crds, definition())
        post(crds, replica_profile_definition())
        post(f"{server.url}{GROUP_VERSION}/intelligenthorizontalpodautoscalers", ihpa())
        lone = ihpa()
        lone["metadata"]["name"] = "lone"
        post(f"{server.url}{GROUP_VERSION}/intelligenthorizontalpodautoscalers", lone)
        rp = profile()
        del rp["status"]
        post(f"{server.url}{GROUP_VERSION}/replicaprofiles", rp)
        runner = CliRunner()
        described = runner.invoke(cli, ["describe", "ihpa", "web", *args])
        without = runner.invoke(
            cli, ["describe", "intelligenthorizontalpodautoscaler", "lone", *args]
        )
        every = runner.invoke(cli, ["describe", "intelligenthorizontalpodautoscalers", *args])
        rp_described = runner.invoke(cli, ["describe", "rp", "web", *args])
        missing = runner.invoke(cli, ["describe", "ihpa", "nope", *args])
    finally:
        server.stop()
    assert described.exit_code == 0, described.output
    rows = lines(described.output)
    assert ["Name:", "web"] in rows
    assert ["Online", "6", "0"] in rows  # the profile's spec; no status written yet
    assert ["Scale", "mode:", "Auto"] in rows
    assert without.exit_code == 0, without.output
    assert ["Replica", "profile:", "<none>"] in lines(without.output)
    assert every.exit_code == 0, every.output
    assert ["Name:", "lone"] in lines(every.output)
    assert ["Name:", "web"] in lines(every.output)
    assert rp_described.exit_code == 0, rp_described.output
    assert ["Traffic", "controller:", "ReadinessGate"] in lines(rp_described.output)
    assert missing.exit_code != 0
    assert 'intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io "nope" not found' in (
        missing.output
    )
