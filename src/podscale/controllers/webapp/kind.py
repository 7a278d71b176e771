"""The WebApp kind: its names, its ``KindInfo`` and its CustomResourceDefinition.

WebApp (``examples.podscale.dev/v1alpha1``) is podscale's example of an operator's kind:
namespaced, with ``spec.replicas``, ``spec.image``, ``spec.port`` and ``spec.resources``,
``status.replicas``/``readyReplicas``/``selector``/``observedGeneration``, the status and
scale subresources (so ``kubectl scale`` and an HPA size it) and printer columns. The CRD
ships as package data next to this module (``webapps.examples.podscale.dev.yaml``), read by
``definition``; ``podscale up --install-crd`` and a scenario's ``spec.crds`` install it.

``WEBAPP`` is a plain ``KindInfo`` (the clients build URLs from it; the in-process API
looks custom kinds up afresh per call), ``decisions`` and ``controller`` are its neighbours.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.controllers.packaged_crd import packaged_crd

__all__ = [
    "CONTAINER_NAME",
    "CRD_NAME",
    "GROUP",
    "KIND",
    "NAME_LABEL",
    "VERSION",
    "WEBAPP",
    "definition",
]

GROUP: Final = "examples.podscale.dev"
VERSION: Final = "v1alpha1"
KIND: Final = "WebApp"
PLURAL: Final = "webapps"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"
# The label the operator puts on its ReplicaSet and pods: the WebApp's name.
NAME_LABEL: Final = f"{GROUP}/webapp"
# The one container of a WebApp's pods (what a scenario's ``containers[].name`` costs).
CONTAINER_NAME: Final = "app"

WEBAPP: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="webapp",
    short_names=("wa",),
    namespaced=True,
    verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
    subresources=(
        Subresource("status", GROUP, VERSION, KIND),
        Subresource("scale", "autoscaling", "v1", "Scale"),
    ),
    categories=(),
    list_kind="WebAppList",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the WebApp CustomResourceDefinition shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)
