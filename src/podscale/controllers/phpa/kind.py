"""The PredictiveHorizontalPodAutoscaler kind: its names, its ``KindInfo`` and its CRD.

PredictiveHorizontalPodAutoscaler (``autoscaling.podscale.dev/v1alpha1``, short name
``phpa``, in the ``all`` category) is podscale's predictive autoscaler: namespaced, its
``spec`` an autoscaling/v2 HPA spec plus ``mode``, ``prediction`` and ``schedules``, its
``status`` an HPA status plus ``prediction``, with the status subresource (no scale). The
CRD ships as package data next to this module, read by ``definition``; ``podscale up``
installs it with its controller (``controllers.shipped_crds``). ``types`` reads the
objects, ``validation`` checks them, ``schedules`` finds the active window, ``decisions``
and ``controller`` decide and act.
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
    "PHPA",
    "PLURAL",
    "VERSION",
    "definition",
]

GROUP: Final = "autoscaling.podscale.dev"
VERSION: Final = "v1alpha1"
KIND: Final = "PredictiveHorizontalPodAutoscaler"
PLURAL: Final = "predictivehorizontalpodautoscalers"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"
# The events' source component, as the HPA's is ``horizontal-pod-autoscaler``.
COMPONENT: Final = "predictive-horizontal-pod-autoscaler"

PHPA: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="predictivehorizontalpodautoscaler",
    short_names=("phpa",),
    namespaced=True,
    verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
    subresources=(Subresource("status", GROUP, VERSION, KIND),),
    categories=("all",),
    list_kind="PredictiveHorizontalPodAutoscalerList",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the PredictiveHorizontalPodAutoscaler CRD shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)
