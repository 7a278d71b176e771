"""Supervision: long-running components that survive their own unexpected errors.

client-go never lets one loop take a process down for an API error: a reflector whose
list or watch fails retries through a backoff manager (wait.BackoffUntil, exponential up to
a cap, reset after a healthy stretch), a controller's sync error is requeued with backoff.
``Supervisor.run(name, target)`` is that for podscale's asyncio components: the controller
manager's informers and workers (``podscale.controllers.manager``), and the embedded plane's
node heartbeats, metrics scrapes and load publisher (``podscale.plane.embedded``). When
``target`` raises, the supervisor logs one line (the traceback only at debug level, and
the line itself at most once per ``log_interval`` per component, so a crash loop cannot
flood the log), counts the fault, waits the backoff and runs ``target`` again; when it
returns, supervision ends. Cancellation passes straight through.

The schedule is pure (``backoff_delay``, ``next_failure_count``): ``initial`` doubling to
``cap``; a run that lasted ``reset_after`` starts the count again. Time comes from the
injected clock and waiting from asyncio (or the injected ``sleep``), so on
``podscale.runtime``'s virtual-time loop a backoff takes no real time.

What it shows: ``checks()`` are ``HealthCheck``s for ``/readyz`` (``podscale.apiserver
.health``), one per component name, failing while any task of that name waits out a
backoff; ``collect()`` makes it a ``prometheus_client`` collector for ``/metrics``:
``podscale_supervised_component_failures_total`` and
``podscale_supervised_component_backoff`` per component.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from podscale.api.exposition import render_text
from podscale.apiserver.http.health import HealthCheck
from podscale.store.interface import Clock

__all__ = [
    "DEFAULT_BACKOFF",
    "Backoff",
    "Supervisor",
    "backoff_delay",
    "backoff_schedule",
    "next_failure_count",
]

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Restart delays: ``initial`` times ``factor`` per consecutive failure, at most
    ``cap``; a run that lasted at least ``reset_after`` counts as healthy again."""

    initial: timedelta = timedelta(seconds=1)
    factor: float = 2.0
    cap: timedelta = timedelta(seconds=30)
    reset_after: timedelta = timedelta(minutes=2)

    def __post_init__(self) -> None:
        if self.initial <= timedelta(0) or self.cap < self.initial or self.factor < 1.0:
            raise ValueError("backoff needs 0 < initial <= cap and factor >= 1")


# client-go's reflector backoff caps at 30 s and resets after 2 minutes; it starts at
# 800 ms with jitter, we start at a round second and leave jitter out (reproducible runs).
DEFAULT_BACKOFF: Final = Backoff()
# A crash-looping component logs its one line at most this often (debug otherwise).
DEFAULT_LOG_INTERVAL: Final = timedelta(minutes=1)


def backoff_delay(policy: Backoff, failures: int) -> timedelta:
    """The wait after the ``failures``-th consecutive failure (1 for the first)."""
    if failures < 1:
        raise ValueError("failures counts from 1")
    cap = policy.cap.total_seconds()
    seconds = policy.initial.total_seconds()
    for _ in range(failures - 1):
        seconds *= policy.factor
        if seconds >= cap:
            return policy.cap
    return timedelta(seconds=min(seconds, cap))


def backoff_schedule(policy: Backoff, count: int) -> list[timedelta]:
    """The first ``count`` delays of an uninterrupted crash loop."""
    return [backoff_delay(policy, failures) for failures in range(1, count + 1)]


def next_failure_count(policy: Backoff, previous: int, ran_for: timedelta) -> int:
    """The consecutive-failure count after a run of ``ran_for`` failed."""
    return 1 if ran_for >= policy.reset_after else previous + 1


@dataclass
class _Component:
    """Mutable bookkeeping of one component name (several tasks may share it)."""

    failures: int = 0
    in_backoff: int = 0
    last_error: str = ""
    last_logged: datetime | None = None


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Supervisor:
    """Runs components with restarts; see the module docstring."""

    def __init__(
        self,
        clock: Clock,
        *,
        backoff: Backoff = DEFAULT_BACKOFF,
        log_interval: timedelta = DEFAULT_LOG_INTERVAL,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._clock = clock
        self._backoff = backoff
        self._log_interval = log_interval
        self._sleep = sleep
        self._components: dict[str, _Component] = {}

    @property
    def backoff(self) -> Backoff:
        return self._backoff

    def register(self, name: str) -> None:
        """Make ``name`` known (listed by ``checks`` and the metrics) before it first runs."""
        self._components.setdefault(name, _Component())

    @property
    def names(self) -> list[str]:
        return list(self._components)

    def failures(self, name: str) -> int:
        """Unexpected failures of ``name`` so far."""
        component = self._components.get(name)
        return 0 if component is None else component.failures

    def in_backoff(self, name: str) -> bool:
        component = self._components.get(name)
        return component is not None and component.in_backoff > 0

    def last_error(self, name: str) -> str:
        component = self._components.get(name)
        return "" if component is None else component.last_error

    async def run(self, name: str, target: Callable[[], Awaitable[None]]) -> None:
        """Run ``target`` until it returns, restarting it after each unexpected exception."""
        self.register(name)
        component = self._components[name]
        consecutive = 0
        while True:
            started = self._clock.now()
            try:
                await target()
                return
            except asyncio.CancelledError:
                raise
            except Exception as err:
                now = self._clock.now()
                consecutive = next_failure_count(self._backoff, consecutive, now - started)
                delay = backoff_delay(self._backoff, consecutive)
                component.failures += 1
                component.last_error = _describe(err)
                self._log_failure(name, component, err, delay, now)
            component.in_backoff += 1
            try:
                await self._sleep(delay.total_seconds())
            finally:
                component.in_backoff -= 1

    def _log_failure(
        self, name: str, component: _Component, err: Exception, delay: timedelta, now: datetime
    ) -> None:
        loud = component.last_logged is None or now - component.last_logged >= self._log_interval
        if loud:
            component.last_logged = now
        _LOG.log(
            logging.WARNING if loud else logging.DEBUG,
            "%s failed (%d failures so far): %s; restarting in %gs",
            name,
            component.failures,
            component.last_error,
            delay.total_seconds(),
        )
        _LOG.debug("%s failure traceback", name, exc_info=err)

    def check(self, name: str) -> str | None:
        """None when ``name`` runs, else why it does not (for ``/readyz/<name>``)."""
        component = self._components.get(name)
        if component is None or component.in_backoff == 0:
            return None
        return f"restarting after a failure: {component.last_error}"

    def checks(self) -> list[HealthCheck]:
        """One readiness check per component name known now."""
        return [HealthCheck(name, self._checker(name)) for name in self._components]

    def _checker(self, name: str) -> Callable[[], str | None]:
        return lambda: self.check(name)

    def collect(self) -> Iterable[Metric]:
        """The fault counter and the backoff gauge per component (a ``prometheus_client``
        collector: the embedded plane registers it on its server's registry)."""
        failures = CounterMetricFamily(
            "podscale_supervised_component_failures",
            "Unexpected failures of a supervised component; each restarts it after a backoff.",
            labels=("component",),
        )
        backoff = GaugeMetricFamily(
            "podscale_supervised_component_backoff",
            "Tasks of a supervised component waiting out a restart backoff.",
            labels=("component",),
        )
        for name, component in sorted(self._components.items()):
            failures.add_metric((name,), component.failures)
            backoff.add_metric((name,), component.in_backoff)
        return [failures, backoff]

    def render_metrics(self) -> str:
        """``collect``'s families in Prometheus' text format."""
        return render_text(self)
