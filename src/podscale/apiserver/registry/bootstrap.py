"""Objects a cluster always has: the system namespaces.

Upstream's kube-apiserver creates ``default``, ``kube-system``, ``kube-public`` and
``kube-node-lease`` at start (its system-namespaces controller); users and tools
(``kubectl get ns``, ``-n kube-system``) expect them. ``ensure_system_namespaces`` creates
the missing ones through the normal defaulting path; existing ones are left alone.
"""

from __future__ import annotations

from typing import Final

from podscale.api.defaults import apply_defaults
from podscale.store.interface import AlreadyExistsError, Store

__all__ = ["SYSTEM_NAMESPACES", "ensure_system_namespaces"]

SYSTEM_NAMESPACES: Final = ("default", "kube-node-lease", "kube-public", "kube-system")


def ensure_system_namespaces(store: Store) -> list[str]:
    """Create the system namespaces that do not exist yet; returns the names created."""
    created = []
    for name in SYSTEM_NAMESPACES:
        namespace = apply_defaults(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": name},
                "spec": {"finalizers": ["kubernetes"]},
            }
        )
        namespace.setdefault("status", {})["phase"] = "Active"
        try:
            store.create("namespaces", namespace)
        except AlreadyExistsError:
            continue
        created.append(name)
    return created
