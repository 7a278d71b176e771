"""The full FailedScheduling message: the filters' histogram, then DefaultPreemption's
verdict per node (not helpful where the rejection is unresolvable, no victims elsewhere,
since the simulation has no priorities), or not eligible with preemptionPolicy Never."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.runtime.simulated.fit_error import fit_error_message, preemption_message
from podscale.runtime.simulated.node_objects import node
from podscale.runtime.simulated.scheduling import NO_NODES_AVAILABLE

JSON = dict[str, Any]


def make_pod(name: str = "p", cpu: str = "1", memory: str = "1Gi", **spec: Any) -> JSON:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
            ],
            **spec,
        },
    }


def on(node_name: str, cpu: str = "1", memory: str = "1Gi", count: int = 1) -> list[JSON]:
    return [make_pod(f"{node_name}-{i}", cpu, memory, nodeName=node_name) for i in range(count)]


TAINTED = node("t") | {
    "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
}
CORDONED = node("u") | {"spec": {"unschedulable": True}}

CASES = [
    (
        "bigger-than-any-node",
        make_pod(cpu="8"),
        [node("a"), node("b")],
        {},
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available:"
        " 2 Preemption is not helpful for scheduling..",
    ),
    (
        "full-nodes",
        make_pod(cpu="2"),
        [node("a"), node("b")],
        {"a": on("a", cpu="3"), "b": on("b", cpu="3")},
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available:"
        " 2 No preemption victims found for incoming pod..",
    ),
    (
        "too-many-pods",
        make_pod(cpu="10m", memory="1Mi"),
        [node("a", pods=2)],
        {"a": on("a", cpu="10m", memory="1Mi", count=2)},
        "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available:"
        " 1 No preemption victims found for incoming pod..",
    ),
    (
        "one-resource-unresolvable",
        make_pod(cpu="2", memory="16Gi"),
        [node("a")],
        {"a": on("a", cpu="3")},
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption:"
        " 0/1 nodes are available: 1 Preemption is not helpful for scheduling..",
    ),
    (
        "mixed",
        make_pod(cpu="2"),
        [node("a"), TAINTED, CORDONED],
        {"a": on("a", cpu="3")},
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint"
        " {dedicated: gpu}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available:"
        " 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for"
        " scheduling..",
    ),
    (
        "preemption-policy-never",
        make_pod(cpu="8", preemptionPolicy="Never"),
        [node("a")],
        {},
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to"
        " preemptionPolicy=Never..",
    ),
    ("no-nodes", make_pod(), [], {}, NO_NODES_AVAILABLE),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "placed", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_fit_error_message(
    pod: JSON, nodes: list[JSON], placed: dict[str, list[JSON]], expected: str
) -> None:
    assert fit_error_message(pod, nodes, placed) == expected


def test_preemption_message_alone_has_its_own_period() -> None:
    message = preemption_message(make_pod(cpu="8"), [node("a")], {})
    assert (
        message
        == "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
