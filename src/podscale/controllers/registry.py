"""Which controllers a control plane runs: names, factories and the ``--controllers`` flag.

kube-controller-manager's ``--controllers`` takes a comma-separated list where ``*`` enables
every on-by-default controller, ``foo`` enables ``foo`` and ``-foo`` disables it; names are
the current ones (``replicaset-controller``) or their older aliases (``replicaset``). This
module keeps that contract for podscale: ``select_controllers`` parses the flag into the set
of canonical names (a bad name is a ``ValueError`` with the known names listed) and
``build_controllers`` makes the selected controllers over one API, clock and random source.
``podscale.runtime.embedded`` and ``podscale up`` call them; the controllers themselves
live in their packages.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from podscale.controllers.deployment.controller import DeploymentController
from podscale.controllers.garbagecollector.controller import GarbageCollectorController
from podscale.controllers.manager import Controller
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.statefulset.controller import StatefulSetController
from podscale.store.interface import Clock

__all__ = [
    "CONTROLLER_NAMES",
    "ControllerSpec",
    "build_controllers",
    "select_controllers",
]

Factory = Callable[[ControllerApi, Clock, random.Random], Controller]


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    """A controller podscale can run: its canonical name, older alias and factory."""

    name: str
    alias: str
    factory: Factory


_SPECS: Final[tuple[ControllerSpec, ...]] = (
    ControllerSpec(
        "replicaset-controller",
        "replicaset",
        lambda api, clock, rng: ReplicaSetController(api, clock, rng=rng),
    ),
    ControllerSpec(
        "deployment-controller",
        "deployment",
        lambda api, clock, rng: DeploymentController(api, clock),
    ),
    ControllerSpec(
        "statefulset-controller",
        "statefulset",
        lambda api, clock, rng: StatefulSetController(api, clock),
    ),
    ControllerSpec(
        "garbage-collector-controller",
        "garbagecollector",
        lambda api, clock, rng: GarbageCollectorController(api, clock),
    ),
)

CONTROLLER_NAMES: Final[tuple[str, ...]] = tuple(spec.name for spec in _SPECS)
_BY_NAME: Final[Mapping[str, ControllerSpec]] = {
    **{spec.alias: spec for spec in _SPECS},
    **{spec.name: spec for spec in _SPECS},
}


def select_controllers(flag: str | Iterable[str] = "*") -> frozenset[str]:
    """The canonical names ``--controllers`` enables. Later entries win over ``*``; an
    empty list enables nothing. Raises ``ValueError`` naming an unknown controller."""
    items = [part.strip() for part in flag.split(",")] if isinstance(flag, str) else list(flag)
    items = [item for item in items if item]
    everything = "*" in items
    enabled: set[str] = set(CONTROLLER_NAMES) if everything else set()
    for item in items:
        if item == "*":
            continue
        disable = item.startswith("-")
        name = item[1:] if disable else item
        spec = _BY_NAME.get(name)
        if spec is None:
            known = ", ".join(sorted(CONTROLLER_NAMES))
            raise ValueError(f'"{name}" is not in the list of known controllers: {known}')
        if disable:
            enabled.discard(spec.name)
        else:
            enabled.add(spec.name)
    return frozenset(enabled)


def build_controllers(
    api: ControllerApi,
    clock: Clock,
    rng: random.Random,
    enabled: Iterable[str] = CONTROLLER_NAMES,
) -> list[Controller]:
    """The enabled controllers, in a fixed order; each draws its randomness from ``rng``."""
    wanted = {(_BY_NAME[name].name) for name in enabled}
    return [
        spec.factory(api, clock, random.Random(rng.getrandbits(64)))
        for spec in _SPECS
        if spec.name in wanted
    ]
