"""A KEDA ScaledObject through the whole stack on virtual time: 0 -> N -> 0, pause, delete.

KEDA splits the work in two (``controllers.keda.scale_loop``): its scale loop, every
``pollingInterval``, takes the target between 0 and 1 (activation when a trigger's value
passes its activation threshold, deactivation once ``cooldownPeriod`` has passed since the
trigger was last active), and the HPA it generates (``keda-hpa-<name>``) scales between 1
and ``maxReplicaCount`` on the trigger's external metric, served by KEDA's metrics server
(``controllers.keda.adapter``) through the plane's external metrics. The trigger here is
podscale's ``podscale-push`` (a queue length pushed into the plane's external metrics, as
``e2e_b_plane.E2E.set_external`` does), so the test controls the value over time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest

from podscale.client.http import ApiError
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.scenario.loader import parse_scenario

from .e2e_b_manifests import JSON, NAMESPACE, cpu_load, deployment
from .e2e_b_plane import E2E, HPA, run_e2e

SO: Final = SCALED_OBJECT
METRIC: Final = "queue_messages_ready"
POLL: Final = 5
COOLDOWN: Final = 30
BUSY_AT, DRAINED_AT, PAUSED_AT, RESUMED_AT, DELETED_AT, END = 120, 300, 420, 480, 560, 600


def scaled_object(annotations: dict[str, str] | None = None) -> JSON:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "worker", "namespace": NAMESPACE, "annotations": annotations or {}},
        "spec": {
            "scaleTargetRef": {"name": "worker"},
            "pollingInterval": POLL,
            "cooldownPeriod": COOLDOWN,
            "maxReplicaCount": 10,
            "advanced": {
                "restoreToOriginalReplicaCount": True,
                "horizontalPodAutoscalerConfig": {
                    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0}}
                },
            },
            "triggers": [
                {
                    "type": "podscale-push",
                    "metadata": {"metricName": METRIC, "value": "5", "activationValue": "0"},
                }
            ],
        },
    }


# A trigger whose metadata KEDA's scaler refuses: KEDA's webhook does not read trigger
# metadata, so it is stored, and the reconcile reports it without scaling anything.
BROKEN: Final[JSON] = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "reporter", "namespace": NAMESPACE},
    "spec": {
        "scaleTargetRef": {"name": "reporter"},
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {"serverAddress": "http://prometheus:9090", "threshold": "5"},
            }
        ],
    },
}


def _scenario() -> object:
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": "keda-queue-worker"},
            "spec": {
                "seed": 7,
                "duration": "1h",
                "crds": ["scaledobjects.keda.sh"],
                "nodes": {"count": 3, "capacity": {"cpu": "4", "memory": "8Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": "3s"},
                "manifests": [
                    deployment("worker", 1),
                    scaled_object(),
                    deployment("reporter", 2),
                    BROKEN,
                ],
                "workloads": [cpu_load("worker", 0), cpu_load("reporter", 0)],
            },
        }
    )


@dataclass(frozen=True)
class KedaRun:
    e2e: E2E
    ready: JSON
    broken: JSON
    broken_hpa: bool
    busy_status: JSON
    hpa: JSON
    paused: JSON
    paused_hpa_gone: bool
    resumed: JSON
    resumed_hpa: JSON
    after_delete: int


async def _get_so(e2e: E2E) -> JSON:
    return await e2e.api.get(SO, NAMESPACE, "worker")


async def _hpa_exists(e2e: E2E, name: str) -> bool:
    try:
        await e2e.api.get(HPA, NAMESPACE, name)
    except ApiError as err:
        if err.status != 404:
            raise
        return False
    return True


async def _annotate(e2e: E2E, annotations: dict[str, str | None]) -> None:
    await e2e.api.patch(
        SO,
        NAMESPACE,
        "worker",
        {"metadata": {"annotations": annotations}},
        content_type="application/merge-patch+json",
    )


@pytest.fixture(scope="module")
def keda_run() -> KedaRun:
    async def body(e2e: E2E) -> KedaRun:
        e2e.set_external(METRIC, "0")
        await e2e.advance(60)
        ready = await _get_so(e2e)
        broken = await e2e.api.get(SO, NAMESPACE, "reporter")
        broken_hpa = await _hpa_exists(e2e, "keda-hpa-reporter")
        await e2e.advance(BUSY_AT - 1)
        e2e.set_external(METRIC, "25")
        await e2e.advance(DRAINED_AT - 1)
        busy_status = (await _get_so(e2e))["status"]
        hpa = await e2e.hpa("keda-hpa-worker")
        e2e.set_external(METRIC, "0")
        await e2e.advance(PAUSED_AT)
        await _annotate(e2e, {"autoscaling.keda.sh/paused-replicas": "2"})
        await e2e.advance(RESUMED_AT - 1)
        paused = await _get_so(e2e)
        paused_hpa_gone = not await _hpa_exists(e2e, "keda-hpa-worker")
        await _annotate(e2e, {"autoscaling.keda.sh/paused-replicas": None})
        await e2e.advance(DELETED_AT - 1)
        resumed = await _get_so(e2e)
        resumed_hpa = await e2e.hpa("keda-hpa-worker")
        await e2e.api.delete(SO, NAMESPACE, "worker")
        await e2e.advance(END)
        return KedaRun(
            e2e,
            ready,
            broken,
            broken_hpa,
            busy_status,
            hpa,
            paused,
            paused_hpa_gone,
            resumed,
            resumed_hpa,
            await e2e.replicas("worker"),
        )

    return run_e2e(_scenario(), body)  # type: ignore[arg-type]


def _conditions(obj: JSON) -> dict[str, tuple[str, str]]:
    return {
        c["type"]: (c["status"], c.get("reason", ""))
        for c in (obj.get("status") or {}).get("conditions") or ()
    }


def test_idle_target_goes_to_zero_at_the_first_poll(keda_run: KedaRun) -> None:
    e2e = keda_run.e2e
    zero = e2e.first_time("worker", 0)
    assert zero is not None
    assert zero <= POLL + 5
    assert set(e2e.replicas_seen("worker", zero, BUSY_AT)) == {0}


def test_ready_status_names_the_hpa_and_the_metric(keda_run: KedaRun) -> None:
    obj = keda_run.ready
    assert obj["metadata"]["labels"]["scaledobject.keda.sh/name"] == "worker"
    assert "finalizer.keda.sh" in obj["metadata"]["finalizers"]
    status = obj["status"]
    assert status["hpaName"] == "keda-hpa-worker"
    assert status["originalReplicaCount"] == 1
    assert status["scaleTargetKind"] == "apps/v1.Deployment"
    assert status["externalMetricNames"] == [f"s0-{METRIC}"]
    assert _conditions(obj)["Ready"] == ("True", "ScaledObjectReady")
    assert _conditions(obj)["Active"][0] == "False"


def test_activation_then_the_hpa_scales_out(keda_run: KedaRun) -> None:
    e2e = keda_run.e2e
    one = e2e.first_time("worker", 1, after=BUSY_AT)
    assert one is not None
    assert one - BUSY_AT <= POLL + 5
    five = e2e.first_time("worker", 5, after=BUSY_AT)
    assert five is not None
    assert five - BUSY_AT <= 60
    assert max(e2e.replicas_seen("worker", BUSY_AT, DRAINED_AT)) == 5  # 25 / 5 per pod
    assert _conditions({"status": keda_run.busy_status})["Active"][0] == "True"
    assert keda_run.busy_status.get("lastActiveTime")


def test_the_generated_hpa_is_keda_s(keda_run: KedaRun) -> None:
    hpa = keda_run.hpa
    owner = hpa["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("ScaledObject", "worker", True)
    spec = hpa["spec"]
    assert (spec["minReplicas"], spec["maxReplicas"]) == (1, 10)
    metric = spec["metrics"][0]
    assert metric["type"] == "External"
    assert metric["external"]["metric"]["name"] == f"s0-{METRIC}"
    assert metric["external"]["metric"]["selector"] == {
        "matchLabels": {"scaledobject.keda.sh/name": "worker"}
    }


def test_back_to_zero_after_the_cooldown(keda_run: KedaRun) -> None:
    e2e = keda_run.e2e
    zero = e2e.first_time("worker", 0, after=DRAINED_AT)
    assert zero is not None
    assert COOLDOWN <= zero - DRAINED_AT <= COOLDOWN + 2 * POLL + 5
    assert 0 not in e2e.replicas_seen("worker", DRAINED_AT, DRAINED_AT + COOLDOWN - POLL)


def test_paused_replicas_pin_the_target_and_drop_the_hpa(keda_run: KedaRun) -> None:
    e2e = keda_run.e2e
    assert set(e2e.replicas_seen("worker", PAUSED_AT + 10, RESUMED_AT - 1)) == {2}
    assert keda_run.paused_hpa_gone
    assert _conditions(keda_run.paused)["Paused"][0] == "True"
    assert keda_run.paused["status"]["pausedReplicaCount"] == 2


def test_unpausing_restores_the_loop_and_the_hpa(keda_run: KedaRun) -> None:
    assert _conditions(keda_run.resumed)["Paused"] == ("False", "ScaledObjectUnpaused")
    assert "pausedReplicaCount" not in keda_run.resumed["status"]
    assert keda_run.resumed_hpa["metadata"]["name"] == "keda-hpa-worker"
    e2e = keda_run.e2e
    assert 0 in e2e.replicas_seen("worker", RESUMED_AT, DELETED_AT)  # idle again: to zero


def test_deletion_restores_the_original_replicas(keda_run: KedaRun) -> None:
    assert keda_run.after_delete == 1


def test_keda_s_events_are_recorded(keda_run: KedaRun) -> None:
    seen = {
        (e.reason, e.message)
        for s in keda_run.e2e.snapshots
        for e in s.events
        if e.kind == "ScaledObject" and e.name == "worker"
    }
    target = "apps/v1.Deployment default/worker"
    assert ("ScaledObjectReady", "ScaledObject is ready for scaling") in seen
    assert ("KEDAScaleTargetDeactivated", f"Deactivated {target} from 1 to 0") in seen
    assert (
        "KEDAScaleTargetActivated",
        f"Scaled {target} from 0 to 1, triggered by s0-{METRIC}",
    ) in seen


def test_bad_trigger_metadata_is_ready_false_and_scales_nothing(keda_run: KedaRun) -> None:
    obj = keda_run.broken
    ready = next(c for c in obj["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ScaledObjectCheckFailed")
    assert ready["message"] == (
        "failed to ensure HPA is correctly created for ScaledObject: error parsing prometheus "
        'metadata: error parsing prometheus metadata: missing required parameter "query" in '
        "[triggerMetadata]"
    )
    assert _conditions(obj)["Active"] == ("Unknown", "UnknownState")
    assert not keda_run.broken_hpa
    assert set(keda_run.e2e.replicas_seen("reporter", 0, END)) == {2}
