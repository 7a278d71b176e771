"""The CustomResourceDefinitions podscale ships with its controllers, by name.

An operator's CRD travels with its controller as package data (``controllers.webapp``:
``webapps.examples.podscale.dev``; ``controllers.cronhpa``:
``cronhorizontalpodautoscalers.autoscaling.alibabacloud.com``; ``controllers.phpa``:
``predictivehorizontalpodautoscalers.autoscaling.podscale.dev``; ``controllers.keda``:
``scaledobjects.keda.sh``; ``controllers.kapacity``:
``intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io`` and
``replicaprofiles.autoscaling.kapacitystack.io``). ``shipped_definition``
hands out a fresh copy by the CRD's name, for whoever installs one on request:
``podscale up --install-crd NAME`` and a scenario's ``spec.crds``
(``podscale.scenario.loader``). The controllers themselves are
always registered (``controllers.registry``) and stay idle until their CRD is installed.

A product kind's CRD comes with its controller, as an operator's chart installs both:
``INSTALLED_WITH`` maps such a CRD to the controller (canonical ``--controllers`` name)
whose running makes ``podscale up`` install it by default (the CronHPA's, the PHPA's,
KEDA's ScaledObject, Kapacity's IHPA and ReplicaProfile). The example operator's WebApp
is installed only on request.
``crds_to_install`` is the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Final

from podscale.controllers.cronhpa import kind as cronhpa
from podscale.controllers.ehpa import kind as ehpa
from podscale.controllers.kapacity import kind as kapacity
from podscale.controllers.keda import kind as keda
from podscale.controllers.phpa import kind as phpa
from podscale.controllers.webapp import kind as webapp

__all__ = ["INSTALLED_WITH", "SHIPPED_CRDS", "crds_to_install", "shipped_definition"]

SHIPPED_CRDS: Final[Mapping[str, Callable[[], dict[str, Any]]]] = {
    webapp.CRD_NAME: webapp.definition,
    cronhpa.CRD_NAME: cronhpa.definition,
    ehpa.CRD_NAME: ehpa.definition,
    ehpa.SUBSTITUTE_CRD_NAME: ehpa.substitute_definition,
    phpa.CRD_NAME: phpa.definition,
    keda.CRD_NAME: keda.definition,
    kapacity.CRD_NAME: kapacity.definition,
    kapacity.REPLICA_PROFILE_CRD_NAME: kapacity.replica_profile_definition,
}

INSTALLED_WITH: Final[Mapping[str, str]] = {
    cronhpa.CRD_NAME: "cronhpa-controller",
    ehpa.CRD_NAME: "ehpa-controller",
    ehpa.SUBSTITUTE_CRD_NAME: "ehpa-controller",
    phpa.CRD_NAME: "predictive-horizontal-pod-autoscaler-controller",
    keda.CRD_NAME: "keda-operator",
    kapacity.CRD_NAME: "ihpa-controller",
    kapacity.REPLICA_PROFILE_CRD_NAME: "ihpa-controller",
}


def crds_to_install(
    requested: Sequence[str], skipped: Collection[str], controllers: Collection[str]
) -> tuple[str, ...]:
    """The shipped CRDs ``podscale up`` creates: those ``requested`` (``--install-crd``),
    then each CRD of ``INSTALLED_WITH`` whose controller is among ``controllers`` (the
    canonical names ``--controllers`` enables), less those ``skipped``
    (``--no-install-crd``); in that order, each once."""
    wanted = [*requested, *(crd for crd, by in INSTALLED_WITH.items() if by in controllers)]
    return tuple(dict.fromkeys(name for name in wanted if name not in skipped))


def shipped_definition(name: str) -> dict[str, Any]:
    """The shipped CRD ``name``; a ``ValueError`` naming the shipped ones otherwise."""
    make = SHIPPED_CRDS.get(name)
    if make is None:
        known = ", ".join(sorted(SHIPPED_CRDS))
        raise ValueError(f'no CustomResourceDefinition "{name}" ships with podscale: {known}')
    return make()
