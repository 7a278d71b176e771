"""KEDA's ScaledObject as podscale serves it: ``parse_scaled_object`` applies KEDA's
defaults, ``validation`` applies KEDA's webhook rules with KEDA's messages (each test id
names the rule), and the shipped CRD passes podscale's CRD validation, admits a KEDA
manifest unchanged and prints KEDA's columns."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.controllers.keda.kind import CRD_NAME, SCALED_OBJECT, definition
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.types import ScaledObjectError
from podscale.controllers.keda.validation import (
    admission_error,
    check_cpu_memory,
    check_fallback,
    check_hpas,
    check_replica_counts,
    check_scaled_objects,
    check_triggers,
    denial,
)
from podscale.controllers.shipped_crds import INSTALLED_WITH, crds_to_install, shipped_definition
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SOS = "/apis/keda.sh/v1alpha1/namespaces/default/scaledobjects"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
PROMETHEUS: JSON = {
    "type": "prometheus",
    "metadata": {
        "serverAddress": "http://prometheus:9090",
        "query": "sum(queue_length)",
        "threshold": "10",
    },
}
CPU: JSON = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}


def scaled_object(**spec: Any) -> JSON:
    """A minimal KEDA manifest: a Deployment ``worker``, one prometheus trigger."""
    body: JSON = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "worker", "namespace": "default"},
        "spec": {"scaleTargetRef": {"name": "worker"}, "triggers": [copy.deepcopy(PROMETHEUS)]},
    }
    body["spec"].update(spec)
    return body


def hpa(name: str, target: str, **meta: Any) -> JSON:
    return {
        "metadata": {"name": name, **meta},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}},
    }


# -- parse and defaults -------------------------------------------------------------------


def test_the_defaults_are_kedas() -> None:
    so = parse_scaled_object(scaled_object())
    assert (so.polling_interval, so.cooldown_period, so.initial_cooldown_period) == (30, 300, 0)
    assert (so.min_replica_count, so.max_replica_count, so.idle_replica_count) == (0, 100, None)
    assert not so.min_replica_count_set
    assert (so.scale_target.api_version, so.scale_target.kind) == ("apps/v1", "Deployment")
    assert so.scale_target.gvk_string == "apps/v1.Deployment"
    assert so.fallback is None
    assert not so.advanced.scaling_modifiers.in_use
    assert not so.advanced.restore_to_original_replica_count
    (trigger,) = so.triggers
    assert (trigger.type, trigger.name, trigger.metric_type) == ("prometheus", "", "")
    assert trigger.target_type == "AverageValue"
    assert trigger.metadata["threshold"] == "10"


@pytest.mark.parametrize(
    ("spec", "read", "expected"),
    [
        ({"pollingInterval": 5}, lambda so: so.polling_interval, 5),
        ({"cooldownPeriod": 60}, lambda so: so.cooldown_period, 60),
        ({"initialCooldownPeriod": 120}, lambda so: so.initial_cooldown_period, 120),
        ({"idleReplicaCount": 0}, lambda so: so.idle_replica_count, 0),
        (
            {"minReplicaCount": 0},
            lambda so: (so.min_replica_count, so.min_replica_count_set),
            (0, True),
        ),
        ({}, lambda so: so.hpa_min_replicas, 1),
        ({"minReplicaCount": 0}, lambda so: so.hpa_min_replicas, 1),
        ({"minReplicaCount": 3}, lambda so: so.hpa_min_replicas, 3),
        ({"maxReplicaCount": 7}, lambda so: so.hpa_max_replicas, 7),
        ({}, lambda so: so.hpa_name, "keda-hpa-worker"),
        (
            {"advanced": {"horizontalPodAutoscalerConfig": {"name": "mine"}}},
            lambda so: so.hpa_name,
            "mine",
        ),
        (
            {"fallback": {"failureThreshold": 3, "replicas": 6}},
            lambda so: (so.fallback.failure_threshold, so.fallback.replicas, so.fallback.behavior),
            (3, 6, "static"),
        ),
        (
            {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"}},
            lambda so: so.scale_target.gvk_string,
            "apps/v1.StatefulSet",
        ),
        (
            {
                "scaleTargetRef": {
                    "apiVersion": "argoproj.io/v1alpha1",
                    "kind": "Rollout",
                    "name": "r",
                }
            },
            lambda so: so.scale_target.gvk_string,
            "argoproj.io/v1alpha1.Rollout",
        ),
        (
            {"advanced": {"scalingModifiers": {"formula": "a + b", "target": "2"}}},
            lambda so: so.advanced.scaling_modifiers.in_use,
            True,
        ),
        (
            {
                "triggers": [
                    {
                        **PROMETHEUS,
                        "name": "q",
                        "metricType": "Value",
                        "useCachedMetrics": True,
                        "authenticationRef": {
                            "name": "auth",
                            "kind": "ClusterTriggerAuthentication",
                        },
                    }
                ]
            },
            lambda so: (
                so.triggers[0].name,
                so.triggers[0].target_type,
                so.triggers[0].use_cached_metrics,
                so.triggers[0].authentication_kind,
            ),
            ("q", "Value", True, "ClusterTriggerAuthentication"),
        ),
    ],
    ids=[
        "pollingInterval-as-written",
        "cooldownPeriod-as-written",
        "initialCooldownPeriod-as-written",
        "idleReplicaCount-as-written",
        "explicit-min-0-is-remembered",
        "GetHPAMinReplicas-default-1",
        "GetHPAMinReplicas-min-0-is-1",
        "GetHPAMinReplicas-min-as-written",
        "GetHPAMaxReplicas",
        "hpa-name-keda-hpa-prefix",
        "hpa-name-from-horizontalPodAutoscalerConfig",
        "fallback-behavior-default-static",
        "GVKString-statefulset",
        "GVKString-custom-resource",
        "IsUsingModifiers",
        "trigger-fields",
    ],
)
def test_parse_reads_kedas_fields(spec: JSON, read: Any, expected: Any) -> None:
    assert read(parse_scaled_object(scaled_object(**spec))) == expected


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"pollingInterval": "30"}, "spec.pollingInterval"),
        ({"minReplicaCount": True}, "spec.minReplicaCount"),
        ({"triggers": {"type": "cpu"}}, "spec.triggers"),
        (
            {"triggers": [{"type": "cron", "metadata": {"start": 5}}]},
            "spec.triggers[0].metadata.start",
        ),
    ],
    ids=["int-as-string", "bool-as-int", "triggers-not-a-list", "metadata-value-not-a-string"],
)
def test_parse_refuses_wrong_json_types(spec: JSON, field: str) -> None:
    with pytest.raises(ScaledObjectError, match=field.replace("[", r"\[").replace("]", r"\]")):
        parse_scaled_object(scaled_object(**spec))


# -- KEDA's webhook rules -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (
            {"minReplicaCount": 5, "maxReplicaCount": 2},
            "MinReplicaCount=5 must be less than MaxReplicaCount=2",
        ),
        (
            {"minReplicaCount": 0, "maxReplicaCount": 0},
            "MinReplicaCount=1 must be less than MaxReplicaCount=0",
        ),
        ({"maxReplicaCount": 0}, None),
        ({"minReplicaCount": 3, "maxReplicaCount": 3}, None),
        (
            {"idleReplicaCount": 2, "minReplicaCount": 2},
            "IdleReplicaCount=2 must be less than MinReplicaCount=2",
        ),
        ({"idleReplicaCount": 0}, "IdleReplicaCount=0 must be less than MinReplicaCount=0"),
        ({"idleReplicaCount": 0, "minReplicaCount": 0}, None),
        ({"idleReplicaCount": 0, "minReplicaCount": 1}, None),
    ],
    ids=[
        "min-greater-than-max",
        "explicit-min-0-compares-as-hpa-min-1",
        "min-absent-compares-as-0",
        "min-equal-max",
        "idle-equal-min",
        "idle-with-min-absent",
        "idle-0-with-explicit-min-0-passes",
        "idle-below-min",
    ],
)
def test_check_replica_counts(spec: JSON, error: str | None) -> None:
    assert check_replica_counts(parse_scaled_object(scaled_object(**spec))) == error


@given(
    minimum=st.none() | st.integers(0, 50),
    maximum=st.integers(0, 50),
    idle=st.none() | st.integers(0, 50),
)
def test_replica_counts_accepted_only_when_ordered(
    minimum: int | None, maximum: int, idle: int | None
) -> None:
    spec: JSON = {"maxReplicaCount": maximum}
    if minimum is not None:
        spec["minReplicaCount"] = minimum
    if idle is not None:
        spec["idleReplicaCount"] = idle
    so = parse_scaled_object(scaled_object(**spec))
    low = 0 if minimum is None else max(minimum, 1)
    ordered = low <= maximum and (idle is None or idle < low)
    assert (check_replica_counts(so) is None) == ordered


FALLBACK: JSON = {"failureThreshold": 3, "replicas": 6}
NO_AVERAGE = (
    "at least one trigger (that is not cpu or memory) has to have the `AverageValue` type "
    "for the fallback to be enabled"
)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ({"fallback": FALLBACK}, None),
        (
            {"fallback": {"failureThreshold": -1, "replicas": 6}},
            "FailureThreshold=-1 & Replicas=6 must both be greater than or equal to 0",
        ),
        (
            {"fallback": {"failureThreshold": 3, "replicas": -2}},
            "FailureThreshold=3 & Replicas=-2 must both be greater than or equal to 0",
        ),
        ({"fallback": FALLBACK, "triggers": [CPU]}, NO_AVERAGE),
        ({"fallback": FALLBACK, "triggers": [{**PROMETHEUS, "metricType": "Value"}]}, NO_AVERAGE),
        (
            {"fallback": FALLBACK, "triggers": [CPU, {**PROMETHEUS, "metricType": "AverageValue"}]},
            None,
        ),
        (
            {"fallback": FALLBACK, "triggers": [{**PROMETHEUS, "metricType": "Value"}, PROMETHEUS]},
            None,
        ),
        (
            {
                "fallback": FALLBACK,
                "advanced": {
                    "scalingModifiers": {"formula": "a", "target": "1", "metricType": "Value"}
                },
            },
            "ScaledObject.Spec.Advanced.ScalingModifiers.MetricType must be AverageValue to have "
            "fallback enabled",
        ),
        (
            {
                "fallback": FALLBACK,
                "triggers": [{**PROMETHEUS, "metricType": "Value"}],
                "advanced": {"scalingModifiers": {"formula": "a", "target": "1"}},
            },
            None,
        ),
        ({}, None),
    ],
    ids=[
        "fallback-empty-metricType-counts-as-AverageValue",
        "fallback-negative-failureThreshold",
        "fallback-negative-replicas",
        "fallback-cpu-memory-only",
        "fallback-Value-only",
        "fallback-one-AverageValue-beside-cpu",
        "fallback-one-AverageValue-beside-Value",
        "fallback-scalingModifiers-Value",
        "fallback-scalingModifiers-default-AverageValue",
        "no-fallback",
    ],
)
def test_check_fallback(spec: JSON, error: str | None) -> None:
    assert check_fallback(parse_scaled_object(scaled_object(**spec))) == error


def modifiers(**fields: str) -> JSON:
    return {"advanced": {"scalingModifiers": fields}}


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (modifiers(formula="a + b", target="2"), None),
        (modifiers(target="2"), "error ScalingModifiers.Formula is mandatory"),
        (
            modifiers(formula="a + b"),
            "error validating formula in ScalingModifiers\nformula is given but target is empty",
        ),
        (
            modifiers(formula="a", target="two"),
            "error validating target in ScalingModifiers\nerror converting target for "
            'scalingModifiers (string->float) to valid target: strconv.ParseFloat: parsing "two": '
            "invalid syntax",
        ),
        (
            modifiers(formula="a", target="0"),
            "error validating target in ScalingModifiers\nerror converting target for "
            "scalingModifiers (string->float) to valid target: %!w(<nil>)",
        ),
        (
            modifiers(formula="a", target=" 2"),
            "error validating target in ScalingModifiers\nerror converting target for "
            'scalingModifiers (string->float) to valid target: strconv.ParseFloat: parsing " 2": '
            "invalid syntax",
        ),
        (
            modifiers(formula="a", target="1e400"),
            "error validating target in ScalingModifiers\nerror converting target for "
            "scalingModifiers (string->float) to valid target: strconv.ParseFloat: parsing "
            '"1e400": value out of range',
        ),
        (modifiers(formula="a", target="0x1p-2"), None),
        (
            modifiers(formula="a", target="2.5", metricType="Utilization"),
            "error validating target in ScalingModifiers\nerror trigger type is Utilization, "
            "but it needs to be AverageValue or Value for external metrics",
        ),
        (modifiers(formula="a", target="2.5", metricType="Value"), None),
    ],
    ids=[
        "scalingModifiers-formula-and-target",
        "scalingModifiers-formula-mandatory",
        "scalingModifiers-target-needed-with-formula",
        "scalingModifiers-target-not-a-float",
        "scalingModifiers-target-not-positive",
        "scalingModifiers-target-no-whitespace-as-Go",
        "scalingModifiers-target-out-of-range",
        "scalingModifiers-target-hex-float-as-Go",
        "scalingModifiers-Utilization",
        "scalingModifiers-Value",
    ],
)
def test_check_scaling_modifiers(spec: JSON, error: str | None) -> None:
    assert check_scaled_objects(parse_scaled_object(scaled_object(**spec)), ()) == error


def test_another_scaled_object_on_the_target_is_refused() -> None:
    so = parse_scaled_object(scaled_object())
    other = parse_scaled_object({**scaled_object(), "metadata": {"name": "first"}})
    elsewhere = parse_scaled_object(
        scaled_object(
            scaleTargetRef={"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "worker"}
        )
    )
    assert check_scaled_objects(so, [so]) is None  # itself, on update
    assert check_scaled_objects(so, [elsewhere]) is None
    assert check_scaled_objects(so, [other]) == (
        "the workload 'worker' of type 'apps/v1.Deployment' is already managed by the "
        "ScaledObject 'first'"
    )


TRANSFER = {"scaledobject.keda.sh/transfer-hpa-ownership": "true"}
OTHER_HPA = "the workload 'worker' of type 'apps/v1.Deployment' is already managed by the hpa 'web'"


@pytest.mark.parametrize(
    ("annotations", "spec", "hpas", "error"),
    [
        ({}, {}, [hpa("web", "worker")], OTHER_HPA),
        ({}, {}, [hpa("web", "other")], None),
        (
            {},
            {},
            [
                hpa(
                    "keda-hpa-worker",
                    "worker",
                    ownerReferences=[{"kind": "ScaledObject", "name": "worker"}],
                )
            ],
            None,
        ),
        (
            {},
            {},
            [hpa("web", "worker", ownerReferences=[{"kind": "ScaledObject", "name": "x"}])],
            OTHER_HPA,
        ),
        (
            TRANSFER,
            {"advanced": {"horizontalPodAutoscalerConfig": {"name": "web"}}},
            [hpa("web", "worker")],
            None,
        ),
        (TRANSFER, {}, [hpa("web", "worker")], OTHER_HPA),
        (
            {},
            {"advanced": {"horizontalPodAutoscalerConfig": {"name": "web"}}},
            [hpa("web", "worker")],
            OTHER_HPA,
        ),
        (
            {},
            {},
            [hpa("web", "worker", annotations={"validations.keda.sh/hpa-ownership": "false"})],
            None,
        ),
    ],
    ids=[
        "hpa-already-on-target",
        "hpa-on-another-target",
        "hpa-owned-by-this-scaledobject",
        "hpa-owned-by-another-scaledobject",
        "hpa-ownership-transfer-by-name",
        "hpa-ownership-transfer-needs-the-name",
        "hpa-name-without-transfer-annotation",
        "hpa-ownership-validation-disabled",
    ],
)
def test_check_hpas(annotations: JSON, spec: JSON, hpas: list[JSON], error: str | None) -> None:
    body = scaled_object(**spec)
    body["metadata"]["annotations"] = annotations
    assert check_hpas(parse_scaled_object(body), hpas) == error


SCALE_TO_ZERO = (
    "scaledobject has only cpu/memory triggers AND minReplica is 0 (scale to zero doesn't work "
    "in this case)"
)
REQUESTS = {"name": "app", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}
BARE = {"name": "app", "resources": {}}


@pytest.mark.parametrize(
    ("spec", "containers", "limit_range", "error"),
    [
        ({"triggers": [CPU]}, [REQUESTS], (), SCALE_TO_ZERO),
        ({"triggers": [CPU], "minReplicaCount": 0}, [REQUESTS], (), SCALE_TO_ZERO),
        ({"triggers": [CPU], "minReplicaCount": 1}, [REQUESTS], (), None),
        ({"triggers": [CPU, PROMETHEUS]}, [REQUESTS], (), None),
        (
            {"triggers": [CPU], "minReplicaCount": 1},
            [BARE],
            (),
            "the scaledobject has a cpu trigger but the container app doesn't have the cpu request "
            "defined",
        ),
        (
            {"triggers": [CPU], "minReplicaCount": 1},
            [{"name": "app", "resources": {"limits": {"cpu": "0"}}}],
            (),
            "the scaledobject has a cpu trigger but the container app doesn't have the cpu request "
            "defined",
        ),
        ({"triggers": [CPU], "minReplicaCount": 1}, [BARE], ("cpu",), None),
        (
            {
                "triggers": [{**CPU, "metadata": {"value": "60", "containerName": "app"}}],
                "minReplicaCount": 1,
            },
            [REQUESTS, {"name": "sidecar"}],
            (),
            None,
        ),
        (
            {
                "triggers": [CPU],
                "scaleTargetRef": {
                    "apiVersion": "argoproj.io/v1alpha1",
                    "kind": "Rollout",
                    "name": "r",
                },
            },
            [],
            (),
            None,
        ),
    ],
    ids=[
        "cpu-only-cannot-scale-to-zero-min-absent",
        "cpu-only-cannot-scale-to-zero-min-0",
        "cpu-only-with-min-1",
        "cpu-beside-another-trigger-may-scale-to-zero",
        "cpu-trigger-needs-container-request",
        "cpu-trigger-zero-limit-is-not-set",
        "cpu-trigger-limitrange-default",
        "cpu-trigger-containerName-picks-the-container",
        "cpu-checks-only-deployments-and-statefulsets",
    ],
)
def test_check_cpu_memory(
    spec: JSON, containers: list[JSON], limit_range: tuple[str, ...], error: str | None
) -> None:
    so = parse_scaled_object(scaled_object(**spec))
    assert check_cpu_memory(so, containers, limit_range) == error


@pytest.mark.parametrize(
    ("triggers", "error"),
    [
        ([{**PROMETHEUS, "name": "a"}, {**PROMETHEUS, "name": "b"}], None),
        ([PROMETHEUS, PROMETHEUS], None),
        (
            [{**PROMETHEUS, "name": "a"}, {**PROMETHEUS, "name": "a"}],
            'triggerName "a" is defined multiple times in the ScaledObject, but it must be unique',
        ),
        (
            [{**CPU, "useCachedMetrics": True}],
            'property "useCachedMetrics" is not supported for "cpu" scaler',
        ),
        (
            [{"type": "cron", "metadata": {}, "useCachedMetrics": True}],
            'property "useCachedMetrics" is not supported for "cron" scaler',
        ),
        ([{**PROMETHEUS, "useCachedMetrics": True}], None),
    ],
    ids=[
        "trigger-names-unique",
        "unnamed-triggers-never-duplicate",
        "trigger-name-defined-multiple-times",
        "useCachedMetrics-not-for-cpu",
        "useCachedMetrics-not-for-cron",
        "useCachedMetrics-for-prometheus",
    ],
)
def test_check_triggers(triggers: list[JSON], error: str | None) -> None:
    assert check_triggers(parse_scaled_object(scaled_object(triggers=triggers))) == error


def fixed_spec(body: JSON) -> JSON:
    return {**body["spec"], "maxReplicaCount": 9}


def test_admission_reports_the_first_error_in_kedas_order() -> None:
    body = scaled_object(
        triggers=[CPU, CPU | {"name": "x"}, CPU | {"name": "x"}],
        minReplicaCount=5,
        maxReplicaCount=2,
        fallback=FALLBACK,
    )
    so = parse_scaled_object(body)
    assert admission_error(so, containers=[REQUESTS]) == (
        "MinReplicaCount=5 must be less than MaxReplicaCount=2"
    )
    # cpu/memory first; the dry run skips it, then the bounds, then the fallback, the names.
    assert admission_error(so, containers=[BARE]) == (
        "the scaledobject has a cpu trigger but the container app doesn't have the cpu request "
        "defined"
    )
    assert admission_error(so, dry_run=True) == (
        "MinReplicaCount=5 must be less than MaxReplicaCount=2"
    )
    assert admission_error(so, hpas=[hpa("web", "worker")], dry_run=True) == OTHER_HPA
    fixed = parse_scaled_object({**body, "spec": fixed_spec(body)})
    assert admission_error(fixed, dry_run=True) == NO_AVERAGE
    spec = {key: value for key, value in fixed_spec(body).items() if key != "fallback"}
    assert admission_error(parse_scaled_object({**body, "spec": spec}), dry_run=True) == (
        'triggerName "x" is defined multiple times in the ScaledObject, but it must be unique'
    )
    assert admission_error(parse_scaled_object(scaled_object())) is None
    assert denial(NO_AVERAGE).startswith(
        'admission webhook "vscaledobject.kb.io" denied the request: '
    )


# -- the CRD ----------------------------------------------------------------------------------


@pytest.fixture
def client() -> TestClient:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    client = TestClient(create_app(MemoryStore(clock), clock=clock), raise_server_exceptions=False)
    created = client.post(CRDS, json=definition())
    assert created.status_code == 201, created.text
    return client


def test_the_crd_names_the_kind() -> None:
    crd = definition()
    assert crd["metadata"]["name"] == CRD_NAME == "scaledobjects.keda.sh"
    names = crd["spec"]["names"]
    assert (names["kind"], names["plural"], names["singular"], names["listKind"]) == (
        SCALED_OBJECT.kind,
        SCALED_OBJECT.plural,
        SCALED_OBJECT.singular,
        SCALED_OBJECT.list_kind,
    )
    assert names["shortNames"] == ["so"]
    assert "categories" not in names
    (version,) = crd["spec"]["versions"]
    assert version["name"] == SCALED_OBJECT.version
    assert version["subresources"] == {"status": {}}


def test_it_ships_with_the_keda_operator_name() -> None:
    assert shipped_definition(CRD_NAME) == definition()
    assert INSTALLED_WITH[CRD_NAME] == "keda-operator"
    # No controller runs under that name yet: installed on request only.
    assert CRD_NAME not in crds_to_install((), (), {"horizontal-pod-autoscaler-controller"})
    assert CRD_NAME in crds_to_install((CRD_NAME,), (), set())


FULL: JSON = scaled_object(
    pollingInterval=15,
    cooldownPeriod=120,
    initialCooldownPeriod=60,
    idleReplicaCount=0,
    minReplicaCount=1,
    maxReplicaCount=20,
    fallback={"failureThreshold": 3, "replicas": 6},
    advanced={
        "restoreToOriginalReplicaCount": True,
        "horizontalPodAutoscalerConfig": {
            "name": "worker-hpa",
            "behavior": {
                "scaleDown": {
                    "stabilizationWindowSeconds": 60,
                    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
                }
            },
        },
        "scalingModifiers": {
            "formula": "queue / 2",
            "target": "5",
            "activationTarget": "1",
            "metricType": "AverageValue",
        },
    },
    triggers=[
        {
            **PROMETHEUS,
            "name": "queue",
            "metricType": "AverageValue",
            "useCachedMetrics": True,
            "authenticationRef": {"name": "prom-auth"},
        }
    ],
)


def test_a_keda_manifest_is_admitted_unchanged(client: TestClient) -> None:
    created = client.post(SOS, json=FULL)
    assert created.status_code == 201, created.text
    stored = created.json()
    # Only fallback.behavior has a schema default, as in KEDA's CRD.
    expected = copy.deepcopy(FULL["spec"])
    expected["fallback"]["behavior"] = "static"
    assert stored["spec"] == expected
    assert admission_error(parse_scaled_object(stored), dry_run=True) is None
    short = client.get("/apis/keda.sh/v1alpha1/namespaces/default/scaledobjects/worker")
    assert short.status_code == 200


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"triggers": None}, "spec.triggers: Required value"),
        ({"scaleTargetRef": {"kind": "Deployment"}}, "spec.scaleTargetRef.name: Required value"),
        ({"triggers": [{"type": "cpu"}]}, "spec.triggers[0].metadata: Required value"),
        (
            {"fallback": {"failureThreshold": 3, "replicas": 1, "behavior": "always"}},
            'spec.fallback.behavior: Unsupported value: "always": supported values: "static", '
            '"currentReplicas", "currentReplicasIfHigher", "currentReplicasIfLower", '
            '"scalingModifiers"',
        ),
        ({"fallback": {"replicas": 1}}, "spec.fallback.failureThreshold: Required value"),
        (
            {"minReplicaCount": "1"},
            'spec.minReplicaCount: Invalid value: "string": spec.minReplicaCount in body must '
            'be of type integer: "string"',
        ),
    ],
    ids=[
        "triggers-required",
        "target-name-required",
        "trigger-metadata-required",
        "fallback-behavior-enum",
        "fallback-failureThreshold-required",
        "int32-fields",
    ],
)
def test_the_schema_refuses(client: TestClient, change: JSON, detail: str) -> None:
    body = scaled_object()
    for key, value in change.items():
        if value is None:
            del body["spec"][key]
        else:
            body["spec"][key] = value
    refused = client.post(SOS, json=body)
    assert refused.status_code == 422, refused.text
    causes = [f"{c['field']}: {c['message']}" for c in refused.json()["details"]["causes"]]
    assert detail in causes


def test_kubectl_get_prints_kedas_columns(client: TestClient) -> None:
    assert (
        client.post(SOS, json=scaled_object(minReplicaCount=0, maxReplicaCount=10)).status_code
        == 201
    )
    stored = client.get(f"{SOS}/worker").json()
    stored["status"] = {
        "scaleTargetKind": "apps/v1.Deployment",
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "ScaledObjectReady"},
            {"type": "Active", "status": "False", "reason": "ScalerNotActive"},
            {"type": "Fallback", "status": "False", "reason": "NoFallbackFound"},
            {"type": "Paused", "status": "False"},
        ],
        "triggersTypes": "prometheus",
        "triggersActivity": {"s0-prometheus": {"isActive": False}},
        "health": {"s0-prometheus": {"numberOfFailures": 0, "status": "Happy"}},
        "externalMetricNames": ["s0-prometheus"],
        "hpaName": "keda-hpa-worker",
    }
    updated = client.put(f"{SOS}/worker/status", json=stored)
    assert updated.status_code == 200, updated.text
    table = client.get(SOS, headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name",
        "ScaleTargetKind",
        "ScaleTargetName",
        "Min",
        "Max",
        "Ready",
        "Active",
        "Fallback",
        "Paused",
        "Triggers",
        "Authentications",
        "Age",
    ]
    assert table["rows"][0]["cells"][:10] == [
        "worker",
        "apps/v1.Deployment",
        "worker",
        0,
        10,
        "True",
        "False",
        "False",
        "False",
        "prometheus",
    ]
