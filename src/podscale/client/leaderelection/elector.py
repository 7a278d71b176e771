"""client-go's ``LeaderElector`` on a ``coordination.k8s.io/v1`` Lease: the thin shell.

``LeaderElector.run(lead)`` tries to acquire the Lease every ``retry_period`` (jittered by
client-go's factor 1.2: each wait is ``retry_period * (1 + 1.2 * r)``, ``r`` from the
injected ``random.Random``), then runs ``lead()`` as a task while renewing every
``retry_period``. A renewal round retries every ``retry_period`` and must succeed within
``renew_deadline``; when it cannot, ``lead()`` is cancelled and ``run`` returns (leadership is
lost; a controller manager exits then, as kube-controller-manager does). Since
``renew_deadline`` < ``lease_duration``, the leader stops acting before anyone can take over.
If ``run`` is cancelled, ``lead()`` is cancelled and awaited first (renewal goes on meanwhile,
so the guarded work ends while we still hold the lease), then the Lease is released
(``release_on_cancel``), and the cancellation propagates. If ``lead()`` ends by itself,
``run`` releases likewise and returns its result or raises its error.

Concurrency is optimistic: a missing Lease is created (409: another candidate won), an
existing one is updated with the resourceVersion last read or written (409: we lost the
race). Each round's choice is ``podscale.client.leaderelection.decide``'s; the Lease
mapping is ``record``'s. Time comes from the injected ``Clock`` and every wait is an
``asyncio.sleep`` on the running loop, so on virtual time (``podscale.runtime``) elections
run in milliseconds.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Protocol

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.client.leaderelection import decide
from podscale.client.leaderelection.record import (
    LEASE_API_VERSION,
    LeaderElectionRecord,
    lease_for,
    record_from_lease,
    updated_lease,
)
from podscale.store.interface import Clock

__all__ = ["JITTER_FACTOR", "LeaderElectionConfig", "LeaderElector", "LeaseApi"]

JSON = dict[str, Any]
JITTER_FACTOR: Final = 1.2
_LEASE: Final[KindInfo] = kind_for(LEASE_API_VERSION, "Lease")
_LOG = logging.getLogger(__name__)


class LeaseApi(Protocol):
    """The verbs the elector uses; both transports (and so every ``ControllerApi``) have
    them. Failures raise ``podscale.client.http.ApiError``."""

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON: ...

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON: ...

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON: ...


@dataclass(frozen=True)
class LeaderElectionConfig:
    """client-go's ``LeaderElectionConfig`` for a Lease lock; defaults are its core
    clients' (15 s, 10 s, 2 s). Checked as ``NewLeaderElector`` checks it."""

    lease_name: str
    lease_namespace: str
    identity: str
    lease_duration: timedelta = timedelta(seconds=15)
    renew_deadline: timedelta = timedelta(seconds=10)
    retry_period: timedelta = timedelta(seconds=2)
    release_on_cancel: bool = True

    def __post_init__(self) -> None:
        zero = timedelta(0)
        if self.lease_duration <= self.renew_deadline:
            raise ValueError("leaseDuration must be greater than renewDeadline")
        if self.renew_deadline <= self.retry_period * JITTER_FACTOR:
            raise ValueError("renewDeadline must be greater than retryPeriod*JitterFactor")
        if self.lease_duration <= zero:
            raise ValueError("leaseDuration must be greater than zero")
        if self.renew_deadline <= zero:
            raise ValueError("renewDeadline must be greater than zero")
        if self.retry_period <= zero:
            raise ValueError("retryPeriod must be greater than zero")
        if not self.identity:
            raise ValueError("Lock identity is empty")

    @property
    def description(self) -> str:
        """``namespace/name``, as client-go's lock describes itself in logs."""
        return f"{self.lease_namespace}/{self.lease_name}"


class LeaderElector:
    """One candidate for the Lease ``config`` names; see the module docstring."""

    def __init__(
        self,
        api: LeaseApi,
        clock: Clock,
        config: LeaderElectionConfig,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self._api = api
        self._clock = clock
        self._config = config
        self._rng = rng if rng is not None else random.Random()
        self._observation: decide.Observation | None = None
        # The Lease as last read or written: its resourceVersion makes updates conditional.
        self._lease: JSON | None = None

    @property
    def config(self) -> LeaderElectionConfig:
        return self._config

    @property
    def is_leader(self) -> bool:
        """Whether the last observed record names this candidate (client-go's IsLeader)."""
        return self.leader == self._config.identity

    @property
    def leader(self) -> str:
        """The holder identity last observed ("" before any read, or when released)."""
        return self._observation.record.holder_identity if self._observation else ""

    @property
    def observed_time(self) -> datetime | None:
        """When this candidate last saw the record change (client-go's ``observedTime``):
        for a leader, its last renewal."""
        return self._observation.observed_at if self._observation else None

    def check(self, max_tolerable_expired_lease: timedelta) -> str | None:
        """client-go's ``Check`` (behind its ``HealthzAdaptor``): an error when we believe
        we lead but have not renewed for ``lease_duration + max_tolerable_expired_lease``
        (a leader that should have stepped down but is stuck); ``None`` when healthy."""
        if not self.is_leader or self._observation is None:
            return None
        silent = self._clock.now() - self._observation.observed_at
        if silent > self._config.lease_duration + max_tolerable_expired_lease:
            return f"failed election to renew leadership on lease {self._config.lease_name}"
        return None

    async def run(self, lead: Callable[[], Awaitable[None]]) -> None:
        """Acquire, lead while renewing, and step down; see the module docstring."""
        await self._acquire()
        lead_task: asyncio.Future[None] = asyncio.ensure_future(lead())
        renew_task = asyncio.ensure_future(self._renew())
        try:
            done, _ = await asyncio.wait(
                {lead_task, renew_task}, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            # The guarded work stops first (renewals continue while it winds down), then
            # renewal, then the Lease goes back (client-go's ReleaseOnCancel).
            await _stop(lead_task)
            await _stop(renew_task)
            if self._config.release_on_cancel:
                await self.release()
        if renew_task in done or lead_task.cancelled():
            return  # leadership lost (or lead() gave up by cancelling itself)
        lead_task.result()  # lead() ended by itself: its error, if any, is the caller's

    async def release(self) -> bool:
        """Give the Lease up if we hold it: no holder, a one-second lease. False when the
        write failed (the lease then simply expires)."""
        if not self.is_leader or self._observation is None or self._lease is None:
            return True
        record = decide.released(self._observation.record, self._clock.now())
        try:
            written = await self._api.update(
                _LEASE, self._config.lease_namespace, updated_lease(self._lease, record)
            )
        except Exception as err:  # any failure: the lease expires instead
            _LOG.error("Failed to release lock: %s", err)
            return False
        self._written(written, record)
        return True

    async def _acquire(self) -> None:
        # wait.JitterUntil, sliding: try now, then wait a jittered period after each try.
        _LOG.info("attempting to acquire leader lease %s...", self._config.description)
        while not await self.try_acquire_or_renew():
            factor = 1.0 + self._rng.random() * JITTER_FACTOR
            await asyncio.sleep(self._config.retry_period.total_seconds() * factor)
        _LOG.info("successfully acquired lease %s", self._config.description)

    async def _renew(self) -> None:
        """Renew every ``retry_period`` until a round fails for ``renew_deadline``."""
        retry = self._config.retry_period.total_seconds()
        while True:
            try:
                # The deadline also bounds the API calls in flight (client-go's ctx).
                async with asyncio.timeout(self._config.renew_deadline.total_seconds()):
                    while not await self.try_acquire_or_renew():
                        await asyncio.sleep(retry)
            except TimeoutError:
                _LOG.info("failed to renew lease %s: timed out", self._config.description)
                return
            await asyncio.sleep(retry)

    async def try_acquire_or_renew(self) -> bool:
        """One round of client-go's ``tryAcquireOrRenew``: True when we hold the Lease."""
        now = self._clock.now()
        config = self._config
        observation = self._observation
        # Fast path: while our term is live, update optimistically from what we last wrote.
        if (
            observation is not None
            and self._lease is not None
            and self.is_leader
            and decide.is_lease_valid(observation, now)
        ):
            record = decide.renewal(observation.record, now, config.lease_duration)
            if await self._update(record):
                return True
            _LOG.info("Failed to update lock optimistically, falling back to slow path")
        try:
            lease: JSON | None = await self._api.get(
                _LEASE, config.lease_namespace, config.lease_name
            )
        except ApiError as err:
            if err.status != 404:
                _LOG.error("error retrieving resource lock %s: %s", config.description, err)
                return False
            lease = None
        except Exception as err:  # transport failures are a failed round
            _LOG.error("error retrieving resource lock %s: %s", config.description, err)
            return False
        if lease is None:
            return await self._create(decide.new_term(config.identity, now, config.lease_duration))
        current = record_from_lease(lease)
        self._lease = lease
        self._observation = decide.observe(self._observation, current, self._clock.now())
        decision = decide.decide(
            current, self._observation.observed_at, now, config.identity, config.lease_duration
        )
        if isinstance(decision, decide.Wait):
            _LOG.debug("lock is held by %s and has not yet expired", decision.holder)
            return False
        return await self._update(decision.record)

    async def _create(self, record: LeaderElectionRecord) -> bool:
        config = self._config
        try:
            written = await self._api.create(
                _LEASE,
                config.lease_namespace,
                lease_for(config.lease_name, config.lease_namespace, record),
            )
        except Exception as err:  # 409: another candidate created it first
            _LOG.error("error initially creating leader election record: %s", err)
            return False
        self._written(written, record)
        return True

    async def _update(self, record: LeaderElectionRecord) -> bool:
        assert self._lease is not None  # only after a read or a write
        try:
            written = await self._api.update(
                _LEASE, self._config.lease_namespace, updated_lease(self._lease, record)
            )
        except Exception as err:  # 409: the Lease changed since we read it
            _LOG.error("Failed to update lock: %s", err)
            return False
        self._written(written, record)
        return True

    def _written(self, lease: JSON, record: LeaderElectionRecord) -> None:
        self._lease = lease
        self._observation = decide.Observation(record, self._clock.now())


async def _stop(task: asyncio.Future[None]) -> None:
    """Cancel ``task`` and wait until it has finished, whatever it ends with; a cancellation
    of the caller meanwhile still propagates (``asyncio.wait`` raises nothing of the task's)."""
    task.cancel()
    await asyncio.wait({task})
