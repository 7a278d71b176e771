"""The ScaledObject kind: its names, its ``KindInfo`` and its CRD.

ScaledObject (``keda.sh/v1alpha1``, short name ``so``) is KEDA's event-driven autoscaler:
namespaced, its ``spec`` a scale target, replica bounds, cooldowns, ``advanced`` (the
generated HPA's name and behavior, scaling modifiers), ``fallback`` and ``triggers``; its
``status`` KEDA's (conditions, health, metric names, activity), with the status subresource
and no scale subresource, as KEDA's CRD has. The CRD ships as package data next to this
module, read by ``definition``; ``controllers.shipped_crds`` lists it. ``types`` reads the
objects with KEDA's defaults, ``validation`` applies KEDA's admission rules.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.controllers.packaged_crd import packaged_crd

__all__ = [
    "COMPONENT",
    "CRD_NAME",
    "GROUP",
    "KIND",
    "PLURAL",
    "SCALED_OBJECT",
    "VERSION",
    "definition",
]

GROUP: Final = "keda.sh"
VERSION: Final = "v1alpha1"
KIND: Final = "ScaledObject"
PLURAL: Final = "scaledobjects"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"
# The events' source component: KEDA's operator reports as ``keda-operator``.
COMPONENT: Final = "keda-operator"

SCALED_OBJECT: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="scaledobject",
    short_names=("so",),
    namespaced=True,
    verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
    subresources=(Subresource("status", GROUP, VERSION, KIND),),
    # KEDA's CRD names no categories: ``kubectl get all`` leaves ScaledObjects out.
    categories=(),
    list_kind="ScaledObjectList",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the ScaledObject CRD shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)
