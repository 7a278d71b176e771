"""The CustomResourceDefinitions podscale ships with its controllers, by name.

An operator's CRD travels with its controller as package data (``controllers.webapp``:
``webapps.examples.podscale.dev``; ``controllers.cronhpa``:
``cronhorizontalpodautoscalers.autoscaling.alibabacloud.com``). ``shipped_definition``
hands out a fresh copy by the CRD's name, for whoever installs one on request:
``podscale up --install-crd NAME`` and a scenario's ``spec.crds``
(``podscale.scenario.loader``). The controllers themselves are
always registered (``controllers.registry``) and stay idle until their CRD is installed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from podscale.controllers.cronhpa import kind as cronhpa
from podscale.controllers.webapp import kind as webapp

__all__ = ["SHIPPED_CRDS", "shipped_definition"]

SHIPPED_CRDS: Final[Mapping[str, Callable[[], dict[str, Any]]]] = {
    webapp.CRD_NAME: webapp.definition,
    cronhpa.CRD_NAME: cronhpa.definition,
}


def shipped_definition(name: str) -> dict[str, Any]:
    """The shipped CRD ``name``; a ``ValueError`` naming the shipped ones otherwise."""
    make = SHIPPED_CRDS.get(name)
    if make is None:
        known = ", ".join(sorted(SHIPPED_CRDS))
        raise ValueError(f'no CustomResourceDefinition "{name}" ships with podscale: {known}')
    return make()
