"""The CronHorizontalPodAutoscaler controller shell: its informer, its timers and the sync.

Upstream runs a cron engine next to a reconciler; here both are one per-key sync on the
injected clock. A CronHorizontalPodAutoscaler event enqueues its ``namespace/name``;
``reconcile`` reads the object afresh (its status may have just been written), asks
``decisions.plan_jobs`` which jobs run (kept, resubmitted, dropped, or missed while no
controller ran), runs the jobs that are due (``scaling``: a target's ``/scale``, or an
HPA's bounds), writes the conditions through the ``status`` subresource, records
upstream's events (``Succeed``, ``Failed``, ``OutOfDate``) and wakes itself at the next
fire time with the work queue's ``add_after``: no loop sleeps, so virtual time jumps from
one fire time to the next. What runs where is kept in memory per object (``Scheduled``),
as upstream's job queue; a restart rebuilds it from the objects' conditions.

Schedules run in the object's ``kind.TIMEZONE_ANNOTATION`` zone, else the controller's
(``--cronhpa-timezone``). The informer waits for the CRD as the WebApp operator's does
(``webapp.definition_gate``). Registered in ``controllers.registry``.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.cronhpa.decisions import (
    Plan,
    Scheduled,
    after_run,
    due_jobs,
    excluded_by,
    failed_message,
    next_wake,
    plan_jobs,
    replace_condition,
    skipped_detail,
    succeeded_message,
    zone_for,
)
from podscale.controllers.cronhpa.kind import (
    CRD_NAME,
    CRONHPA,
    DEFAULT_MISFIRE_GRACE,
    TIMEZONE_ANNOTATION,
)
from podscale.controllers.cronhpa.scaling import JobFailed, scale_hpa, scale_plain
from podscale.controllers.cronhpa.types import Condition, JobState, read_spec, read_status
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "CronHorizontalPodAutoscalerController"]

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
# Upstream's event recorder name.
COMPONENT: Final = "CronHorizontalPodAutoscaler"
REASON_OUT_OF_DATE: Final = "OutOfDate"
_MERGE_PATCH: Final = "application/merge-patch+json"

JSON = dict[str, Any]
Event = tuple[str, str, str]  # type, reason, message


class CronHorizontalPodAutoscalerController:
    """Runs CronHorizontalPodAutoscaler jobs at their times; see the module docstring."""

    name: Final = "cronhpa"
    workers_flag: Final = "concurrent_cronhpa_syncs"
    # The CronHPA informer is made in ``bind`` with its CRD-gated source.
    informer_kinds: Final[Sequence[KindInfo]] = (CRD,)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        zone: ZoneInfo | None = None,
        rng: random.Random | None = None,
        grace: timedelta = DEFAULT_MISFIRE_GRACE,
    ) -> None:
        self._api = api
        self._clock = clock
        self._zone = zone if zone is not None else ZoneInfo("UTC")
        self._rng = rng if rng is not None else random.Random(0)
        self._grace = grace
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, CRONHPA)
        self._queue: WorkQueue[str] | None = None
        # Per object key, its jobs by name: upstream's in-memory job queue.
        self._jobs: dict[str, dict[str, Scheduled]] = {}

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        cronhpas = informers.informer_for(CRONHPA, self._source)
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        cronhpas.add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), self._enqueue)
        )

    def _bound(self) -> WorkQueue[str]:
        if self._queue is None:
            raise RuntimeError("CronHorizontalPodAutoscalerController used before bind()")
        return self._queue

    def _crd_seen(self, crd: JSON) -> None:
        if meta(crd).get("name") == CRD_NAME and established(crd):
            self._source.open()

    def _enqueue(self, obj: JSON) -> None:
        self._bound().add(object_key(obj))

    def _new_id(self) -> str:
        # Upstream's ids are random UUIDs; drawn from the controller's seeded generator so
        # a scenario replays with the same ids.
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Plan the object's jobs, run the due ones, write status, wake at the next fire."""
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(CRONHPA, namespace, name)
        except ApiError as err:
            if err.status == 404:
                self._jobs.pop(key, None)  # upstream's GC of a deleted object's jobs
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            self._jobs.pop(key, None)
            return
        now = self._clock.now()
        annotation = (meta(obj).get("annotations") or {}).get(TIMEZONE_ANNOTATION)
        plan = plan_jobs(
            read_spec(obj),
            read_status(obj),
            self._jobs.get(key, {}),
            now=now,
            zone=zone_for(annotation, self._zone),
            new_id=self._new_id,
            where=(name, namespace),
            grace=self._grace,
        )
        scheduled = dict(plan.scheduled)
        conditions = plan.conditions
        events: list[Event] = []
        for job_name in due_jobs(scheduled, now):
            entry = scheduled[job_name]
            if job_name in plan.late:
                events.append(("Warning", REASON_OUT_OF_DATE, f"rerun out of date job: {job_name}"))
            condition = await self._run(namespace, plan, entry, now)
            conditions = replace_condition(conditions, condition)
            scheduled[job_name] = after_run(entry, now)
            kind = "Normal" if condition.state == JobState.SUCCEED else "Warning"
            events.append((kind, str(condition.state), condition.message))
        self._jobs[key] = scheduled
        await self._write_status(obj, plan, conditions, events)
        wake = next_wake(scheduled.values())
        if wake is not None:
            self._bound().add_after(key, max(wake - self._clock.now(), timedelta(0)))

    async def _run(self, namespace: str, plan: Plan, entry: Scheduled, now: datetime) -> Condition:
        job = entry.job
        done = Condition(
            job.name,
            entry.job_id,
            job.schedule,
            job.target_size,
            job.run_once,
            JobState.SUCCEED,
            now,
        )
        skipping = excluded_by(plan.exclude_dates, now, entry.zone)
        if skipping is not None:
            return replace(done, message=succeeded_message(job, skipped_detail(skipping)))
        run = scale_hpa if plan.target.is_hpa else scale_plain
        try:
            detail = await run(self._api, namespace, plan.target, job.target_size)
        except JobFailed as err:
            return replace(done, state=JobState.FAILED, message=failed_message(err.message))
        return replace(done, message=succeeded_message(job, detail))

    async def _write_status(
        self, obj: JSON, plan: Plan, conditions: Sequence[Condition], events: Sequence[Event]
    ) -> None:
        status = {
            "scaleTargetRef": plan.target.to_json(),
            "excludeDates": list(plan.exclude_dates),
            "conditions": [c.to_json() for c in conditions],
        }
        if (obj.get("status") or {}) != status:
            try:
                await self._api.patch(
                    CRONHPA,
                    meta(obj).get("namespace"),
                    str(meta(obj).get("name")),
                    {"status": status},
                    content_type=_MERGE_PATCH,
                    subresource="status",
                )
            except ApiError as err:
                if err.status == 404:
                    return  # deleted meanwhile: nothing to report on
                if events:
                    message = f"Failed to update cronhpa status: {err}"
                    await self._recorder.record(obj, "Warning", "Failed", message)
                raise
        for event_type, reason, message in events:
            await self._recorder.record(obj, event_type, reason, message)
