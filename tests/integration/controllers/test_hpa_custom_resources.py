"""The HPA controller scaling custom resources: a CRD with a scale subresource is a target
like a ReplicaSet. A tiny workload loop plays the custom resource's operator: it keeps a
ReplicaSet at the resource's ``spec.replicas`` and writes back ``status.replicas`` and
``status.selector``, so the HPA reads the Scale, finds the pods through its selector and
writes ``/scale``. Targets it cannot scale fail as upstream reports them."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, condition, hpa, replica_set, run_scenario

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
UP_REASON = "cpu resource utilization (percentage of request) above target"


def definition(plural: str, kind: str, subresources: JSON) -> JSON:
    int_field = {"type": "integer"}
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"replicas": int_field}},
            "status": {
                "type": "object",
                "properties": {"replicas": int_field, "selector": {"type": "string"}},
            },
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": subresources,
                }
            ],
        },
    }


SCALE = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
WIDGETS = definition(
    "widgets", "Widget", {"status": {}, "scale": {**SCALE, "labelSelectorPath": ".status.selector"}}
)


async def install(cluster: HpaCluster, crd: JSON, name: str, replicas: int) -> KindInfo:
    """The CRD and one resource ``name`` of its kind; returns the kind."""
    await cluster.api.create(CRD, None, crd)
    names = crd["spec"]["names"]
    kind = await cluster.api.resolve_kind("example.com", "v1", names["plural"])
    body = {
        "apiVersion": "example.com/v1",
        "kind": names["kind"],
        "metadata": {"name": name},
        "spec": {"replicas": replicas},
    }
    await cluster.api.create(kind, "default", body)
    return kind


async def operate(cluster: HpaCluster, kind: KindInfo, name: str) -> None:
    """The widget's operator: a ReplicaSet ``name`` follows the widget's spec.replicas; the
    widget's status reports the pods the ReplicaSet has and their selector."""
    while True:
        widget = await cluster.api.get(kind, "default", name)
        wanted = int(widget["spec"]["replicas"])
        try:
            rs = await cluster.api.get(RS, "default", name)
        except ApiError:
            rs = await cluster.api.create(RS, "default", replica_set(name, wanted))
        if rs["spec"]["replicas"] != wanted:
            scale = {"metadata": {"name": name}, "spec": {"replicas": wanted}}
            await cluster.api.patch(RS, "default", name, scale, subresource="scale")
        status = {"replicas": int((rs.get("status") or {}).get("replicas") or 0)}
        status["selector"] = f"app={name}"
        if widget.get("status") != status:
            await cluster.api.update(kind, "default", {**widget, "status": status}, "status")
        await asyncio.sleep(1.0)


def test_hpa_scales_a_custom_resource_through_its_scale_subresource() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"  # 150% of the 100m request; target 50%
        widgets = await install(cluster, WIDGETS, "web", 2)
        operator = asyncio.create_task(operate(cluster, widgets, "web"))
        try:
            await asyncio.sleep(5)
            body = hpa("web", "web", kind="Widget", api_version="example.com/v1")
            await cluster.api.create(HPA, "default", body)
            await asyncio.sleep(SYNC + 2)
            widget = await cluster.api.get(widgets, "default", "web")
            assert widget["spec"]["replicas"] == 4  # ceil(3.0 x 2) = 6, within max(2 x 2, 4)
            assert cluster.counting.count("update", "Widget", "scale") == 1
            obj = await cluster.hpa("web")
            able = condition(obj, "AbleToScale")
            assert (able["status"], able["reason"]) == ("True", "SucceededRescale")
            assert obj["status"]["desiredReplicas"] == 4
            events = await cluster.events("web")
            assert [(e["reason"], e["message"]) for e in events] == [
                ("SuccessfulRescale", f"New size: 4; reason: {UP_REASON}")
            ]
            # The operator brings 4 pods up; the next sync finds them through the Scale's
            # selector: ceil(3.0 x 4) = 12, clamped to max 5.
            await asyncio.sleep(SYNC)
            obj = await cluster.hpa("web")
            assert (obj["status"]["currentReplicas"], obj["status"]["desiredReplicas"]) == (4, 5)
            await asyncio.sleep(3)
            widget = await cluster.api.get(widgets, "default", "web")
            assert (widget["spec"], widget["status"]) == (
                {"replicas": 5},
                {"replicas": 5, "selector": "app=web"},
            )
        finally:
            operator.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await operator

    run_scenario(scenario)


@pytest.mark.parametrize(
    ("crd", "condition_type", "reason", "message", "event_reasons"),
    [
        (
            definition("gadgets", "Gadget", {"status": {}}),
            "AbleToScale",
            "FailedGetScale",
            "the HPA controller was unable to get the target's current scale: "
            'gadgets.example.com "web" not found',
            ["FailedGetScale"],
        ),
        (
            definition("sprockets", "Sprocket", {"status": {}, "scale": dict(SCALE)}),
            "ScalingActive",
            "InvalidSelector",
            "the HPA target's scale is missing a selector",
            ["SelectorRequired", "FailedComputeMetricsReplicas"],
        ),
    ],
    ids=["without-scale-subresource", "without-selector"],
)
def test_custom_targets_it_cannot_scale(
    crd: JSON, condition_type: str, reason: str, message: str, event_reasons: list[str]
) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        kind = await install(cluster, crd, "web", 2)
        body = hpa("web", "web", kind=kind.kind, api_version="example.com/v1")
        await cluster.api.create(HPA, "default", body)
        await asyncio.sleep(SYNC + 2)
        found = condition(await cluster.hpa("web"), condition_type)
        assert (found["status"], found["reason"], found["message"]) == ("False", reason, message)
        assert await cluster.reasons("web") == event_reasons
        assert (await cluster.api.get(kind, "default", "web"))["spec"]["replicas"] == 2

    run_scenario(scenario)
