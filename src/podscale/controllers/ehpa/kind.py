"""The EffectiveHorizontalPodAutoscaler and Substitute kinds: names, ``KindInfo`` and CRDs.

Crane's EffectiveHorizontalPodAutoscaler (``autoscaling.crane.io/v1alpha1``, short name
``ehpa``) wraps an HPA: ``controller`` generates the HPA ``ehpa-<name>`` from it. In
``Preview`` the generated HPA scales a Substitute (short name ``subs``) standing in for the
workload (a scale subresource over ``spec.replicas``), so replicas are computed without
touching the target. Both CRDs ship as package data next to this module (``definition``,
``substitute_definition``); ``controllers.shipped_crds`` installs them with the controller.
The labels and metric names are Crane's, so selectors written for Crane keep working.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.controllers.packaged_crd import packaged_crd

__all__ = [
    "CRD_NAME",
    "CRON_METRIC",
    "EHPA",
    "GROUP",
    "KIND",
    "MANAGED_BY",
    "PREDICTION_METRIC",
    "SUBSTITUTE",
    "SUBSTITUTE_CRD_NAME",
    "UID_LABEL",
    "VERSION",
    "definition",
    "substitute_definition",
]

GROUP: Final = "autoscaling.crane.io"
VERSION: Final = "v1alpha1"
KIND: Final = "EffectiveHorizontalPodAutoscaler"
PLURAL: Final = "effectivehorizontalpodautoscalers"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"
SUBSTITUTE_KIND: Final = "Substitute"
SUBSTITUTE_PLURAL: Final = "substitutes"
SUBSTITUTE_CRD_NAME: Final = f"{SUBSTITUTE_PLURAL}.{GROUP}"

# Crane's labels on what it generates (HPA, Substitute), and the external metrics.
UID_LABEL: Final = "autoscaling.crane.io/effective-hpa-uid"
MANAGED_BY: Final = "effective-hpa-controller"
PREDICTION_METRIC: Final = "crane_autoscaling_prediction"
CRON_METRIC: Final = "crane_autoscaling_cron"

_VERBS: Final = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

EHPA: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="effectivehorizontalpodautoscaler",
    short_names=("ehpa",),
    namespaced=True,
    verbs=_VERBS,
    subresources=(Subresource("status", GROUP, VERSION, KIND),),
    categories=(),
    list_kind=f"{KIND}List",
)

SUBSTITUTE: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=SUBSTITUTE_KIND,
    plural=SUBSTITUTE_PLURAL,
    singular="substitute",
    short_names=("subs",),
    namespaced=True,
    verbs=_VERBS,
    subresources=(
        Subresource("status", GROUP, VERSION, SUBSTITUTE_KIND),
        Subresource("scale", "autoscaling", "v1", "Scale"),
    ),
    categories=(),
    list_kind=f"{SUBSTITUTE_KIND}List",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the EffectiveHorizontalPodAutoscaler CRD shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)


def substitute_definition() -> dict[str, Any]:
    """A fresh copy of the Substitute CRD shipped with podscale."""
    return packaged_crd(__package__, SUBSTITUTE_CRD_NAME)
