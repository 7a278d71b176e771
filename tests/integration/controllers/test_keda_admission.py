"""KEDA's validating webhook ``vscaledobject.kb.io`` on podscale's API server: a plane that
runs the ``keda-operator`` registers it (``controllers.keda.webhook``), so a ScaledObject
KEDA's webhook would refuse is refused at create and update, over HTTP and in-process alike,
with the Status kube-apiserver makes of the webhook's ``Denied`` (403 Forbidden, the message
behind ``admission webhook "vscaledobject.kb.io" denied the request: ``). Each case id names
the KEDA rule it reproduces."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.apiserver.state import ServerState
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.controllers.keda.kind import SCALED_OBJECT, definition
from podscale.controllers.keda.validation import WEBHOOK_NAME, denial
from podscale.plane.controller_sets import controllers_from_flag
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
NS: Final = "default"
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
PROMETHEUS: Final[JSON] = {
    "type": "prometheus",
    "metadata": {"serverAddress": "http://prometheus:9090", "query": "up", "threshold": "5"},
}
CPU: Final[JSON] = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}


def deployment(name: str, requests: JSON | None) -> JSON:
    container: JSON = {"name": "app", "image": "nginx:1.27"}
    if requests is not None:
        container["resources"] = {"requests": requests}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container]},
            },
        },
    }


def hpa(name: str, target: str, annotations: dict[str, str] | None = None) -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": NS, "annotations": annotations or {}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 60},
                    },
                }
            ],
        },
    }


def scaled_object(
    name: str = "worker",
    target: str = "worker",
    triggers: tuple[JSON, ...] = (PROMETHEUS,),
    annotations: dict[str, str] | None = None,
    **spec: Any,
) -> JSON:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": name, "namespace": NS, "annotations": annotations or {}},
        "spec": {
            "scaleTargetRef": {"name": target},
            "triggers": [copy.deepcopy(t) for t in triggers],
            **spec,
        },
    }


class Transport:
    """Creates and updates through one of the API's two doors; errors as (code, Status)."""

    def __init__(self, call: Callable[[str, Any, JSON, bool], JSON]) -> None:
        self._call = call

    def write(self, verb: str, kind: Any, body: JSON, dry_run: bool = False) -> JSON:
        return self._call(verb, kind, body, dry_run)

    def refused(self, verb: str, kind: Any, body: JSON, dry_run: bool = False) -> ApiError:
        with pytest.raises(ApiError) as caught:
            self.write(verb, kind, body, dry_run)
        return caught.value


def _plane(api: InProcessApi) -> EmbeddedControlPlane:
    """A plane over ``api`` running only KEDA's operator (never started: admission is the
    server's, registered when the plane is built)."""
    clock = api.state.clock
    return EmbeddedControlPlane(
        clock, api=api, simulate=False, controllers=controllers_from_flag("keda-operator")
    )


def _http() -> Transport:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    app = create_app(MemoryStore(clock), clock=clock)
    state: ServerState = app.state.podscale
    _plane(InProcessApi(state))
    client = TestClient(app, raise_server_exceptions=False)

    def call(verb: str, kind: Any, body: JSON, dry_run: bool) -> JSON:
        group = f"/apis/{kind.api_version}" if kind.group else f"/api/{kind.version}"
        scope = f"/namespaces/{NS}" if kind.namespaced else ""
        url = f"{group}{scope}/{kind.plural}"
        query = "?dryRun=All" if dry_run else ""
        if verb == "create":
            response = client.post(url + query, json=body)
        else:
            response = client.put(f"{url}/{body['metadata']['name']}{query}", json=body)
        if response.status_code >= 400:
            raise ApiError(response.status_code, response.json())
        result: JSON = response.json()
        return result

    return Transport(call)


def _in_process() -> Transport:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    _plane(api)

    def call(verb: str, kind: Any, body: JSON, dry_run: bool) -> JSON:
        namespace = NS if kind.namespaced else None
        if verb == "create":
            return asyncio.run(api.create(kind, namespace, body, dry_run=dry_run))
        return asyncio.run(api.update(kind, namespace, body, dry_run=dry_run))

    return Transport(call)


@pytest.fixture(params=[_http, _in_process], ids=["http", "in-process"])
def api(request: pytest.FixtureRequest) -> Transport:
    transport: Transport = request.param()
    transport.write("create", CRD, definition())
    transport.write("create", DEPLOYMENT, deployment("worker", {"cpu": "100m"}))
    transport.write("create", DEPLOYMENT, deployment("bare", None))
    return transport


@dataclass(frozen=True)
class Case:
    body: JSON
    message: str | None  # KEDA's message; None: admitted
    before: tuple[tuple[Any, JSON], ...] = ()
    dry_run: bool = False


OTHER_SO: Final = (SCALED_OBJECT, scaled_object(name="first"))
CASES: Final = {
    "min-above-max": Case(
        scaled_object(minReplicaCount=5, maxReplicaCount=2),
        "MinReplicaCount=5 must be less than MaxReplicaCount=2",
    ),
    "idle-not-below-min": Case(
        scaled_object(idleReplicaCount=2, minReplicaCount=2),
        "IdleReplicaCount=2 must be less than MinReplicaCount=2",
    ),
    "cpu-only-cannot-scale-to-zero": Case(
        scaled_object(triggers=(CPU,), minReplicaCount=0),
        "scaledobject has only cpu/memory triggers AND minReplica is 0 "
        "(scale to zero doesn't work in this case)",
    ),
    "cpu-only-with-min-1": Case(scaled_object(triggers=(CPU,), minReplicaCount=1), None),
    "cpu-needs-the-container-request": Case(
        scaled_object(target="bare", triggers=(CPU,), minReplicaCount=1),
        "the scaledobject has a cpu trigger but the container app doesn't have the cpu "
        "request defined",
    ),
    "cpu-checks-skipped-on-dry-run": Case(
        scaled_object(target="bare", triggers=(CPU,), minReplicaCount=0), None, dry_run=True
    ),
    "second-scaledobject-on-the-target": Case(
        scaled_object(),
        "the workload 'worker' of type 'apps/v1.Deployment' is already managed by the "
        "ScaledObject 'first'",
        before=(OTHER_SO,),
    ),
    "second-scaledobject-refused-on-dry-run-too": Case(
        scaled_object(),
        "the workload 'worker' of type 'apps/v1.Deployment' is already managed by the "
        "ScaledObject 'first'",
        before=(OTHER_SO,),
        dry_run=True,
    ),
    "existing-hpa-on-the-target": Case(
        scaled_object(),
        "the workload 'worker' of type 'apps/v1.Deployment' is already managed by the hpa 'worker'",
        before=((HPA, hpa("worker", "worker")),),
    ),
    "existing-hpa-transferred-by-name": Case(
        scaled_object(
            annotations={"scaledobject.keda.sh/transfer-hpa-ownership": "true"},
            advanced={"horizontalPodAutoscalerConfig": {"name": "worker"}},
        ),
        None,
        before=((HPA, hpa("worker", "worker")),),
    ),
    "hpa-ownership-validation-off-on-the-hpa": Case(
        scaled_object(),
        None,
        before=((HPA, hpa("worker", "worker", {"validations.keda.sh/hpa-ownership": "false"})),),
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_keda_admission_on_create(api: Transport, case: Case) -> None:
    for kind, body in case.before:
        api.write("create", kind, body)
    if case.message is None:
        created = api.write("create", SCALED_OBJECT, case.body, dry_run=case.dry_run)
        assert created["metadata"]["name"] == case.body["metadata"]["name"]
        return
    refused = api.refused("create", SCALED_OBJECT, case.body, dry_run=case.dry_run)
    assert refused.status == 403
    assert refused.body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": denial(case.message),
        "reason": "Forbidden",
        "code": 403,
    }


def test_a_missing_target_behind_a_cpu_trigger_is_the_apis_not_found(api: Transport) -> None:
    refused = api.refused("create", SCALED_OBJECT, scaled_object(target="gone", triggers=(CPU,)))
    assert (refused.status, refused.reason) == (404, "NotFound")
    assert refused.body["message"] == denial('deployments.apps "gone" not found')
    assert refused.body["details"] == {"name": "gone", "group": "apps", "kind": "deployments"}
    # Without a cpu/memory trigger KEDA's webhook never reads the target.
    assert api.write("create", SCALED_OBJECT, scaled_object(target="gone"))


def test_updates_are_checked_and_finalizer_removal_is_not(api: Transport) -> None:
    body = scaled_object()
    body["metadata"]["finalizers"] = ["finalizer.keda.sh"]
    stored = api.write("create", SCALED_OBJECT, body)
    bad = copy.deepcopy(stored)
    bad["spec"]["minReplicaCount"] = 5
    bad["spec"]["maxReplicaCount"] = 2
    refused = api.refused("update", SCALED_OBJECT, bad)
    assert (refused.status, refused.body["message"]) == (
        403,
        denial("MinReplicaCount=5 must be less than MaxReplicaCount=2"),
    )
    # An HPA appears on the target after the ScaledObject: KEDA's webhook refuses the
    # ScaledObject's next update, but lets its finalizer go (the spec unchanged).
    api.write("create", HPA, hpa("later", "worker"))
    relabelled = copy.deepcopy(stored)
    relabelled["metadata"]["labels"] = {"team": "a"}
    assert (
        "is already managed by the hpa 'later'"
        in api.refused("update", SCALED_OBJECT, relabelled).body["message"]
    )
    released = copy.deepcopy(stored)
    released["metadata"]["finalizers"] = []
    assert not api.write("update", SCALED_OBJECT, released)["metadata"].get("finalizers")


def test_the_hook_comes_with_the_operator_only() -> None:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    without = InProcessApi.for_store(MemoryStore(clock), clock)
    EmbeddedControlPlane(
        clock, api=without, simulate=False, controllers=controllers_from_flag("replicaset")
    )
    assert without.state.admission_hooks.for_kind("keda.sh", "ScaledObject") == ()
    with_keda = InProcessApi.for_store(MemoryStore(clock), clock)
    _plane(with_keda)
    (hook,) = with_keda.state.admission_hooks.for_kind("keda.sh", "ScaledObject")
    assert (hook.name, hook.failure_policy) == (WEBHOOK_NAME, "Ignore")
