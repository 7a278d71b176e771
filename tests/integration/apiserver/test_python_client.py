"""The official ``kubernetes`` Python client against a real uvicorn server on 127.0.0.1:0.

Exercises what kubectl-wire.md §8 records about that client: bodies without Content-Type,
strategic merge patch on /scale, typed (strict) deserialisation of every kind, v1 and v2 HPA
clients over one storage, 409 on a stale Scale, DeleteOptions bodies, and watch resumption
from a resourceVersion with timeout_seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.rest import ApiException

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
NS = "default"


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    clock = SystemClock()
    store = MemoryStore(clock)
    # create_app makes the system namespaces (as kube-apiserver at start), so the revision
    # a client sees is never 0, which a watch would read as "any" rather than as a point
    # to resume from.
    running = start_in_thread(create_app(store, clock=clock))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def api_client(server: RunningServer) -> Iterator[k8s.ApiClient]:
    configuration = k8s.Configuration()
    configuration.host = server.url
    with k8s.ApiClient(configuration) as api:
        yield api


def _workload(kind: str, name: str, replicas: int = 2) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }


def test_binds_loopback_and_reports_the_port(server: RunningServer) -> None:
    assert server.host == "127.0.0.1"
    assert server.port > 0
    assert server.url == f"http://127.0.0.1:{server.port}"


def test_replica_set_lifecycle(api_client: k8s.ApiClient) -> None:
    apps = k8s.AppsV1Api(api_client)
    created = apps.create_namespaced_replica_set(NS, _workload("ReplicaSet", "rs1"))
    assert created.metadata.namespace == NS
    assert created.status.replicas == 0
    listed = apps.list_namespaced_replica_set(NS)
    assert [i.metadata.name for i in listed.items] == ["rs1"]
    current = apps.read_namespaced_replica_set("rs1", NS)
    current.spec.replicas = 4
    replaced = apps.replace_namespaced_replica_set("rs1", NS, current)
    assert replaced.spec.replicas == 4
    patched = apps.patch_namespaced_replica_set("rs1", NS, {"metadata": {"labels": {"tier": "x"}}})
    assert patched.metadata.labels == {"app": "rs1", "tier": "x"}
    scale = apps.patch_namespaced_replica_set_scale("rs1", NS, {"spec": {"replicas": 3}})
    assert (scale.spec.replicas, scale.status.selector) == (3, "app=rs1")
    assert apps.read_namespaced_replica_set("rs1", NS).spec.replicas == 3
    stale = apps.read_namespaced_replica_set_scale("rs1", NS)
    apps.patch_namespaced_replica_set_scale("rs1", NS, {"spec": {"replicas": 1}})
    stale.spec.replicas = 5
    with pytest.raises(ApiException) as conflict:
        apps.replace_namespaced_replica_set_scale("rs1", NS, stale)
    assert conflict.value.status == 409
    result = apps.delete_namespaced_replica_set(
        "rs1", NS, body=k8s.V1DeleteOptions(propagation_policy="Foreground")
    )
    assert result["metadata"]["finalizers"] == ["foregroundDeletion"]
    with pytest.raises(ApiException) as missing:
        apps.read_namespaced_replica_set("nosuch", NS)
    assert missing.value.status == 404
    assert '"reason":"NotFound"' in missing.value.body


def test_deployment_scale_and_delete(api_client: k8s.ApiClient) -> None:
    apps = k8s.AppsV1Api(api_client)
    apps.create_namespaced_deployment(NS, _workload("Deployment", "d1"))
    apps.patch_namespaced_deployment_scale("d1", NS, {"spec": {"replicas": 6}})
    assert apps.read_namespaced_deployment("d1", NS).spec.replicas == 6
    assert [d.metadata.name for d in apps.list_deployment_for_all_namespaces().items] == ["d1"]
    status = apps.delete_namespaced_deployment("d1", NS)
    assert status["status"] == "Success"


def test_stateful_set_round_trip(api_client: k8s.ApiClient) -> None:
    apps = k8s.AppsV1Api(api_client)
    created = apps.create_namespaced_stateful_set(NS, _workload("StatefulSet", "s1"))
    assert created.status.replicas == 0
    apps.patch_namespaced_stateful_set_scale("s1", NS, {"spec": {"replicas": 3}})
    assert [s.spec.replicas for s in apps.list_namespaced_stateful_set(NS).items] == [3]


def test_hpa_v1_and_v2_share_storage(api_client: k8s.ApiClient) -> None:
    v1 = k8s.AutoscalingV1Api(api_client)
    v2 = k8s.AutoscalingV2Api(api_client)
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h1"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"},
            "minReplicas": 2,
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 80,
        },
    }
    created = v1.create_namespaced_horizontal_pod_autoscaler(NS, body)
    assert (created.status.current_replicas, created.status.desired_replicas) == (0, 0)
    as_v2 = v2.read_namespaced_horizontal_pod_autoscaler("h1", NS)
    assert as_v2.spec.metrics[0].resource.target.average_utilization == 80
    as_v2.spec.max_replicas = 7
    v2.replace_namespaced_horizontal_pod_autoscaler("h1", NS, as_v2)
    assert v1.read_namespaced_horizontal_pod_autoscaler("h1", NS).spec.max_replicas == 7
    v2.patch_namespaced_horizontal_pod_autoscaler_status(
        "h1", NS, {"status": {"currentReplicas": 2, "desiredReplicas": 3}}
    )
    assert v1.list_namespaced_horizontal_pod_autoscaler(NS).items[0].status.desired_replicas == 3
    assert len(v2.list_horizontal_pod_autoscaler_for_all_namespaces().items) == 1
    v2.delete_namespaced_horizontal_pod_autoscaler("h1", NS)
    assert v1.list_namespaced_horizontal_pod_autoscaler(NS).items == []


def test_core_kinds_deserialize_strictly(api_client: k8s.ApiClient) -> None:
    core = k8s.CoreV1Api(api_client)
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p1", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    core.create_namespaced_pod("team", pod)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "p1.1"},
        "involvedObject": {"kind": "Pod", "name": "p1", "namespace": "team"},
        "reason": "Started",
        "message": "started",
        "type": "Normal",
        "source": {"component": "kubelet"},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }
    core.create_namespaced_event("team", event)
    namespaces = [n.metadata.name for n in core.list_namespace().items]
    assert set(namespaces) >= {"team", *SYSTEM_NAMESPACES}
    assert namespaces == sorted(namespaces)
    assert [n.metadata.name for n in core.list_node().items] == ["n1"]
    assert [p.metadata.name for p in core.list_pod_for_all_namespaces().items] == ["p1"]
    selected = core.list_namespaced_event(
        "team", field_selector="involvedObject.name=p1,involvedObject.kind=Pod"
    )
    assert [e.reason for e in selected.items] == ["Started"]
    assert core.list_namespaced_event("team", field_selector="involvedObject.name=x").items == []


def test_an_empty_list_carries_the_current_revision(api_client: k8s.ApiClient) -> None:
    apps = k8s.AppsV1Api(api_client)
    listed = apps.list_namespaced_replica_set("nothing-here")
    assert listed.items == []
    assert int(listed.metadata.resource_version) > 0


def test_watch_resumes_from_resource_version(api_client: k8s.ApiClient) -> None:
    core, apps = k8s.CoreV1Api(api_client), k8s.AppsV1Api(api_client)
    core.create_namespace({"metadata": {"name": "watched"}})
    since = apps.list_namespaced_replica_set("watched").metadata.resource_version
    apps.create_namespaced_replica_set("watched", _workload("ReplicaSet", "w1"))
    apps.patch_namespaced_replica_set_scale("w1", "watched", {"spec": {"replicas": 4}})
    apps.delete_namespaced_replica_set("w1", "watched")
    stream = k8s_watch.Watch().stream(
        apps.list_namespaced_replica_set,
        "watched",
        resource_version=since,
        timeout_seconds=1,
    )
    events = [(e["type"], e["object"].spec.replicas) for e in stream]
    assert events == [("ADDED", 2), ("MODIFIED", 4), ("DELETED", 4)]


def test_list_at_an_exact_resource_version(api_client: k8s.ApiClient) -> None:
    core, apps = k8s.CoreV1Api(api_client), k8s.AppsV1Api(api_client)
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "exact"}})
    created = apps.create_namespaced_replica_set("exact", _workload("ReplicaSet", "e1"))
    apps.patch_namespaced_replica_set_scale("e1", "exact", {"spec": {"replicas": 4}})
    then = created.metadata.resource_version
    listed = apps.list_namespaced_replica_set(
        "exact", resource_version=then, resource_version_match="Exact"
    )
    assert listed.metadata.resource_version == then
    assert [(i.metadata.name, i.spec.replicas) for i in listed.items] == [("e1", 2)]
    with pytest.raises(ApiException) as caught:
        apps.list_namespaced_replica_set("exact", resource_version_match="Exact")
    assert caught.value.status == 422


def test_server_side_apply_patch(api_client: k8s.ApiClient) -> None:
    """The client's apply-style patch: create by apply, then a conflicting apply (409) and
    a forced one; managedFields come back as the client's model objects."""
    apps = k8s.AppsV1Api(api_client)
    body = {**_workload("Deployment", "ssa"), "apiVersion": "apps/v1", "kind": "Deployment"}
    apply_type = "application/apply-patch+yaml"
    try:
        created = apps.patch_namespaced_deployment(
            "ssa", NS, body, field_manager="gitops", _content_type=apply_type
        )
        (entry,) = created.metadata.managed_fields
        assert (entry.manager, entry.operation, entry.api_version) == (
            "gitops",
            "Apply",
            "apps/v1",
        )
        other = {**body, "spec": {**body["spec"], "replicas": 5}}
        with pytest.raises(k8s.ApiException) as conflict:
            apps.patch_namespaced_deployment(
                "ssa", NS, other, field_manager="ops", _content_type=apply_type
            )
        assert conflict.value.status == 409
        forced = apps.patch_namespaced_deployment(
            "ssa", NS, other, field_manager="ops", force=True, _content_type=apply_type
        )
        assert forced.spec.replicas == 5
        assert {e.manager for e in forced.metadata.managed_fields} == {"gitops", "ops"}
    finally:
        # The module's server is shared: other tests list every Deployment.
        apps.delete_namespaced_deployment("ssa", NS)
