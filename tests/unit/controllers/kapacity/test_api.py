"""Kapacity's IntelligentHorizontalPodAutoscaler and ReplicaProfile as podscale serves them:
``parse_ihpa`` and ``parse_replica_profile`` apply Kapacity's defaults, ``portrait_problem``
finds what Kapacity's controller fails on with Kapacity's messages (each test id names the
rule), and the shipped CRDs pass podscale's CRD validation, admit Kapacity's sample
manifests unchanged apart from the schema's defaults, and print no extra columns."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.controllers.kapacity.kind import (
    CRD_NAME,
    IHPA,
    REPLICA_PROFILE,
    REPLICA_PROFILE_CRD_NAME,
    definition,
    replica_profile_definition,
)
from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.replicaprofile import (
    PodSorterType,
    ScalingDirection,
    TrafficControllerType,
    parse_replica_profile,
)
from podscale.controllers.kapacity.types import (
    GrayStrategy,
    PodState,
    PortraitValue,
    ScaleMode,
    StabilizationAction,
    parse_ihpa,
)
from podscale.controllers.kapacity.validation import FAILED_PORTRAIT, load_zone, portrait_problem
from podscale.controllers.shipped_crds import INSTALLED_WITH, crds_to_install, shipped_definition
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP_VERSION = "/apis/autoscaling.kapacitystack.io/v1alpha1/namespaces/default"
IHPAS = f"{GROUP_VERSION}/intelligenthorizontalpodautoscalers"
RPS = f"{GROUP_VERSION}/replicaprofiles"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
STATIC: JSON = {"type": "Static", "priority": 1, "static": {"replicas": 1}}
CRON: JSON = {
    "type": "Cron",
    "priority": 2,
    "cron": {
        "crons": [{"name": "cron-1", "replicas": 5, "start": "0 * * * *", "end": "10 * * * *"}]
    },
}


def ihpa(**spec: Any) -> JSON:
    """Kapacity's gray-strategy sample: a Static portrait under an hourly Cron one."""
    body: JSON = {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "IntelligentHorizontalPodAutoscaler",
        "metadata": {"name": "gray-strategy-sample", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "nginx"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "portraitProviders": [copy.deepcopy(STATIC), copy.deepcopy(CRON)],
        },
    }
    body["spec"].update(spec)
    return body


GRAY: JSON = {
    "scaleDown": {
        "grayStrategy": {
            "grayState": "Cutoff",
            "changeIntervalSeconds": 30,
            "changePercent": 50,
            "observationSeconds": 60,
        }
    }
}
REACTIVE: JSON = {
    "type": "Dynamic",
    "priority": 0,
    "dynamic": {
        "portraitType": "Reactive",
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 30},
                },
            }
        ],
        "algorithm": {"type": "KubeHPA", "kubeHPA": {}},
    },
}


# -- parse and defaults ---------------------------------------------------------------------


def test_the_defaults_are_kapacitys() -> None:
    read = parse_ihpa(ihpa(portraitProviders=[CRON, REACTIVE]))
    spec = read.spec
    assert (spec.scale_mode, spec.paused, spec.min_replicas, spec.max_replicas) == (
        ScaleMode.AUTO,
        False,
        1,
        10,
    )
    # No grayStrategy in either direction: replicas change at once.
    assert (spec.behavior.scale_up, spec.behavior.scale_down) == (None, None)
    assert spec.behavior.replica_profile is None
    assert spec.stability_checkers == ()
    cron, dynamic = spec.portrait_providers
    assert cron.crons is not None
    assert cron.crons[0].time_zone == "UTC"
    assert dynamic.dynamic is not None
    kube = dynamic.dynamic.algorithm.kube_hpa
    assert kube is not None
    assert (
        kube.sync_period,
        kube.tolerance,
        kube.cpu_initialization_period,
        kube.initial_readiness_delay,
    ) == (timedelta(seconds=15), 0.1, timedelta(minutes=5), timedelta(seconds=30))
    assert read.status.current is None
    assert read.status.gray is None


@pytest.mark.parametrize(
    ("spec", "read", "expected"),
    [
        ({"scaleMode": "Preview"}, lambda s: s.scale_mode, ScaleMode.PREVIEW),
        ({"paused": True}, lambda s: s.paused, True),
        ({"minReplicas": 0, "maxReplicas": 0}, lambda s: (s.min_replicas, s.max_replicas), (0, 0)),
        (
            {"behavior": GRAY},
            lambda s: s.behavior.scale_down,
            GrayStrategy(PodState.CUTOFF, 30, 50, 60),
        ),
        (
            {
                "behavior": {
                    "scaleUp": {
                        "grayStrategy": {
                            "grayState": "Online",
                            "changeIntervalSeconds": 5,
                            "changePercent": 20,
                        }
                    }
                }
            },
            lambda s: (s.behavior.scale_up, s.behavior.scale_down),
            (GrayStrategy(PodState.ONLINE, 5, 20, 0), None),
        ),
        (
            {
                "behavior": {
                    "replicaProfile": {
                        "podSorter": {"type": "External", "external": {"name": "cost"}}
                    }
                }
            },
            lambda s: (
                s.behavior.replica_profile.pod_sorter,
                s.behavior.replica_profile.pod_sorter_external.name,
                s.behavior.replica_profile.traffic_controller,
            ),
            (PodSorterType.EXTERNAL, "cost", TrafficControllerType.READINESS_GATE),
        ),
        (
            {
                "portraitProviders": [
                    {
                        **CRON,
                        "cron": {
                            "crons": [{**CRON["cron"]["crons"][0], "timeZone": "Asia/Shanghai"}]
                        },
                    }
                ]
            },
            lambda s: s.portrait_providers[0].crons[0].time_zone,
            "Asia/Shanghai",
        ),
        (
            {
                "stabilityCheckers": [
                    {
                        "type": "Metrics",
                        "stabilizationAction": "Rollback",
                        "coolDownSeconds": 120,
                        "metrics": {"metrics": [REACTIVE["dynamic"]["metrics"][0]]},
                    }
                ]
            },
            lambda s: (
                s.stability_checkers[0].action,
                s.stability_checkers[0].cool_down_seconds,
                len(s.stability_checkers[0].metrics),
            ),
            (StabilizationAction.ROLLBACK, 120, 1),
        ),
        (
            {
                "portraitProviders": [
                    {
                        **REACTIVE,
                        "dynamic": {
                            **REACTIVE["dynamic"],
                            "algorithm": {
                                "type": "KubeHPA",
                                "kubeHPA": {"syncPeriod": "1m30s", "tolerance": "0.05"},
                            },
                        },
                    }
                ]
            },
            lambda s: (
                s.portrait_providers[0].dynamic.algorithm.kube_hpa.sync_period,
                s.portrait_providers[0].dynamic.algorithm.kube_hpa.tolerance,
            ),
            (timedelta(seconds=90), 0.05),
        ),
    ],
    ids=[
        "scaleMode-preview",
        "paused",
        "zero-replicas-allowed",
        "scale-down-gray-strategy",
        "scale-up-only-gray",
        "external-pod-sorter-keeps-default-traffic-controller",
        "per-rule-time-zone",
        "metrics-stability-checker",
        "kubeHPA-go-durations",
    ],
)
def test_parse_reads_kapacitys_fields(spec: JSON, read: Any, expected: Any) -> None:
    assert read(parse_ihpa(ihpa(**spec)).spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"minReplicas": "1"}, "spec.minReplicas: must be an integer"),
        ({"paused": "yes"}, "spec.paused: must be a boolean"),
        ({"portraitProviders": {}}, "spec.portraitProviders: must be an array"),
        (
            {"scaleMode": "Manual"},
            'spec.scaleMode: Unsupported value: "Manual": supported values: "Auto", "Preview"',
        ),
        (
            {
                "portraitProviders": [
                    {
                        **REACTIVE,
                        "dynamic": {
                            **REACTIVE["dynamic"],
                            "algorithm": {"type": "KubeHPA", "kubeHPA": {"syncPeriod": "15"}},
                        },
                    }
                ]
            },
            "spec.portraitProviders[0].dynamic.algorithm.kubeHPA.syncPeriod: "
            'time: missing unit in duration "15"',
        ),
        (
            {
                "portraitProviders": [
                    {
                        **REACTIVE,
                        "dynamic": {
                            **REACTIVE["dynamic"],
                            "algorithm": {"type": "KubeHPA", "kubeHPA": {"tolerance": "1_0"}},
                        },
                    }
                ]
            },
            "spec.portraitProviders[0].dynamic.algorithm.kubeHPA.tolerance: "
            'strconv.ParseFloat: parsing "1_0": invalid syntax',
        ),
        (
            {
                "behavior": {
                    "scaleDown": {
                        "grayStrategy": {
                            **GRAY["scaleDown"]["grayStrategy"],
                            "grayState": "Gone",
                        }
                    }
                }
            },
            'spec.behavior.scaleDown.grayStrategy.grayState: Unsupported value: "Gone": '
            'supported values: "Online", "Cutoff", "Standby", "Deleted"',
        ),
    ],
    ids=["int32", "bool", "array", "scaleMode-enum", "go-duration", "go-float", "grayState-enum"],
)
def test_parse_refuses_what_go_would_not_decode(spec: JSON, message: str) -> None:
    with pytest.raises(KapacityError) as raised:
        parse_ihpa(ihpa(**spec))
    assert str(raised.value) == message


def test_status_values_read_back_as_written() -> None:
    expire = datetime(2026, 11, 26, 1, 10, tzinfo=UTC)
    value = PortraitValue("Cron", 5, expire)
    body = ihpa()
    body["status"] = {
        "previousPortraitValue": PortraitValue("Static", 1).to_json(),
        "currentPortraitValue": value.to_json(),
        "gray": {"grayPercent": 50, "lastUpdateTime": "2026-11-26T01:10:30Z"},
        "conditions": [
            {
                "type": "GrayProgressing",
                "status": "True",
                "lastTransitionTime": "2026-11-26T01:10:00Z",
                "reason": "ReplicasNotMatchPortrait",
                "message": "online replica count does not match replica count of current "
                "portrait value",
            }
        ],
    }
    status = parse_ihpa(body).status
    assert status.current == value
    assert status.previous == PortraitValue("Static", 1)
    assert status.gray is not None
    assert status.gray.gray_percent == 50
    assert status.gray.to_json() == body["status"]["gray"]
    assert [c.to_json() for c in status.conditions] == body["status"]["conditions"]


def replica_profile(**spec: Any) -> JSON:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "ReplicaProfile",
        "metadata": {"name": "gray-strategy-sample", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "nginx"},
            **spec,
        },
    }


def test_a_replica_profile_defaults_as_kapacitys() -> None:
    spec = parse_replica_profile(replica_profile(onlineReplicas=3)).spec
    assert (spec.online_replicas, spec.cutoff_replicas, spec.standby_replicas) == (3, 0, 0)
    assert spec.allowed_scaling_direction == ScalingDirection.BOTH
    assert spec.behavior.pod_sorter == PodSorterType.WORKLOAD_DEFAULT
    assert spec.behavior.traffic_controller == TrafficControllerType.READINESS_GATE
    assert not spec.paused


@given(st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 1000))
def test_the_workload_runs_every_pod_not_deleted(online: int, cutoff: int, standby: int) -> None:
    spec = parse_replica_profile(
        replica_profile(onlineReplicas=online, cutoffReplicas=cutoff, standbyReplicas=standby)
    ).spec
    assert spec.workload_replicas == online + cutoff + standby


# -- what the controller fails on ----------------------------------------------------------------

PREFIX = "failed to update and fetch portrait value: "


def cron_rule(**rule: Any) -> JSON:
    return {**CRON, "cron": {"crons": [{**CRON["cron"]["crons"][0], **rule}]}}


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        ([STATIC, CRON, REACTIVE], None),
        ([cron_rule(timeZone="Local")], None),
        ([cron_rule(timeZone="")], None),
        ([cron_rule(start="CRON_TZ=Europe/Berlin 0 9 * * 1-5")], None),
        (
            [cron_rule(timeZone="Mars/Olympus")],
            PREFIX + 'failed to update portrait spec: failed to load time zone of cron "cron-1": '
            "unknown time zone Mars/Olympus",
        ),
        (
            [cron_rule(start="0 * * *")],
            PREFIX + "failed to update portrait spec: failed to add crontab start function of cron "
            '"cron-1": expected exactly 5 fields, found 4: [0 * * *]',
        ),
        (
            [cron_rule(end="61 * * * *")],
            PREFIX
            + "failed to update portrait spec: "
            + 'failed to add crontab end function of cron "cron-1": ',
        ),
        (
            [{"type": "Static", "priority": 1}],
            PREFIX
            + "failed to update portrait spec: "
            + "portrait provider of type Static has no static config",
        ),
        (
            [cron_rule(timeZone="Nowhere/At"), {"type": "Hourly", "priority": 1}],
            PREFIX + 'unknown portrait provider type "Hourly"',
        ),
        (
            [{"type": "Dynamic", "priority": 1}, cron_rule(timeZone="Nowhere/At")],
            PREFIX
            + "failed to update portrait spec: "
            + "portrait provider of type Dynamic has no dynamic config",
        ),
    ],
    ids=[
        "static-cron-dynamic-fine",
        "local-zone-is-the-controllers",
        "empty-zone-is-utc",
        "cron-tz-prefix",
        "unknown-time-zone",
        "start-not-five-fields",
        "end-out-of-range",
        "static-without-config",
        "provider-types-checked-before-any-spec",
        "first-failing-provider-wins",
    ],
)
def test_portrait_problem(providers: list[JSON], message: str | None) -> None:
    problem = portrait_problem(parse_ihpa(ihpa(portraitProviders=providers)).spec)
    if message is None:
        assert problem is None
        return
    assert problem is not None
    assert problem.reason == FAILED_PORTRAIT == "FailedUpdateAndFetchPortraitValue"
    assert problem.message.startswith(message)
    assert problem.message != PREFIX


@pytest.mark.parametrize(
    ("name", "expected"),
    [("", "UTC"), ("UTC", "UTC"), ("Local", "Europe/Berlin"), ("Asia/Shanghai", "Asia/Shanghai")],
    ids=["empty-is-utc", "utc", "local-is-the-controllers", "iana"],
)
def test_load_zone_as_go(name: str, expected: str) -> None:
    assert str(load_zone(name, ZoneInfo("Europe/Berlin"))) == expected


# -- the CRDs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "info", "crd_name", "short"),
    [
        (definition, IHPA, CRD_NAME, "ihpa"),
        (replica_profile_definition, REPLICA_PROFILE, REPLICA_PROFILE_CRD_NAME, "rp"),
    ],
    ids=["ihpa", "replicaprofile"],
)
def test_the_crds_name_the_kinds(make: Any, info: Any, crd_name: str, short: str) -> None:
    crd = make()
    assert crd["metadata"]["name"] == crd_name == f"{info.plural}.autoscaling.kapacitystack.io"
    names = crd["spec"]["names"]
    assert (names["kind"], names["plural"], names["singular"], names["listKind"]) == (
        info.kind,
        info.plural,
        info.singular,
        info.list_kind,
    )
    assert names["shortNames"] == [short] == list(info.short_names)
    (version,) = crd["spec"]["versions"]
    assert version["name"] == info.version == "v1alpha1"
    assert version["subresources"] == {"status": {}}
    # Kapacity's CRDs declare no printer columns.
    assert "additionalPrinterColumns" not in version
    assert shipped_definition(crd_name) == make()
    assert INSTALLED_WITH[crd_name] == "ihpa-controller"
    # No controller runs under that name yet: installed on request only.
    assert crd_name not in crds_to_install((), (), {"horizontal-pod-autoscaler-controller"})
    assert crd_name in crds_to_install((crd_name,), (), set())


@pytest.fixture
def client() -> TestClient:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    client = TestClient(create_app(MemoryStore(clock), clock=clock), raise_server_exceptions=False)
    for crd in (definition(), replica_profile_definition()):
        created = client.post(CRDS, json=crd)
        assert created.status_code == 201, created.text
    return client


def test_kapacitys_sample_is_admitted_with_the_schema_defaults(client: TestClient) -> None:
    manifest = ihpa(behavior=GRAY, portraitProviders=[STATIC, CRON, REACTIVE])
    created = client.post(IHPAS, json=manifest)
    assert created.status_code == 201, created.text
    expected = copy.deepcopy(manifest["spec"])
    expected["scaleMode"] = "Auto"
    expected["portraitProviders"][1]["cron"]["crons"][0]["timeZone"] = "UTC"
    expected["portraitProviders"][2]["dynamic"]["algorithm"]["kubeHPA"] = {
        "syncPeriod": "15s",
        "tolerance": "0.1",
        "cpuInitializationPeriod": "5m",
        "initialReadinessDelay": "30s",
    }
    stored = created.json()
    assert stored["spec"] == expected
    assert portrait_problem(parse_ihpa(stored).spec) is None


def test_a_replica_profile_gets_its_behavior_default(client: TestClient) -> None:
    created = client.post(RPS, json=replica_profile(onlineReplicas=1, cutoffReplicas=4))
    assert created.status_code == 201, created.text
    spec = created.json()["spec"]
    assert spec["allowedScalingDirection"] == "Both"
    assert spec["behavior"] == {
        "podSorter": {"type": "WorkloadDefault"},
        "podTrafficController": {"type": "ReadinessGate"},
    }


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"portraitProviders": None}, "spec.portraitProviders: Required value"),
        (
            {"minReplicas": -1},
            "spec.minReplicas: Invalid value: -1: "
            "spec.minReplicas in body should be greater than or equal to 0",
        ),
        (
            {"scaleMode": "Manual"},
            'spec.scaleMode: Unsupported value: "Manual": supported values: "Auto", "Preview"',
        ),
        (
            {"portraitProviders": [{"type": "Cron", "priority": 1, "cron": {"crons": []}}]},
            "spec.portraitProviders[0].cron.crons: Invalid value: 0: "
            "spec.portraitProviders[0].cron.crons in body should have at least 1 items",
        ),
        (
            {
                "behavior": {
                    "scaleDown": {
                        "grayStrategy": {**GRAY["scaleDown"]["grayStrategy"], "changePercent": 101}
                    }
                }
            },
            "spec.behavior.scaleDown.grayStrategy.changePercent: Invalid value: 101: "
            "spec.behavior.scaleDown.grayStrategy.changePercent in body should be less than "
            "or equal to 100",
        ),
        (
            {
                "behavior": {
                    "scaleDown": {"grayStrategy": {"grayState": "Cutoff", "changePercent": 50}}
                }
            },
            "spec.behavior.scaleDown.grayStrategy.changeIntervalSeconds: Required value",
        ),
        (
            {"stabilityCheckers": [{"type": "Metrics", "stabilizationAction": "Stop"}]},
            'spec.stabilityCheckers[0].stabilizationAction: Unsupported value: "Stop": '
            'supported values: "Pause", "Rollback"',
        ),
    ],
    ids=[
        "portraitProviders-required",
        "minReplicas-minimum-0",
        "scaleMode-enum",
        "crons-min-items",
        "changePercent-maximum-100",
        "changeIntervalSeconds-required",
        "stabilizationAction-enum",
    ],
)
def test_the_schema_refuses(client: TestClient, change: JSON, detail: str) -> None:
    body = ihpa()
    for key, value in change.items():
        if value is None:
            del body["spec"][key]
        else:
            body["spec"][key] = value
    refused = client.post(IHPAS, json=body)
    assert refused.status_code == 422, refused.text
    causes = [f"{c['field']}: {c['message']}" for c in refused.json()["details"]["causes"]]
    assert detail in causes


def test_the_status_subresource_takes_the_portrait_values(client: TestClient) -> None:
    assert client.post(IHPAS, json=ihpa()).status_code == 201
    stored = client.get(f"{IHPAS}/gray-strategy-sample").json()
    stored["status"] = {
        "currentPortraitValue": {
            "provider": "Cron",
            "replicas": 5,
            "expireTime": "2026-11-26T01:10:00Z",
        },
        "gray": {"grayPercent": 0, "lastUpdateTime": "2026-11-26T01:00:00Z"},
    }
    updated = client.put(f"{IHPAS}/gray-strategy-sample/status", json=stored)
    assert updated.status_code == 200, updated.text
    status = parse_ihpa(updated.json()).status
    assert status.current == PortraitValue("Cron", 5, datetime(2026, 11, 26, 1, 10, tzinfo=UTC))


def test_kubectl_get_prints_name_and_age_as_for_kapacity(client: TestClient) -> None:
    assert client.post(IHPAS, json=ihpa()).status_code == 201
    table = client.get(IHPAS, headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age"]
