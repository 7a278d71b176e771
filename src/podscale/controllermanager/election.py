"""The seam between ``podscale.controllermanager.run`` and client-go style leader election.

``run`` needs three things of an elector: ``run(lead)`` (acquire the Lease, run ``lead``
while renewing, return when leadership is lost, release the Lease when cancelled),
``is_leader`` and ``observed_time`` (for ``/healthz``'s ``leaderElection`` check and
``leader_election_master_status``, ``podscale.controllermanager.health``). ``Elector``
states that; ``make_elector`` builds one from ``ElectionSettings`` (the
``--leader-elect-*`` flags) over ``podscale.client.leaderelection.LeaderElector``.

The identity is kube-controller-manager's: the host name, ``_`` and a random UUID, so two
processes on one host never share it.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from podscale.controllers.runtime_api import ControllerApi
from podscale.store.interface import Clock

__all__ = ["ElectionSettings", "ElectionUnavailable", "Elector", "default_identity", "make_elector"]


class ElectionUnavailable(Exception):
    """This build has no leader election (``podscale.client.leaderelection`` is absent)."""


@dataclass(frozen=True, slots=True)
class ElectionSettings:
    """The ``--leader-elect-*`` flags (kube-controller-manager's defaults)."""

    lease_name: str = "podscale-controller-manager"
    lease_namespace: str = "kube-system"
    lease_duration: timedelta = timedelta(seconds=15)
    renew_deadline: timedelta = timedelta(seconds=10)
    retry_period: timedelta = timedelta(seconds=2)


class Elector(Protocol):
    """What ``run`` drives (``podscale.client.leaderelection.LeaderElector``)."""

    async def run(self, lead: Callable[[], Awaitable[None]]) -> None: ...

    @property
    def is_leader(self) -> bool: ...

    @property
    def observed_time(self) -> datetime | None: ...


def default_identity() -> str:
    """kube-controller-manager's lock identity: ``<hostname>_<uuid>``."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def make_elector(
    api: ControllerApi, clock: Clock, settings: ElectionSettings, identity: str
) -> Elector:
    """The elector for ``settings``. SEAM for the lead: once
    ``podscale.client.leaderelection`` is merged, this body becomes

        from podscale.client.leaderelection.elector import (
            LeaderElectionConfig, LeaderElector,
        )
        config = LeaderElectionConfig(
            lease_name=settings.lease_name, lease_namespace=settings.lease_namespace,
            identity=identity, lease_duration=settings.lease_duration,
            renew_deadline=settings.renew_deadline, retry_period=settings.retry_period,
            release_on_cancel=True,
        )
        return LeaderElector(api, clock, config)

    (``LeaderElector`` must then expose ``observed_time``, client-go's ``observedTime``:
    when it last saw its record renewed; the ``leaderElection`` health check reads it)."""
    del api, clock, settings, identity
    raise ElectionUnavailable(
        "leader election is not available in this build; run with --leader-elect=false"
    )
