"""The seam between ``podscale.controllermanager.run`` and client-go style leader election.

``run`` needs three things of an elector: ``run(lead)`` (acquire the Lease, run ``lead``
while renewing, return when leadership is lost, release the Lease when cancelled),
``is_leader`` and ``observed_time`` (for ``/healthz``'s ``leaderElection`` check and
``leader_election_master_status``, ``podscale.controllermanager.health``). ``Elector``
states that; ``make_elector`` builds one from ``ElectionSettings`` (the
``--leader-elect-*`` flags) over ``podscale.client.leaderelection.LeaderElector``.

The identity is kube-controller-manager's: the host name, ``_`` and a random UUID, so two
processes on one host never share it. ``user_agent`` names the process by it in every
request it sends, so the API server's audit log tells which replica wrote what (client-go
sends ``kube-controller-manager/<version> (<os>/<arch>) kubernetes/<commit>``; podscale has
no commit to name, and names the identity instead).
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from podscale import __version__
from podscale.client.leaderelection import LeaderElectionConfig, LeaderElector
from podscale.controllers.runtime_api import ControllerApi
from podscale.store.interface import Clock

__all__ = ["ElectionSettings", "Elector", "default_identity", "make_elector", "user_agent"]


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


def user_agent(identity: str) -> str:
    """The controller manager's ``User-Agent``: ``podscale-controller-manager/<version>
    (<identity>)``."""
    return f"podscale-controller-manager/{__version__} ({identity})"


def make_elector(
    api: ControllerApi, clock: Clock, settings: ElectionSettings, identity: str
) -> Elector:
    """The elector for ``settings`` on the Lease ``lease_namespace/lease_name``; it releases
    the Lease when cancelled (client-go's ``ReleaseOnCancel``, as kube-controller-manager
    sets it), so a graceful shutdown hands over at once."""
    config = LeaderElectionConfig(
        lease_name=settings.lease_name,
        lease_namespace=settings.lease_namespace,
        identity=identity,
        lease_duration=settings.lease_duration,
        renew_deadline=settings.renew_deadline,
        retry_period=settings.retry_period,
        release_on_cancel=True,
    )
    return LeaderElector(api, clock, config)
