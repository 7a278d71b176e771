"""Deleting a namespace on the simulated cluster: the namespace turns Terminating at once,
nothing new can be created in it, the namespace controller deletes its Deployment, HPA,
ReplicaSet, pods and events (the pods taking their kubelet's termination time), reports
its progress in the namespace's conditions, and the namespace is gone once its content is;
another namespace's workload is untouched."""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import all_kinds, kind_for
from podscale.client.http import ApiError
from podscale.controllers.namespace.deletion import deletable_kinds

from .sim_plane import JSON, POD, RS, Sim, replica_set, run_sim, stamp

NAMESPACE = kind_for("v1", "Namespace")
DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
SHOP = "shop"


def _deployment() -> JSON:
    workload = replica_set("web", 3)
    return {**workload, "kind": "Deployment", "metadata": {"name": "web", "namespace": SHOP}}


def _late() -> JSON:
    return {**replica_set("late", 1), "metadata": {"name": "late", "namespace": SHOP}}


def _hpa() -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": SHOP},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 3,
            "maxReplicas": 6,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
        },
    }


async def _content(sim: Sim) -> dict[str, int]:
    """How many objects of each deletable kind the namespace holds."""
    counts = {}
    for info in deletable_kinds(all_kinds()):
        items = (await sim.api.list(info, SHOP))["items"]
        if items:
            counts[info.plural] = len(items)
    return counts


async def _error(action: Any) -> JSON:
    try:
        await action
    except ApiError as err:
        return {"code": err.status, **err.body}
    raise AssertionError("expected an API error")


def _conditions(namespace: JSON) -> dict[str, tuple[str, str]]:
    return {
        c["type"]: (c["status"], c["reason"])
        for c in (namespace.get("status") or {}).get("conditions") or []
    }


def test_a_deleted_namespace_is_emptied_then_removed() -> None:
    async def scenario(sim: Sim) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await sim.api.create(NAMESPACE, None, {"metadata": {"name": SHOP}})
        await sim.api.create(DEPLOYMENT, SHOP, _deployment())
        await sim.api.create(HPA, SHOP, _hpa())
        await sim.api.create(RS, "default", replica_set("bystander", 2))
        await sim.until(60)
        seen["before"] = await _content(sim)
        seen["marked"] = await sim.api.delete(NAMESPACE, None, SHOP)
        seen["refused"] = await _error(sim.api.create(RS, SHOP, _late()))
        await sim.until(65.5)  # the controller's first pass: 5 s after the mark
        seen["during"] = await sim.api.get(NAMESPACE, None, SHOP)
        await sim.until(120)
        seen["gone"] = await _error(sim.api.get(NAMESPACE, None, SHOP))
        seen["after"] = await _content(sim)
        seen["bystander"] = len((await sim.api.list(POD, "default"))["items"])
        seen["missing"] = await _error(sim.api.create(RS, SHOP, _late()))
        return seen

    seen = run_sim(scenario)
    assert seen["before"]["pods"] == 3
    assert {"deployments", "replicasets", "horizontalpodautoscalers"} <= set(seen["before"])
    marked = seen["marked"]
    assert marked["status"]["phase"] == "Terminating"
    assert marked["metadata"]["deletionTimestamp"] == stamp(60)
    assert marked["spec"]["finalizers"] == ["kubernetes"]
    refused = seen["refused"]
    assert (refused["code"], refused["reason"]) == (403, "Forbidden")
    assert refused["message"] == (
        'replicasets.apps "late" is forbidden: unable to create new content in namespace '
        "shop because it is being terminated"
    )
    assert refused["details"]["causes"] == [
        {
            "reason": "NamespaceTerminating",
            "message": "namespace shop is being terminated",
            "field": "metadata.namespace",
        }
    ]
    # The pods still terminate (30 s grace, 1 s kubelet): the controller says what remains.
    conditions = _conditions(seen["during"])
    assert conditions["NamespaceDeletionDiscoveryFailure"] == ("False", "ResourcesDiscovered")
    assert conditions["NamespaceDeletionContentFailure"] == ("False", "ContentDeleted")
    assert conditions["NamespaceContentRemaining"] == ("True", "SomeResourcesRemain")
    assert conditions["NamespaceFinalizersRemaining"] == ("False", "ContentHasNoFinalizers")
    assert seen["gone"]["code"] == 404
    assert seen["after"] == {}
    assert seen["bystander"] == 2
    assert (seen["missing"]["code"], seen["missing"]["message"]) == (
        404,
        'namespaces "shop" not found',
    )


CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
TOYS = "toys.podscale.test"


def _gadget_crd() -> JSON:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gadgets.{TOYS}"},
        "spec": {
            "group": TOYS,
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                }
            ],
        },
    }


def _gadget(name: str, *finalizers: str) -> JSON:
    metadata: JSON = {"name": name, "finalizers": list(finalizers)}
    return {"apiVersion": f"{TOYS}/v1", "kind": "Gadget", "metadata": metadata}


def test_custom_resources_of_a_deleted_namespace_are_emptied_too() -> None:
    """A CRD created after the plane started: its resources in the namespace are deleted,
    one held by a finalizer keeps the namespace Terminating until the finalizer goes, and
    the resources of other namespaces stay."""

    async def scenario(sim: Sim) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await sim.api.create(NAMESPACE, None, {"metadata": {"name": SHOP}})
        await sim.api.create(CRD, None, _gadget_crd())
        gadgets = await sim.api.resolve_kind(TOYS, "v1", "gadgets")
        await sim.api.create(gadgets, SHOP, _gadget("a"))
        await sim.api.create(gadgets, SHOP, _gadget("held", "toys.podscale.test/hold"))
        await sim.api.create(gadgets, "default", _gadget("bystander"))
        await sim.until(10)
        await sim.api.delete(NAMESPACE, None, SHOP)
        await sim.until(40)
        seen["held"] = (await sim.api.list(gadgets, SHOP))["items"]
        seen["during"] = await sim.api.get(NAMESPACE, None, SHOP)
        await sim.api.patch(gadgets, SHOP, "held", {"metadata": {"finalizers": None}})
        await sim.until(80)
        seen["gone"] = await _error(sim.api.get(NAMESPACE, None, SHOP))
        seen["bystanders"] = (await sim.api.list(gadgets, "default"))["items"]
        return seen

    seen = run_sim(scenario)
    assert [g["metadata"]["name"] for g in seen["held"]] == ["held"]
    assert seen["held"][0]["metadata"]["deletionTimestamp"]
    conditions = _conditions(seen["during"])
    assert conditions["NamespaceContentRemaining"] == ("True", "SomeResourcesRemain")
    assert conditions["NamespaceFinalizersRemaining"] == ("True", "SomeFinalizersRemain")
    message = next(
        c["message"]
        for c in seen["during"]["status"]["conditions"]
        if c["type"] == "NamespaceContentRemaining"
    )
    assert (
        message
        == "Some resources are remaining: gadgets.toys.podscale.test has 1 resource instances"
    )
    assert seen["gone"]["code"] == 404
    assert [g["metadata"]["name"] for g in seen["bystanders"]] == ["bystander"]
