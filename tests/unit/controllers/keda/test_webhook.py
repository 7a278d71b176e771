"""``controllers.keda.webhook.validate`` over a dict-backed store view: what KEDA's webhook
reads besides the objects podscale serves (LimitRange defaults for the cpu/memory check),
its finalizer-removal skip, and objects it cannot read (left to the operator)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.registry.admission_hooks import AdmissionRequest, Denial
from podscale.controllers.keda.webhook import scaled_object_hook, validate

JSON = dict[str, Any]
NO_REQUEST = Denial(
    "the scaledobject has a cpu trigger but the container app doesn't have the cpu request defined"
)


class Stored:
    """A ``StoreReader`` over ``{resource: [objects]}`` of one namespace."""

    def __init__(self, objects: dict[str, list[JSON]]) -> None:
        self.objects = objects

    def get(self, resource: str, namespace: str, name: str) -> JSON | None:
        found = [o for o in self.objects.get(resource, []) if o["metadata"]["name"] == name]
        return found[0] if found else None

    def list(self, resource: str, namespace: str) -> list[JSON]:
        return list(self.objects.get(resource, []))


BARE: JSON = {
    "metadata": {"name": "bare", "namespace": "default"},
    "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}}},
}


def limit_range(kind: str, part: str, value: str) -> JSON:
    item = {"type": kind, part: {"cpu": value}}
    return {"metadata": {"name": "defaults"}, "spec": {"limits": [item]}}


def cpu_scaled_object(**metadata: Any) -> JSON:
    return {
        "metadata": {"name": "so", "namespace": "default", **metadata},
        "spec": {
            "scaleTargetRef": {"name": "bare"},
            "minReplicaCount": 1,
            "triggers": [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}],
        },
    }


def request(obj: JSON, stored: dict[str, list[JSON]], old: JSON | None = None) -> AdmissionRequest:
    reader = Stored({"deployments.apps": [BARE], **stored})
    operation = "CREATE" if old is None else "UPDATE"
    return AdmissionRequest(operation, obj, old, "default", False, reader)


@pytest.mark.parametrize(
    ("limit_ranges", "expected"),
    [
        ([], NO_REQUEST),
        ([limit_range("Container", "defaultRequest", "100m")], None),
        ([limit_range("Container", "default", "1")], None),
        ([limit_range("Container", "defaultRequest", "0")], NO_REQUEST),
        ([limit_range("Pod", "default", "1")], NO_REQUEST),
    ],
    ids=[
        "no-limitrange",
        "container-default-request",
        "container-default-limit",
        "zero-default-is-not-set",
        "pod-limits-do-not-default-containers",
    ],
)
def test_limit_range_defaults_stand_in_for_requests(
    limit_ranges: list[JSON], expected: Denial | None
) -> None:
    assert validate(request(cpu_scaled_object(), {"limitranges": limit_ranges})) == expected


def test_dropping_a_finalizer_with_the_spec_unchanged_is_not_checked() -> None:
    old = cpu_scaled_object(finalizers=["finalizer.keda.sh"])
    new = cpu_scaled_object(finalizers=[])
    assert validate(request(new, {}, old=old)) is None
    # The same object with its spec changed is checked again.
    new["spec"]["maxReplicaCount"] = 3
    assert validate(request(new, {}, old=old)) == NO_REQUEST


def test_an_object_it_cannot_read_is_left_to_the_operator() -> None:
    unreadable = {"metadata": {"name": "so", "namespace": "default"}, "spec": {"triggers": {}}}
    assert validate(request(unreadable, {})) is None


def test_the_hook_is_kedas_webhook() -> None:
    hook = scaled_object_hook()
    assert (hook.name, hook.group, hook.kind, hook.failure_policy) == (
        "vscaledobject.kb.io",
        "keda.sh",
        "ScaledObject",
        "Ignore",
    )
