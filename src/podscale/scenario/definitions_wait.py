"""Waiting for a scenario's CustomResourceDefinitions to be Established.

``kubectl wait --for condition=established crd/NAME`` in code: a custom resource can be
created only once its CRD is served, which the API server says with the ``Established``
condition (``podscale.apiserver.customresources.conditions``). ``ScenarioRun.start``
(``scenario.run``) creates the CRDs, calls ``wait_established``, then creates the rest.
The wait reads the CRDs every ``POLL`` of the plane's clock (on virtual time that costs no
wall time) up to ``TIMEOUT``, and then fails naming the CRD and its conditions' messages
(a CRD whose names conflict with another's is never established).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final, Protocol

from podscale.api.kinds import KindInfo, kind_for

__all__ = ["POLL", "TIMEOUT", "DefinitionsNotEstablished", "wait_established"]

POLL: Final = timedelta(milliseconds=100)
TIMEOUT: Final = timedelta(seconds=30)
_CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")


class _Getter(Protocol):
    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> dict[str, Any]: ...


class _Plane(Protocol):
    @property
    def api(self) -> _Getter: ...


class DefinitionsNotEstablished(RuntimeError):
    """A CRD that did not become Established in time."""


def _established(crd: Mapping[str, Any]) -> bool:
    conditions = (crd.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def _why(crd: Mapping[str, Any]) -> str:
    conditions = (crd.get("status") or {}).get("conditions") or ()
    told = [f"{c.get('type')}: {c.get('message')}" for c in conditions if c.get("message")]
    return "; ".join(told) or "no conditions reported"


async def wait_established(
    plane: _Plane, definitions: Sequence[Mapping[str, Any]], *, timeout: timedelta = TIMEOUT
) -> None:
    """Return once every CRD in ``definitions`` is Established; raise
    ``DefinitionsNotEstablished`` after ``timeout``."""
    names = [str((crd.get("metadata") or {}).get("name") or "") for crd in definitions]
    waited = timedelta(0)
    while True:
        pending = []
        for name in names:
            crd = await plane.api.get(_CRD, None, name)
            if not _established(crd):
                pending.append((name, crd))
        if not pending:
            return
        if waited >= timeout:
            name, crd = pending[0]
            raise DefinitionsNotEstablished(
                f'CustomResourceDefinition "{name}" is not Established after '
                f"{timeout.total_seconds():g}s: {_why(crd)}"
            )
        await asyncio.sleep(POLL.total_seconds())
        waited += POLL
