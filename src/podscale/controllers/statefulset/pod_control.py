"""Pod I/O for the StatefulSet controller: create, update and delete pods; claim them.

Upstream's ``StatefulPodControl`` (pkg/controller/statefulset/stateful_pod_control.go):
every create, update and delete is reported as an Event on the set with upstream's texts
(``create Pod web-0 in StatefulSet web successful``, ``... failed error: <error>``), except
a create refused with AlreadyExists, which is returned silently (the cache was behind).
An identity update retries on conflicts against a fresh read. ``run_step`` runs one plan
step in slow-start batches (1, 2, 4, ...) that stop at the first failing batch; a rollout
deletion that finds the pod already gone is not an error. ``claim_stateful_pods`` applies
``ownership`` with a fresh read of the set before the first adoption (upstream's
``RecheckDeletionTimestamp``). Used by ``controller``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.replicaset.decisions import slow_start_batches
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_pods import claim_objects
from podscale.controllers.statefulset.identity import controller_ref, with_identity
from podscale.controllers.statefulset.ownership import claim_action
from podscale.controllers.statefulset.plan import PodAction
from podscale.controllers.statefulset.status import pod_event

__all__ = ["StatefulPodControl", "claim_stateful_pods"]

JSON = dict[str, Any]
_POD: Final = kind_for("v1", "Pod")
_STATEFUL_SET: Final = kind_for("apps/v1", "StatefulSet")
_UPDATE_ATTEMPTS: Final = 4  # client-go's retry.DefaultBackoff steps


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _ns(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("namespace") or "")


class StatefulPodControl:
    """Performs plan actions for one set and records an Event for each."""

    def __init__(self, api: ControllerApi, recorder: EventRecorder) -> None:
        self._api = api
        self._recorder = recorder

    async def run_step(self, sts: JSON, step: Sequence[PodAction]) -> Exception | None:
        """Run ``step`` in slow-start batches; the first error, if any."""
        done = 0
        for size in slow_start_batches(len(step)):
            batch = step[done : done + size]
            done += size
            results = await asyncio.gather(*(self._perform(sts, action) for action in batch))
            errors = [error for error in results if error is not None]
            if errors:
                return errors[0]
        return None

    async def _perform(self, sts: JSON, action: PodAction) -> Exception | None:
        if action.verb == "create":
            return await self._create(sts, action.pod)
        if action.verb == "update":
            return await self._update(sts, action.pod)
        error = await self._delete(sts, action.pod)
        if isinstance(error, ApiError) and error.status == 404 and action.cause == "outdated":
            return None
        return error

    async def _record(self, sts: JSON, verb: str, pod_name: str, error: Exception | None) -> None:
        event_type, reason, message = pod_event(
            verb, pod_name, str(_meta(sts).get("name", "")), None if error is None else str(error)
        )
        await self._recorder.record(sts, event_type, reason, message)

    async def _create(self, sts: JSON, pod: Mapping[str, Any]) -> Exception | None:
        name = str(_meta(pod).get("name", ""))
        try:
            await self._api.create(_POD, _ns(sts), dict(pod))
        except ApiError as err:
            if err.status == 409 and err.reason == "AlreadyExists":
                return err
            await self._record(sts, "create", name, err)
            return err
        await self._record(sts, "create", name, None)
        return None

    async def _update(self, sts: JSON, pod: Mapping[str, Any]) -> Exception | None:
        body = dict(pod)
        name = str(_meta(pod).get("name", ""))
        error: Exception | None = None
        for _ in range(_UPDATE_ATTEMPTS):
            try:
                await self._api.update(_POD, _ns(sts), body)
            except ApiError as err:
                error = err
                if err.status != 409:
                    break
                try:
                    body = with_identity(sts, await self._api.get(_POD, _ns(sts), name))
                except ApiError as get_err:
                    error = get_err
                    break
                continue
            error = None
            break
        await self._record(sts, "update", name, error)
        return error

    async def _delete(self, sts: JSON, pod: Mapping[str, Any]) -> Exception | None:
        name = str(_meta(pod).get("name", ""))
        try:
            await self._api.delete(_POD, _ns(pod) or _ns(sts), name)
        except ApiError as err:
            await self._record(sts, "delete", name, err)
            return err
        await self._record(sts, "delete", name, None)
        return None


async def claim_stateful_pods(api: ControllerApi, sts: JSON, pods: Sequence[JSON]) -> list[JSON]:
    """The pods ``sts`` owns after adopting and releasing (``ClaimPods`` with the set's
    rules, ``ownership.claim_action``); raises the first error after trying every pod (a
    pod that vanished meanwhile is skipped)."""
    return await claim_objects(api, sts, controller_ref(sts), pods, _POD, decide=claim_action)


def object_name(pod: Mapping[str, Any]) -> str:
    """``namespace/name (uid)``, as upstream names a pod in claim errors."""
    return f"{_ns(pod)}/{_meta(pod).get('name')} ({_meta(pod).get('uid')})"
