"""The usage-history controller shell: gathers each minute's usage and writes the history.

Every minute on the injected clock (one work-queue key, ``TICK``, re-added with
``add_after`` at the next minute boundary, so virtual time jumps from minute to minute with
no loop sleeping), ``reconcile`` lists the autoscalers from the informers' caches
(HorizontalPodAutoscalers, and PredictiveHorizontalPodAutoscalers and Crane
EffectiveHorizontalPodAutoscalers while their CRDs are served: ``kinds`` and
``webapp.definition_gate``), finds each distinct target's pods as the HPA controller does
(``hpa.scale_target``: ``/scale``'s ``status.selector``), sums their metrics.k8s.io usage
through the HPA controller's ``MetricsClient`` (CPU and memory in one read where the client
can: ``ResourcesReader``) and hands everything to ``points.build_points``,
whose points it writes to the history store (``ControllerContext.history``).

A failure never stops the recording: a target whose scale or metrics cannot be read has no
usage point that minute, and any other error is logged and the next minute tries again.
Without a history store the controller stays idle. Registered in ``controllers.registry``
as ``usage-history-controller``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final, Protocol, TypeGuard, runtime_checkable

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import SelectorError, parse_selector
from podscale.client.cache import Lister
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_owners import meta
from podscale.controllers.usagehistory.kinds import CUSTOM_AUTOSCALERS, HPA
from podscale.controllers.usagehistory.points import (
    Target,
    Usage,
    build_points,
    next_minute,
    targets_of,
)
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.history import SeriesStore
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.store.interface import Clock

__all__ = ["TICK", "ResourcesReader", "UsageHistoryController", "reads_resources", "usage_sums"]

_LOG = logging.getLogger(__name__)
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
TICK: Final = "usage-history/tick"

JSON = dict[str, Any]


class UsageHistoryController:
    """Writes every autoscaled workload's per-minute series; see the module docstring."""

    name: Final = "usagehistory"
    workers_flag: Final = "concurrent_usage_history_syncs"
    # The custom autoscalers' informers are made in ``bind`` with their CRD-gated sources.
    informer_kinds: Final[Sequence[KindInfo]] = (HPA, CRD)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        metrics: MetricsClient | None,
        history: SeriesStore | None,
    ) -> None:
        self._api = api
        self._clock = clock
        self._metrics = metrics
        self._history = history
        self._sources = {g.crd_name: GatedListWatcher(api, g.kind) for g in CUSTOM_AUTOSCALERS}
        self._queue: WorkQueue[str] | None = None
        self._listers: list[Lister] = []

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        self._listers = [informers.informer_for(HPA).lister]
        for gated in CUSTOM_AUTOSCALERS:
            source = self._sources[gated.crd_name]
            self._listers.append(informers.informer_for(gated.kind, source).lister)
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        if self._history is not None:
            queue.add(TICK)  # the first tick runs once the caches have synced

    def _crd_seen(self, crd: JSON) -> None:
        source = self._sources.get(str(meta(crd).get("name") or ""))
        if source is not None and established(crd):
            source.open()

    # -- the minute -------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Record this minute, then wake at the next minute boundary."""
        if key != TICK or self._queue is None or self._history is None:
            return
        try:
            await self._record(self._history)
        except asyncio.CancelledError:
            raise
        except Exception:
            _LOG.exception("recording the usage history failed; retrying next minute")
        now = self._clock.now()
        self._queue.add_after(TICK, next_minute(now) - now)

    async def _record(self, history: SeriesStore) -> None:
        now = self._clock.now()
        autoscalers = [obj for lister in self._listers for obj in lister.list()]
        usage: dict[Target, Usage] = {}
        for target in targets_of(autoscalers):
            sums = await self._usage_of(target)
            if sums is not None:
                usage[target] = sums
        points = build_points(now, usage, autoscalers)
        for series_key, point in sorted(points.items()):
            history.write(series_key, [point])

    async def _usage_of(self, target: Target) -> Usage | None:
        if self._metrics is None:
            return None
        ref = {"apiVersion": target.api_version, "kind": target.kind, "name": target.name}
        try:
            mappings = await resolve_target(self._api, ref)
            scale, _ = await read_scale(self._api, mappings, target.namespace, target.name)
        except ScaleTargetError as err:
            _LOG.debug("no usage for %s/%s: %s", target.namespace, target.name, err.message)
            return None
        selector = str((scale.get("status") or {}).get("selector") or "")
        if not selector:
            return None  # no pods to sum yet (or a scale without a selector)
        try:
            parse_selector(selector)
        except SelectorError:
            return None
        return await usage_sums(self._metrics, target, selector)


async def usage_sums(metrics: MetricsClient, target: Target, selector: str) -> Usage:
    """The summed CPU and memory usage of the pods ``selector`` matches in the target's
    namespace (each None when it cannot be read), through ``metrics``."""
    totals_of = getattr(metrics, "resource_totals", None)
    if totals_of is not None:
        # The sums alone (``InProcessMetricsClient.resource_totals``), from the same read.
        totals = await totals_of(_RESOURCES, target.namespace, selector)
        return Usage(*(_total(target, r, totals[r]) for r in _RESOURCES))
    if reads_resources(metrics):
        # Both sums over one read of the pods' usage (the same answers: nothing waits
        # between the two reads it replaces).
        answers = await metrics.resource_metrics(_RESOURCES, target.namespace, selector, None)
        return Usage(*(_total(target, r, answers[r]) for r in _RESOURCES))
    sums: list[int | None] = []
    for resource in _RESOURCES:
        try:
            answer = await metrics.resource_metric(resource, target.namespace, selector, None)
        except MetricsUnavailable as err:
            sums.append(_total(target, resource, err))
        else:
            sums.append(_total(target, resource, answer))
    return Usage(*sums)


@runtime_checkable
class ResourcesReader(Protocol):
    """A ``MetricsClient`` that reads several resources of the same pods at once
    (``InProcessMetricsClient.resource_metrics``): each one's ``resource_metric`` answer,
    or the error it would raise."""

    async def resource_metrics(
        self, resources: Sequence[str], namespace: str, selector: str, container: str | None
    ) -> Mapping[str, tuple[dict[str, PodMetric], datetime] | MetricsUnavailable]: ...


def reads_resources(metrics: MetricsClient) -> TypeGuard[ResourcesReader]:
    """``isinstance(metrics, ResourcesReader)`` without the work the protocol's instance
    check repeats at every call (asked per target every minute): the two ways it admits
    an object for a protocol of methods, its class (``issubclass``, kept per class by the
    ABC machinery as ``isinstance``'s own is) or the attribute read on the object."""
    return (
        issubclass(metrics.__class__, ResourcesReader)
        or getattr(metrics, "resource_metrics", None) is not None
        or issubclass(type(metrics), ResourcesReader)
    )


_RESOURCES: Final = ("cpu", "memory")


def _total(
    target: Target,
    resource: str,
    answer: tuple[dict[str, PodMetric], datetime] | int | MetricsUnavailable,
) -> int | None:
    """The pods' summed ``resource`` usage, or None (logged) when it could not be read."""
    if isinstance(answer, MetricsUnavailable):
        _LOG.debug("no %s usage for %s/%s: %s", resource, target.namespace, target.name, answer)
        return None
    if isinstance(answer, int):
        return answer
    samples, _ = answer
    return sum(sample.value for sample in samples.values())
