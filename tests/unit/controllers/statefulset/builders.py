"""Builders for StatefulSet unit tests: sets and pods as plain JSON dicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.controllers.statefulset.identity import new_stateful_pod
from podscale.controllers.statefulset.revision import revision_name
from podscale.hpa.conditions import format_time

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
JSON = dict[str, Any]


def make_sts(
    replicas: int = 3,
    *,
    policy: str = "OrderedReady",
    image: str = "nginx",
    **spec_extra: Any,
) -> JSON:
    spec: JSON = {
        "replicas": replicas,
        "serviceName": "nginx",
        "podManagementPolicy": policy,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": image}]},
        },
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
    }
    spec.update(spec_extra)
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default", "uid": "sts-uid", "generation": 2},
        "spec": spec,
    }


def make_pod(
    sts: JSON,
    ordinal: int,
    *,
    phase: str = "Running",
    ready: bool = True,
    ready_for: timedelta = timedelta(minutes=5),
    terminating: bool = False,
    revision: str | None = None,
) -> JSON:
    """A pod of ``sts`` as the API server would hold it (with a uid and a phase)."""
    pod = new_stateful_pod(sts, ordinal, revision or revision_name(sts))
    pod["metadata"]["uid"] = f"pod-{ordinal}"
    if terminating:
        pod["metadata"]["deletionTimestamp"] = format_time(NOW)
    condition = {
        "type": "Ready",
        "status": "True" if ready else "False",
        "lastTransitionTime": format_time(NOW - ready_for),
    }
    pod["status"] = {"phase": phase, "conditions": [condition]}
    return pod
