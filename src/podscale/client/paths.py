"""REST paths of the Kubernetes API, built from the kind registry (``podscale.api.kinds``).

``/api/v1/namespaces/default/pods/web``, ``/apis/apps/v1/replicasets``,
``/apis/apps/v1/namespaces/default/deployments/web/scale``: the same layout every
Kubernetes-compatible server (podscale's or a real cluster) serves.
"""

from __future__ import annotations

from podscale.api.kinds import KindInfo

__all__ = ["resource_path"]


def resource_path(
    kind: KindInfo,
    namespace: str | None = None,
    name: str | None = None,
    subresource: str | None = None,
) -> str:
    """The collection path (``name=None``) or the object path, optionally a subresource.

    ``namespace=None`` on a namespaced kind means all namespaces (list and watch only).
    """
    root = f"/apis/{kind.group}/{kind.version}" if kind.group else f"/api/{kind.version}"
    if kind.namespaced and namespace:
        root += f"/namespaces/{namespace}"
    path = f"{root}/{kind.plural}"
    if name is not None:
        path += f"/{name}"
        if subresource:
            path += f"/{subresource}"
    elif subresource:
        raise ValueError("a subresource needs an object name")
    return path
