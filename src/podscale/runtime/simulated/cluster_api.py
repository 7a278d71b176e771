"""The kinds and small pod/Binding helpers the simulated cluster's components share.

The components (``scheduler``, ``kubelets``, ``nodes``) are API clients like kube-scheduler
and the kubelet: they take a ``podscale.controllers.runtime_api.ControllerApi``, read through
informers and write through the API, never the store, so they run against the in-process
API (``podscale.plane.embedded``) or any API server over HTTP. The scheduler binds with
``create(POD, ns, binding_for(pod, node), subresource="binding")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.kinds import kind_for

__all__ = [
    "NODE",
    "POD",
    "binding_for",
    "meta",
    "node_name_of",
    "pod_namespace",
]

JSON = dict[str, Any]
POD: Final = kind_for("v1", "Pod")
NODE: Final = kind_for("v1", "Node")


def meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def pod_namespace(pod: Mapping[str, Any]) -> str:
    return str(meta(pod).get("namespace") or "")


def node_name_of(pod: Mapping[str, Any]) -> str:
    """``spec.nodeName``, "" while the pod is unscheduled."""
    return str((pod.get("spec") or {}).get("nodeName") or "")


def binding_for(pod: Mapping[str, Any], node_name: str) -> JSON:
    """The ``v1.Binding`` that assigns ``pod`` to ``node_name`` (POST pods/<name>/binding).

    Carries the pod's uid, as kube-scheduler's does, so a pod deleted and recreated under the
    same name meanwhile is not bound by mistake."""
    metadata: JSON = {"name": meta(pod).get("name", ""), "namespace": pod_namespace(pod)}
    if meta(pod).get("uid"):
        metadata["uid"] = meta(pod)["uid"]
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": metadata,
        "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
    }
