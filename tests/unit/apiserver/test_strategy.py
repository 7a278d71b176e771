"""Upstream strategy rules: status reset on create, Pod QoS class, server-owned metadata."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.registry.pod_qos import pod_qos_class
from podscale.apiserver.registry.strategy import (
    keep_equal_timestamps,
    prepare_for_create,
    prepare_for_update,
)

JSON = dict[str, Any]


def _spec(*resources: JSON) -> JSON:
    return {"containers": [{"name": f"c{i}", "resources": r} for i, r in enumerate(resources)]}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (_spec({}), "BestEffort"),
        (_spec({"requests": {"cpu": "0"}}), "BestEffort"),
        (_spec({"requests": {"cpu": "100m"}}), "Burstable"),
        (
            _spec(
                {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}
            ),
            "Guaranteed",
        ),
        (
            _spec(
                {
                    "limits": {"cpu": "1", "memory": "1Gi"},
                    "requests": {"cpu": "1000m", "memory": "1024Mi"},
                }
            ),
            "Guaranteed",
        ),
        (
            _spec(
                {
                    "limits": {"cpu": "1", "memory": "1Gi"},
                    "requests": {"cpu": "500m", "memory": "1Gi"},
                }
            ),
            "Burstable",
        ),
        (_spec({"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}), "Burstable"),
        (
            _spec(
                {
                    "limits": {"cpu": "1", "memory": "1Gi"},
                    "requests": {"cpu": "1", "memory": "1Gi"},
                },
                {},
            ),
            "Burstable",
        ),
        (None, "BestEffort"),
    ],
    ids=[
        "nothing",
        "zero-request",
        "request-only",
        "equal",
        "equal-other-units",
        "request-below-limit",
        "cpu-only",
        "one-container-best-effort",
        "no-spec",
    ],
)
def test_pod_qos_class(spec: Any, expected: str) -> None:
    assert pod_qos_class(spec) == expected


def test_create_resets_status_and_server_metadata() -> None:
    rs: JSON = {
        "kind": "ReplicaSet",
        "metadata": {"name": "a", "uid": "u", "generation": 7, "creationTimestamp": "x"},
        "status": {"replicas": 3},
    }
    prepare_for_create(rs)
    assert rs == {"kind": "ReplicaSet", "metadata": {"name": "a", "generation": 1}}
    pod: JSON = {"kind": "Pod", "metadata": {}, "spec": _spec({}), "status": {"phase": "Running"}}
    prepare_for_create(pod)
    assert pod["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    event: JSON = {"kind": "Event", "metadata": {}, "status": "kept"}
    prepare_for_create(event)
    assert event["status"] == "kept"


def test_update_keeps_status_generation_and_namespace_finalizers() -> None:
    old: JSON = {
        "kind": "Namespace",
        "metadata": {"generation": 2},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    new: JSON = {
        "kind": "Namespace",
        "metadata": {"generation": 9},
        "spec": {"finalizers": []},
        "status": {},
    }
    prepare_for_update(new, old)
    assert new == old


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        ("2026-01-02T03:04:05+00:00", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:06Z", "2026-01-02T03:04:06Z"),
        ("garbage", "garbage"),
    ],
    ids=["same-instant", "different-instant", "unparseable"],
)
def test_keep_equal_timestamps(new: str, expected: str) -> None:
    metadata = {"creationTimestamp": new}
    keep_equal_timestamps(metadata, {"creationTimestamp": "2026-01-02T03:04:05Z"})
    assert metadata["creationTimestamp"] == expected
