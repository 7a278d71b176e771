"""Rows of nodes, namespaces, events, replica sets, deployments, stateful sets, other kinds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.apiserver.printing.rows import (
    print_deployment,
    print_event,
    print_generic,
    print_namespace,
    print_node,
    print_replica_set,
    print_stateful_set,
)

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
CREATED = "2026-11-20T09:00:00Z"  # Age "2d3h"


def ago(**delta: float) -> str:
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def node(
    conditions: list[dict[str, Any]] | None = None,
    *,
    labels: dict[str, str] | None = None,
    unschedulable: bool = False,
    addresses: list[dict[str, str]] | None = None,
    info: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-a", "creationTimestamp": CREATED, "labels": labels or {}},
        "spec": {"unschedulable": True} if unschedulable else {},
        "status": {
            "conditions": conditions or [],
            "addresses": addresses or [],
            "nodeInfo": info if info is not None else {"kubeletVersion": "v1.35.0"},
        },
    }


READY = {"type": "Ready", "status": "True"}
NOT_READY = {"type": "Ready", "status": "False"}
FULL_INFO = {
    "kubeletVersion": "v1.35.0",
    "osImage": "Debian GNU/Linux 12 (bookworm)",
    "kernelVersion": "6.1.0-18-amd64",
    "containerRuntimeVersion": "containerd://1.7.13",
}

NODES = [
    ("ready", node([READY]), ["node-a", "Ready", "<none>", "2d3h", "v1.35.0"]),
    (
        "not-ready",
        node([{"type": "MemoryPressure", "status": "False"}, NOT_READY]),
        ["node-a", "NotReady", "<none>", "2d3h", "v1.35.0"],
    ),
    ("no-ready-condition", node([]), ["node-a", "Unknown", "<none>", "2d3h", "v1.35.0"]),
    (
        "cordoned",
        node([READY], unschedulable=True),
        ["node-a", "Ready,SchedulingDisabled", "<none>", "2d3h", "v1.35.0"],
    ),
    (
        "last-duplicate-wins",
        node([NOT_READY, READY]),
        ["node-a", "Ready", "<none>", "2d3h", "v1.35.0"],
    ),
    (
        "roles-sorted-from-both-labels",
        node(
            [READY],
            labels={
                "node-role.kubernetes.io/worker": "",
                "kubernetes.io/role": "edge",
                "node-role.kubernetes.io/control-plane": "",
                "node-role.kubernetes.io/": "ignored",
            },
        ),
        ["node-a", "Ready", "control-plane,edge,worker", "2d3h", "v1.35.0"],
    ),
    (
        "empty-legacy-role-ignored",
        node([READY], labels={"kubernetes.io/role": ""}),
        ["node-a", "Ready", "<none>", "2d3h", "v1.35.0"],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in NODES], ids=[c[0] for c in NODES])
def test_node_main_cells(obj: dict[str, Any], expected: list[str]) -> None:
    assert print_node(obj, NOW)["cells"][:5] == expected


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (node([READY]), ["<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
        (
            node(
                [READY],
                addresses=[
                    {"type": "Hostname", "address": "node-a"},
                    {"type": "InternalIP", "address": "10.0.0.2"},
                    {"type": "InternalIP", "address": "10.0.0.3"},
                    {"type": "ExternalIP", "address": "203.0.113.9"},
                ],
                info=FULL_INFO,
            ),
            [
                "10.0.0.2",
                "203.0.113.9",
                "Debian GNU/Linux 12 (bookworm)",
                "6.1.0-18-amd64",
                "containerd://1.7.13",
            ],
        ),
    ],
    ids=["bare", "full"],
)
def test_node_wide_cells(obj: dict[str, Any], expected: list[str]) -> None:
    assert print_node(obj, NOW)["cells"][5:] == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [({"phase": "Active"}, "Active"), ({"phase": "Terminating"}, "Terminating"), ({}, "")],
    ids=["active", "terminating", "unset"],
)
def test_namespace_row(status: dict[str, Any], expected: str) -> None:
    obj = {"metadata": {"name": "team-a", "creationTimestamp": CREATED}, "status": status}
    assert print_namespace(obj, NOW) == {"cells": ["team-a", expected, "2d3h"]}


def event(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.17a", "namespace": "default"},
        "involvedObject": {"kind": "Deployment", "name": "web", "namespace": "default"},
        "type": "Normal",
        "reason": "ScalingReplicaSet",
        "message": "Scaled up replica set web-5d9 to 3\n",
        "source": {"component": "deployment-controller"},
        "firstTimestamp": ago(minutes=10),
        "lastTimestamp": ago(seconds=30),
        "count": 4,
    }
    base.update(fields)
    return {key: value for key, value in base.items() if value is not None}


# cells: Last Seen, Type, Reason, Object, Subobject, Source, Message, First Seen, Count, Name
EVENTS = [
    (
        "classic",
        event(),
        [
            "30s",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "",
            "deployment-controller",
            "Scaled up replica set web-5d9 to 3",
            "10m",
            4,
            "web.17a",
        ],
    ),
    (
        "no-last-timestamp-uses-first",
        event(lastTimestamp=None, count=1),
        [
            "10m",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "",
            "deployment-controller",
            "Scaled up replica set web-5d9 to 3",
            "10m",
            1,
            "web.17a",
        ],
    ),
    (
        "new-api-event-time-and-no-count",
        event(
            firstTimestamp=None,
            lastTimestamp=None,
            count=None,
            eventTime="2026-11-22T11:59:00.123456Z",
            source=None,
            reportingComponent="podscale-hpa",
            reportingInstance="host-1",
        ),
        [
            "59s",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "",
            "podscale-hpa, host-1",
            "Scaled up replica set web-5d9 to 3",
            "59s",
            1,
            "web.17a",
        ],
    ),
    (
        "series",
        event(series={"count": 12, "lastObservedTime": ago(seconds=5)}),
        [
            "5s",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "",
            "deployment-controller",
            "Scaled up replica set web-5d9 to 3",
            "10m",
            12,
            "web.17a",
        ],
    ),
    (
        "no-times-at-all",
        event(firstTimestamp=None, lastTimestamp=None),
        [
            "<unknown>",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "",
            "deployment-controller",
            "Scaled up replica set web-5d9 to 3",
            "<unknown>",
            4,
            "web.17a",
        ],
    ),
    (
        "pod-container-warning",
        event(
            type="Warning",
            reason="BackOff",
            message="Back-off restarting failed container",
            involvedObject={"kind": "Pod", "name": "web-1", "fieldPath": "spec.containers{app}"},
            source={"component": "kubelet", "host": "node-a"},
        ),
        [
            "30s",
            "Warning",
            "BackOff",
            "pod/web-1",
            "spec.containers{app}",
            "kubelet, node-a",
            "Back-off restarting failed container",
            "10m",
            4,
            "web.17a",
        ],
    ),
    (
        "object-without-name",
        event(involvedObject={"kind": "Node"}),
        [
            "30s",
            "Normal",
            "ScalingReplicaSet",
            "node",
            "",
            "deployment-controller",
            "Scaled up replica set web-5d9 to 3",
            "10m",
            4,
            "web.17a",
        ],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in EVENTS], ids=[c[0] for c in EVENTS])
def test_event_row(obj: dict[str, Any], expected: list[Any]) -> None:
    assert print_event(obj, NOW) == {"cells": expected}


TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {
        "containers": [
            {"name": "web", "image": "nginx:1.25"},
            {"name": "log", "image": "busybox"},
        ]
    },
}


def workload(kind: str, spec: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": CREATED},
        "spec": {"template": TEMPLATE, **spec},
        "status": status,
    }


SELECTOR = {
    "matchLabels": {"app": "web"},
    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "edge"]}],
}

REPLICA_SETS = [
    (
        "scaled",
        workload(
            "ReplicaSet",
            {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
            {"replicas": 3, "readyReplicas": 2},
        ),
        ["web", 3, 3, 2, "2d3h", "web,log", "nginx:1.25,busybox", "app=web"],
    ),
    (
        "expressions-selector",
        workload("ReplicaSet", {"replicas": 0, "selector": SELECTOR}, {"replicas": 0}),
        ["web", 0, 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", "app=web,tier in (edge,front)"],
    ),
    (
        "defaults-and-empty-selector",
        workload("ReplicaSet", {"selector": {}}, {}),
        ["web", 1, 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", "<none>"],
    ),
    (
        "invalid-selector",
        workload(
            "ReplicaSet", {"selector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}}, {}
        ),
        ["web", 1, 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", "<error>"],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [c[1:] for c in REPLICA_SETS], ids=[c[0] for c in REPLICA_SETS]
)
def test_replica_set_row(obj: dict[str, Any], expected: list[Any]) -> None:
    assert print_replica_set(obj, NOW) == {"cells": expected}


DEPLOYMENTS = [
    (
        "rolling",
        workload(
            "Deployment",
            {"replicas": 3, "selector": SELECTOR},
            {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
        ),
        [
            "web",
            "2/3",
            3,
            2,
            "2d3h",
            "web,log",
            "nginx:1.25,busybox",
            "app=web,tier in (edge,front)",
        ],
    ),
    (
        "fresh",
        workload("Deployment", {"selector": {"matchLabels": {"app": "web"}}}, {}),
        ["web", "0/1", 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", "app=web"],
    ),
    (
        "empty-selector-prints-empty",
        workload("Deployment", {"selector": {}}, {}),
        ["web", "0/1", 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", ""],
    ),
    (
        "invalid-selector",
        workload(
            "Deployment", {"selector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}}, {}
        ),
        ["web", "0/1", 0, 0, "2d3h", "web,log", "nginx:1.25,busybox", "<invalid>"],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [c[1:] for c in DEPLOYMENTS], ids=[c[0] for c in DEPLOYMENTS]
)
def test_deployment_row(obj: dict[str, Any], expected: list[Any]) -> None:
    assert print_deployment(obj, NOW) == {"cells": expected}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            workload("StatefulSet", {"replicas": 2}, {"readyReplicas": 1, "replicas": 2}),
            ["web", "1/2", "2d3h", "web,log", "nginx:1.25,busybox"],
        ),
        (workload("StatefulSet", {}, {}), ["web", "0/1", "2d3h", "web,log", "nginx:1.25,busybox"]),
    ],
    ids=["scaled", "defaults"],
)
def test_stateful_set_row(obj: dict[str, Any], expected: list[Any]) -> None:
    assert print_stateful_set(obj, NOW) == {"cells": expected}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"metadata": {"name": "x", "creationTimestamp": ago(seconds=3)}}, ["x", "3s"]),
        ({"metadata": {"name": "x"}}, ["x", "<unknown>"]),
        ({}, ["", "<unknown>"]),
    ],
    ids=["named", "no-timestamp", "empty"],
)
def test_generic_row(obj: dict[str, Any], expected: list[str]) -> None:
    assert print_generic(obj, NOW) == {"cells": expected}
