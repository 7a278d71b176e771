"""The controller manager: runs registered controllers on shared informers and work queues.

kube-controller-manager's loop in asyncio. Each ``Controller`` names the resources it
watches; the manager makes one shared informer per resource (``runtime_api.SharedInformers``),
hands each controller its own ``WorkQueue`` to bind its event handlers to, starts the
informers, waits until every one has listed (``WaitForCacheSync``), then runs N worker
tasks per controller. A worker takes a key, calls ``reconcile``; success ``forget``s the
key's backoff, an exception requeues it through the default controller rate limiter
(5 ms doubling to 1000 s, and 10 qps overall), and ``done`` always follows, as upstream's
``processNextWorkItem``; an unexpected error is one warning line, its traceback at debug
level. Every informer and every worker runs under the manager's ``Supervisor``
(``podscale.client.supervisor``, shared with the embedded plane): if one dies of an
unexpected exception it is restarted with exponential backoff, its fault counted and shown
by the supervisor's ``/readyz`` checks (``informer/<resource>``, ``controller/<name>``),
never taking the other controllers or the process down. Worker counts are flag-style
(``concurrent_replicaset_syncs``, default 5, as ``--concurrent-replicaset-syncs``). The
shared informers resync every ``DEFAULT_RESYNC`` (``--min-resync-period``, 12 h) unless
told otherwise: every cached object is re-delivered as an update, which re-enqueues e.g.
every ReplicaSet. Upstream
stretches the period by a random factor in [1, 2) once per process; we keep the lower
bound so that runs are reproducible. ``resync=None`` turns resyncs off.

An informer a controller asks for while the manager runs (the garbage collector's, for a
kind a CustomResourceDefinition added) is started at once under the same supervisor, and
stopped when ``SharedInformers.release`` drops its last handler.

Time comes from the injected clock and waiting from asyncio only, so the whole manager
runs unchanged on ``podscale.runtime``'s virtual-time loop. ``run`` returns after
``stop``; cancelling ``run`` also stops everything (no task outlives it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from functools import partial
from typing import Final, Protocol

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.client.informer import Informer
from podscale.client.supervisor import Supervisor
from podscale.client.workqueue import WorkQueue
from podscale.client.workqueue_metrics import NOOP_QUEUE_METRICS, QueueMetricsProvider
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.store.interface import Clock

__all__ = ["DEFAULT_RESYNC", "DEFAULT_WORKERS", "Controller", "ControllerManager"]

_LOG = logging.getLogger(__name__)

# kube-controller-manager's defaults for the --concurrent-*-syncs flags.
DEFAULT_WORKERS: Final[Mapping[str, int]] = {
    "concurrent_replicaset_syncs": 5,
    "concurrent_deployment_syncs": 5,
    "concurrent_statefulset_syncs": 5,
    "concurrent_gc_syncs": 20,
    "concurrent_horizontal_pod_autoscaler_syncs": 5,
    "concurrent_namespace_syncs": 10,
}
# kube-controller-manager's --min-resync-period default.
DEFAULT_RESYNC: Final = timedelta(hours=12)


class Controller(Protocol):
    """One control loop. ``reconcile`` is level-triggered: it reads the current state of
    ``key`` (``namespace/name``) from listers and acts; raising requeues with backoff."""

    @property
    def name(self) -> str:
        """Short name, e.g. ``replicaset``."""
        ...

    @property
    def workers_flag(self) -> str:
        """The worker-count flag this controller reads, e.g. ``concurrent_replicaset_syncs``."""
        ...

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        """The resources whose shared informers this controller reads and watches."""
        ...

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        """Take the listers and add event handlers that enqueue keys on ``queue``."""
        ...

    async def reconcile(self, key: str) -> None: ...


class ControllerManager:
    """Runs controllers over ``api``; ``workers`` overrides ``DEFAULT_WORKERS`` by flag."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        workers: Mapping[str, int] | None = None,
        resync: timedelta | None = DEFAULT_RESYNC,
        supervisor: Supervisor | None = None,
        queue_metrics: QueueMetricsProvider | None = None,
        shutdown_grace: timedelta = timedelta(0),
    ) -> None:
        self._api = api
        # Work queue metrics (``podscale controller-manager``'s /metrics), per controller
        # queue named after the controller, as kube-controller-manager names its queues.
        self._queue_metrics = queue_metrics
        self._supervisor = supervisor if supervisor is not None else Supervisor(clock)
        self._clock = clock
        self._workers = {**DEFAULT_WORKERS, **(workers or {})}
        self._informers = SharedInformers(api, clock, resync=resync)
        self._controllers: list[tuple[Controller, WorkQueue[str]]] = []
        # After ``stop``, how long workers may finish the item in hand before they are
        # cancelled (``podscale controller-manager --shutdown-grace-period``); none of them
        # takes another item meanwhile.
        self._shutdown_grace = shutdown_grace
        self._draining = False
        self._stop = asyncio.Event()
        self._started = asyncio.Event()

    @property
    def informers(self) -> SharedInformers:
        return self._informers

    @property
    def supervisor(self) -> Supervisor:
        """Restarts failed informers and workers; its checks and metrics show the faults."""
        return self._supervisor

    def register(self, controller: Controller) -> WorkQueue[str]:
        """Add ``controller`` (before ``run``); returns the queue it was bound to."""
        if self._started.is_set():
            raise RuntimeError("controllers must be registered before the manager runs")
        metrics = (
            self._queue_metrics.queue_metrics(controller.name)
            if self._queue_metrics is not None
            else NOOP_QUEUE_METRICS
        )
        queue: WorkQueue[str] = WorkQueue(self._clock, metrics=metrics)
        for kind in controller.informer_kinds:
            self._informers.informer_for(kind)
        controller.bind(self._informers, queue)
        self._controllers.append((controller, queue))
        self._supervisor.register(_worker_component(controller))
        return queue

    def workers_for(self, controller: Controller) -> int:
        """How many workers ``controller`` gets (at least one)."""
        return max(1, int(self._workers.get(controller.workers_flag, 1)))

    async def wait_started(self) -> None:
        """Return once every informer has synced and the workers are running."""
        await self._started.wait()

    def stop(self) -> None:
        """Ask ``run`` to finish: queues drain no further, workers end after their item
        (cancelled at once, or after ``shutdown_grace`` at most)."""
        self._stop.set()

    async def run(self) -> None:
        """Start informers, wait for their caches, run the workers until ``stop``."""
        informer_tasks = [
            asyncio.create_task(self._supervisor.run(f"informer/{name}", informer.run))
            for name, informer in self._informers.named()
        ]
        worker_tasks: list[asyncio.Task[None]] = []

        def start_later(name: str, informer: Informer) -> Callable[[], None]:
            # An informer a controller asks for while running (a kind a CRD added).
            task = asyncio.create_task(self._supervisor.run(f"informer/{name}", informer.run))
            informer_tasks.append(task)

            def stop() -> None:
                task.cancel()

            return stop

        self._informers.start_new_with(start_later)
        try:
            for informer in self._informers.all():
                await informer.wait_synced()
            for controller, queue in self._controllers:
                for index in range(self.workers_for(controller)):
                    task = asyncio.create_task(
                        self._supervisor.run(
                            _worker_component(controller), partial(self._work, controller, queue)
                        ),
                        name=f"{controller.name}-worker-{index}",
                    )
                    worker_tasks.append(task)
            self._started.set()
            await self._stop.wait()
        finally:
            self._informers.start_new_with(None)
            self._draining = True
            for _, queue in self._controllers:
                queue.shut_down()
            grace = self._shutdown_grace.total_seconds()
            if self._stop.is_set() and grace > 0 and worker_tasks:
                await asyncio.wait(worker_tasks, timeout=grace)
            await _cancel_all(worker_tasks)
            for informer in self._informers.all():
                informer.stop()
            await _cancel_all(informer_tasks)

    async def _work(self, controller: Controller, queue: WorkQueue[str]) -> None:
        while True:
            key = await queue.get()
            if key is None:
                return
            if self._draining:  # stopping: the item stays undone (the next leader syncs it)
                queue.done(key)
                return
            try:
                await controller.reconcile(key)
            except asyncio.CancelledError:
                raise
            except ApiError as err:
                # A 409 is the optimistic lock doing its job (a stale cache read): routine,
                # retried, no traceback. Other API errors are worth one line each.
                level = logging.DEBUG if err.status == 409 else logging.WARNING
                _LOG.log(level, "error syncing %s %r: %s; requeuing", controller.name, key, err)
                queue.add_rate_limited(key)
            except Exception as err:
                # One line per failure; the traceback only at debug level, so a key that
                # keeps failing (retried with backoff) cannot flood the log.
                _LOG.warning(
                    "error syncing %s %r: %s: %s; requeuing",
                    controller.name,
                    key,
                    type(err).__name__,
                    err,
                )
                _LOG.debug("error syncing %s %r", controller.name, key, exc_info=err)
                queue.add_rate_limited(key)
            else:
                queue.forget(key)
            finally:
                queue.done(key)


def _worker_component(controller: Controller) -> str:
    return f"controller/{controller.name}"


async def _cancel_all(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task
