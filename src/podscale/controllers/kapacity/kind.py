"""The IntelligentHorizontalPodAutoscaler and ReplicaProfile kinds: names, ``KindInfo``, CRDs.

Kapacity's IntelligentHorizontalPodAutoscaler (``autoscaling.kapacitystack.io/v1alpha1``,
short name ``ihpa``) merges replica portraits by priority and scales its target through a
ReplicaProfile (short name ``rp``) of the same name, which holds the online, cutoff and
standby replica counts. Both CRDs ship as package data next to this module
(``definition``, ``replica_profile_definition``); ``controllers.shipped_crds`` lists them.
``types`` reads the objects and ``validation`` checks what the schema cannot.

The label and readiness-gate names are Kapacity's, so selectors written for Kapacity
keep working (``kubectl get po -L kapacitystack.io/pod-state``).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.controllers.packaged_crd import packaged_crd

__all__ = [
    "CRD_NAME",
    "GROUP",
    "IHPA",
    "KIND",
    "POD_STATE_LABEL",
    "READINESS_GATE_ONLINE",
    "REPLICA_PROFILE",
    "REPLICA_PROFILE_CRD_NAME",
    "REPLICA_PROFILE_KIND",
    "VERSION",
    "definition",
    "replica_profile_definition",
]

GROUP: Final = "autoscaling.kapacitystack.io"
VERSION: Final = "v1alpha1"
KIND: Final = "IntelligentHorizontalPodAutoscaler"
PLURAL: Final = "intelligenthorizontalpodautoscalers"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"
REPLICA_PROFILE_KIND: Final = "ReplicaProfile"
REPLICA_PROFILE_PLURAL: Final = "replicaprofiles"
REPLICA_PROFILE_CRD_NAME: Final = f"{REPLICA_PROFILE_PLURAL}.{GROUP}"

# The label Kapacity puts on a pod that is not online (its value a PodState: Cutoff, Standby).
POD_STATE_LABEL: Final = "kapacitystack.io/pod-state"
# The pod condition (a readiness gate) Kapacity's ReadinessGate traffic controller sets:
# True puts the pod in its Services' endpoints, False takes it out.
READINESS_GATE_ONLINE: Final = "kapacitystack.io/online"

_VERBS: Final = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

IHPA: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="intelligenthorizontalpodautoscaler",
    short_names=("ihpa",),
    namespaced=True,
    verbs=_VERBS,
    subresources=(Subresource("status", GROUP, VERSION, KIND),),
    categories=(),
    list_kind=f"{KIND}List",
)

REPLICA_PROFILE: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=REPLICA_PROFILE_KIND,
    plural=REPLICA_PROFILE_PLURAL,
    singular="replicaprofile",
    short_names=("rp",),
    namespaced=True,
    verbs=_VERBS,
    subresources=(Subresource("status", GROUP, VERSION, REPLICA_PROFILE_KIND),),
    categories=(),
    list_kind=f"{REPLICA_PROFILE_KIND}List",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the IntelligentHorizontalPodAutoscaler CRD shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)


def replica_profile_definition() -> dict[str, Any]:
    """A fresh copy of the ReplicaProfile CRD shipped with podscale."""
    return packaged_crd(__package__, REPLICA_PROFILE_CRD_NAME)
