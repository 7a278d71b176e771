"""The WorkloadDefault pod sorter (``controllers.kapacity.pod_sorter``): a StatefulSet's
highest ordinal first; a Deployment's pods in upstream's ReplicaSet deletion order; any other
kind is Kapacity's unknown-workload error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.controllers.kapacity.pod_sorter import (
    UnknownWorkload,
    Workload,
    sort_pods,
    workload_of,
)

NOW = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


def pod(
    name: str,
    *,
    node: str = "n1",
    ready: bool = True,
    cost: str | None = None,
    created: str = "2026-05-04T07:00:00Z",
) -> dict[str, Any]:
    annotations = {} if cost is None else {"controller.kubernetes.io/pod-deletion-cost": cost}
    return {
        "metadata": {"name": name, "annotations": annotations, "creationTimestamp": created},
        "spec": {"nodeName": node},
        "status": {
            "phase": "Running",
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "lastTransitionTime": "2026-05-04T07:00:05Z",
                }
            ],
        },
    }


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("apps/v1", "Deployment", Workload.DEPLOYMENT),
        ("apps/v1", "StatefulSet", Workload.STATEFUL_SET),
        ("apps/v1beta2", "StatefulSet", Workload.STATEFUL_SET),
    ],
    ids=["deployment", "statefulset", "any-apps-version"],
)
def test_workload_of_known_kinds(api_version: str, kind: str, expected: Workload) -> None:
    assert workload_of(api_version, kind) is expected


@pytest.mark.parametrize(
    ("api_version", "kind", "message"),
    [
        ("apps/v1", "ReplicaSet", 'unknown workload with gvk "apps/v1, Kind=ReplicaSet"'),
        (
            "v1",
            "ReplicationController",
            'unknown workload with gvk "/v1, Kind=ReplicationController"',
        ),
        (
            "example.com/v1",
            "Deployment",
            'unknown workload with gvk "example.com/v1, Kind=Deployment"',
        ),
    ],
    ids=["replicaset-not-a-kapacity-workload", "core-group", "deployment-of-another-group"],
)
def test_workload_of_unknown_kinds(api_version: str, kind: str, message: str) -> None:
    with pytest.raises(UnknownWorkload) as caught:
        workload_of(api_version, kind)
    assert str(caught.value) == message


def test_statefulset_highest_ordinal_first() -> None:
    pods = [pod("db-2"), pod("db-10"), pod("db-0"), pod("db-1")]
    assert sort_pods(Workload.STATEFUL_SET, pods, pods, NOW) == ["db-10", "db-2", "db-1", "db-0"]


def test_statefulset_name_without_ordinal_reads_zero() -> None:
    pods = [pod("db"), pod("db-1"), pod("db-x")]
    assert sort_pods(Workload.STATEFUL_SET, pods, pods, NOW) == ["db-1", "db", "db-x"]


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        ([pod("a"), pod("b", ready=False)], ["b", "a"]),
        ([pod("a", cost="10"), pod("b", cost="-5")], ["b", "a"]),
        ([pod("a", node="n1"), pod("b", node="n2"), pod("c", node="n2")], ["b", "c", "a"]),
        (
            [
                pod("old", created="2026-05-04T06:00:00Z"),
                pod("new", created="2026-05-04T07:59:00Z"),
            ],
            ["new", "old"],
        ),
    ],
    ids=["unready-first", "lower-deletion-cost-first", "crowded-node-first", "newer-first"],
)
def test_deployment_uses_the_replicaset_deletion_order(
    pods: list[dict[str, Any]], expected: list[str]
) -> None:
    assert sort_pods(Workload.DEPLOYMENT, pods, pods, NOW) == expected


def test_deployment_ranks_co_location_over_every_related_pod() -> None:
    # Both candidates alone on their nodes, but n2 also runs two other pods of the workload.
    candidates = [pod("a", node="n1"), pod("b", node="n2")]
    related = [*candidates, pod("x", node="n2"), pod("y", node="n2")]
    assert sort_pods(Workload.DEPLOYMENT, candidates, related, NOW) == ["b", "a"]
