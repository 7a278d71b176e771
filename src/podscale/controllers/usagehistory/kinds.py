"""The autoscaler kinds the usage-history controller reads, and their CRDs' names.

The HorizontalPodAutoscaler is built in; PredictiveHorizontalPodAutoscaler
(``autoscaling.podscale.dev/v1alpha1``), Crane's EffectiveHorizontalPodAutoscaler
(``autoscaling.crane.io/v1alpha1``) and Kapacity's IntelligentHorizontalPodAutoscaler
(``autoscaling.kapacitystack.io/v1alpha1``, whose Predictive portrait forecasts this
history) are custom kinds that may not be installed, so each is
read through a ``webapp.definition_gate.GatedListWatcher`` opened when its CRD is
Established. Only what a list-watch needs is described here (names, scope, verbs): the
kinds' own packages (``controllers.phpa``, ``controllers.ehpa``, ``controllers.kapacity``)
own their full definitions, and an informer shared with them is keyed by group, version
and kind alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from podscale.api.kinds import KindInfo, Subresource, kind_for

__all__ = ["CUSTOM_AUTOSCALERS", "EHPA", "HPA", "IHPA", "PHPA", "GatedKind"]

HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
_VERBS: Final = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


def _custom(group: str, kind: str, plural: str, short: str) -> KindInfo:
    return KindInfo(
        group=group,
        version="v1alpha1",
        kind=kind,
        plural=plural,
        singular=kind.lower(),
        short_names=(short,),
        namespaced=True,
        verbs=_VERBS,
        subresources=(Subresource("status", group, "v1alpha1", kind),),
        categories=(),
        list_kind=f"{kind}List",
    )


PHPA: Final = _custom(
    "autoscaling.podscale.dev",
    "PredictiveHorizontalPodAutoscaler",
    "predictivehorizontalpodautoscalers",
    "phpa",
)
EHPA: Final = _custom(
    "autoscaling.crane.io",
    "EffectiveHorizontalPodAutoscaler",
    "effectivehorizontalpodautoscalers",
    "ehpa",
)


@dataclass(frozen=True, slots=True)
class GatedKind:
    """A custom autoscaler kind and the name of the CRD that serves it."""

    kind: KindInfo

    @property
    def crd_name(self) -> str:
        return f"{self.kind.plural}.{self.kind.group}"


IHPA: Final = _custom(
    "autoscaling.kapacitystack.io",
    "IntelligentHorizontalPodAutoscaler",
    "intelligenthorizontalpodautoscalers",
    "ihpa",
)
CUSTOM_AUTOSCALERS: Final = (GatedKind(PHPA), GatedKind(EHPA), GatedKind(IHPA))
