"""A CustomResourceDefinition for controller tests: ``Gizmo`` in ``toys.podscale.test``.

Namespaced (or cluster-scoped with ``scope="Cluster"``), served as v1, any spec kept
(``x-kubernetes-preserve-unknown-fields``), so tests can hang ownerReferences on gizmos and
give gizmos owners of any kind.
"""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import KindInfo, kind_for

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
GROUP = "toys.podscale.test"


def gizmo_crd(*, plural: str = "gizmos", kind: str = "Gizmo", scope: str = "Namespaced") -> JSON:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


def gizmo(name: str, *, owners: list[JSON] | None = None, kind: str = "Gizmo") -> JSON:
    metadata: JSON = {"name": name}
    if owners is not None:
        metadata["ownerReferences"] = owners
    return {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": metadata, "spec": {}}


async def install_gizmos(api: Any, **options: Any) -> KindInfo:
    """Create the CRD through ``api`` (an ``InProcessApi``); the kind it serves."""
    crd = gizmo_crd(**options)
    await api.create(CRD, None, crd)
    plural = crd["spec"]["names"]["plural"]
    kind: KindInfo = await api.resolve_kind(GROUP, "v1", plural)
    return kind
