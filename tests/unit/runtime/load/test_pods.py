"""Reading pod objects into the load model: readiness, running, containers with sidecars."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.runtime.load import ContainerResources, is_pod_ready, is_running, pod_load
from podscale.runtime.simulated.resources import Resources


def make_pod(
    *,
    ready: str | None = "True",
    phase: str = "Running",
    node: str | None = "n1",
    deleting: bool = False,
) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "metadata": {"name": "web-abcde", "namespace": "shop"},
        "spec": {
            "initContainers": [
                {"name": "setup", "resources": {"requests": {"cpu": "1"}}},
                {
                    "name": "proxy",
                    "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "50m"}},
                },
            ],
            "containers": [
                {
                    "name": "app",
                    "resources": {
                        "requests": {"cpu": "200m", "memory": "64Mi"},
                        "limits": {"cpu": "500m", "memory": "128Mi"},
                    },
                }
            ],
        },
        "status": {"phase": phase},
    }
    if node:
        pod["spec"]["nodeName"] = node
    if ready is not None:
        pod["status"]["conditions"] = [{"type": "Ready", "status": ready}]
    if deleting:
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


@pytest.mark.parametrize(
    ("pod", "ready", "running"),
    [
        (make_pod(), True, True),
        (make_pod(ready="False"), False, True),
        (make_pod(ready=None), False, True),
        (make_pod(deleting=True), False, True),
        (make_pod(phase="Pending", ready="False"), False, False),
        (make_pod(node=None, phase="Pending", ready=None), False, False),
    ],
    ids=["ready", "not-ready", "no-condition", "terminating", "pending", "unscheduled"],
)
def test_readiness_and_running(pod: dict[str, Any], ready: bool, running: bool) -> None:
    assert (is_pod_ready(pod), is_running(pod)) == (ready, running)
    assert pod_load(pod).ready is ready


def test_pod_load_lists_sidecars_and_containers() -> None:
    load = pod_load(make_pod())
    assert (load.namespace, load.name, load.node) == ("shop", "web-abcde", "n1")
    assert load.containers == (
        ContainerResources("proxy", Resources(milli_cpu=50)),
        ContainerResources(
            "app",
            Resources(milli_cpu=200, memory=64 * 1024 * 1024),
            cpu_limit_milli=500,
            memory_limit=128 * 1024 * 1024,
        ),
    )


def test_default_namespace() -> None:
    pod = make_pod()
    del pod["metadata"]["namespace"]
    assert pod_load(pod).namespace == "default"
