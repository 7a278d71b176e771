"""Pod I/O for workload controllers: create in slow-start batches, delete, adopt, release.

Upstream's ``RealPodControl`` and ``PodControllerRefManager.ClaimPods``
(pkg/controller/controller_utils.go, controller_ref_manager.go). Creation sends
``replicaset.pod_from_template`` named ``<rs>-<5 random>`` from the injected RNG (what the
API server's ``generateName`` would pick; a name already taken is retried with a new
suffix, as the server does), in batches of 1, 2, 4, ... that stop at the first error. Each
success and failure is reported as an Event (SuccessfulCreate/FailedCreate,
SuccessfulDelete/FailedDelete) with upstream's messages. Claiming patches ownerReferences
with strategic-merge patches carrying a uid precondition, and adopts only after a fresh
read shows the owner still exists and is not being deleted; as ``ReleasePod``, a release
answered 404 or 422 is ignored. Used by ``replicaset.controller``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.controllers.replicaset.decisions import slow_start_batches
from podscale.controllers.replicaset.ownership import claim_action
from podscale.controllers.replicaset.status import (
    created_event_message,
    deleted_event_message,
    failed_create_event_message,
    failed_delete_event_message,
)
from podscale.controllers.replicaset.template import (
    controller_ref,
    pod_from_template,
    pod_name,
    random_suffix,
)
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import adoption_patch, release_patch
from podscale.hpa.pods import parse_time

__all__ = ["PodControl", "claim_objects", "claim_pods"]

JSON = dict[str, Any]
_POD: Final = kind_for("v1", "Pod")
_NAME_ATTEMPTS: Final = 8  # the API server's retries of a taken generated name
_NAMESPACE_TERMINATING: Final = "NamespaceTerminating"


def _is_namespace_terminating(err: ApiError) -> bool:
    causes = (err.body.get("details") or {}).get("causes") or ()
    return any(cause.get("type") == _NAMESPACE_TERMINATING for cause in causes)


class PodControl:
    """Creates and deletes a controller's pods and reports each as an Event."""

    def __init__(self, api: ControllerApi, recorder: EventRecorder, rng: random.Random) -> None:
        self._api = api
        self._recorder = recorder
        self._rng = rng

    async def create_pods(self, owner: JSON, count: int) -> tuple[int, Exception | None]:
        """Create ``count`` pods in slow-start batches: (successes, first error)."""
        successes = 0
        for size in slow_start_batches(count):
            results = await asyncio.gather(*(self._create_one(owner) for _ in range(size)))
            errors = [error for error in results if error is not None]
            successes += size - len(errors)
            if errors:
                return successes, errors[0]
        return successes, None

    async def _create_one(self, owner: JSON) -> Exception | None:
        meta = owner.get("metadata") or {}
        pod = pod_from_template(owner)
        if not (pod.get("metadata") or {}).get("labels"):
            return ValueError("unable to create pods, no labels")
        for attempt in range(_NAME_ATTEMPTS):
            pod["metadata"]["name"] = pod_name(str(meta.get("name", "")), random_suffix(self._rng))
            try:
                created = await self._api.create(_POD, str(meta.get("namespace") or ""), pod)
            except ApiError as err:
                taken = err.status == 409 and err.reason == "AlreadyExists"
                if taken and attempt + 1 < _NAME_ATTEMPTS:
                    continue  # the server's generateName retry, done here
                if _is_namespace_terminating(err):
                    return None  # every creation would fail; nothing to report or retry
                # Like any failed create (the server's retries exhausted included).
                await self._recorder.record(
                    owner, "Warning", "FailedCreate", failed_create_event_message(str(err))
                )
                return err
            name = str(created["metadata"]["name"])
            await self._recorder.record(
                owner, "Normal", "SuccessfulCreate", created_event_message(name)
            )
            return None
        raise AssertionError("unreachable: the last attempt returns")

    async def delete_pods(
        self, owner: JSON, pods: list[JSON]
    ) -> tuple[list[str], Exception | None]:
        """Delete ``pods`` concurrently: (keys of pods not deleted, first error other than
        NotFound). A pod already gone counts as not deleted but is no error."""
        results = await asyncio.gather(*(self._delete_one(owner, pod) for pod in pods))
        failed = [object_key(pod) for pod, result in zip(pods, results, strict=True) if result]
        errors = [result for result in results if isinstance(result, Exception)]
        return failed, errors[0] if errors else None

    async def _delete_one(self, owner: JSON, pod: JSON) -> Exception | bool | None:
        meta = pod.get("metadata") or {}
        name = str(meta.get("name", ""))
        try:
            await self._api.delete(_POD, str(meta.get("namespace") or ""), name)
        except ApiError as err:
            if err.status == 404:
                return True  # already gone: nothing to report
            await self._recorder.record(
                owner, "Warning", "FailedDelete", failed_delete_event_message(str(err))
            )
            return RuntimeError(f"unable to delete pods: {err}")
        await self._recorder.record(
            owner, "Normal", "SuccessfulDelete", deleted_event_message(name)
        )
        return None


def _go_time(text: object) -> str:
    """A timestamp as Go's ``%v`` prints a ``*metav1.Time`` (``2026-03-01 00:00:00 +0000 UTC``)."""
    if not isinstance(text, str) or not text:
        return str(text)
    return parse_time(text).strftime("%Y-%m-%d %H:%M:%S +0000 UTC")


async def _can_adopt(
    api: ControllerApi, owner: Mapping[str, Any], owner_ref: Mapping[str, Any]
) -> Exception | None:
    """Upstream's ``RecheckDeletionTimestamp``: a fresh read, not the cache."""
    meta = owner.get("metadata") or {}
    kind = kind_for(str(owner_ref.get("apiVersion")), str(owner_ref.get("kind")))
    namespace, name = str(meta.get("namespace") or ""), str(meta.get("name", ""))
    try:
        fresh = await api.get(kind, namespace, name)
    except ApiError as err:
        return RuntimeError(f"can't recheck DeletionTimestamp: {err}")
    fresh_meta = fresh.get("metadata") or {}
    if fresh_meta.get("uid") != meta.get("uid"):
        gone = (
            f"original {owner_ref.get('kind')} {namespace}/{name} is gone: "
            f"got uid {fresh_meta.get('uid')}, wanted {meta.get('uid')}"
        )
        return RuntimeError(f"can't recheck DeletionTimestamp: {gone}")
    if fresh_meta.get("deletionTimestamp"):
        when = _go_time(fresh_meta["deletionTimestamp"])
        return RuntimeError(f"{namespace}/{name} has just been deleted at {when}")
    return None


async def claim_pods(api: ControllerApi, owner: JSON, pods: list[JSON]) -> list[JSON]:
    """The pods the ReplicaSet ``owner`` controls after adopting matching orphans and
    releasing pods that stopped matching (``ClaimPods``); see ``claim_objects``."""
    return await claim_objects(api, owner, controller_ref(owner), pods, _POD)


async def claim_objects(
    api: ControllerApi,
    owner: Mapping[str, Any],
    owner_ref: Mapping[str, Any],
    objects: Sequence[JSON],
    kind: KindInfo,
    *,
    decide: Callable[[Mapping[str, Any], Mapping[str, Any]], str] = claim_action,
) -> list[JSON]:
    """Upstream's ``ClaimObject`` loop over ``objects`` of ``kind`` (pods of a ReplicaSet,
    ReplicaSets of a Deployment): the ones ``owner`` controls after adopting matching
    orphans and releasing those that stopped matching; adopted ones as the patch returned
    them (their new ownerReference and resourceVersion). ``owner_ref`` is the controller
    ownerReference adoption writes (it also names the owner's kind for the recheck);
    ``decide`` says what to do with each object (keep, adopt, release, ignore: the
    ReplicaSet rules by default, the StatefulSet passes its own).
    Adoption first rechecks the owner with a fresh read, once. Raises the first error after
    trying every object (objects that are gone are skipped silently), as the ``Claim*``
    functions return an aggregate."""
    claimed: list[JSON] = []
    errors: list[Exception] = []
    adopt_check: Exception | bool | None = False  # False: not checked yet
    for obj in objects:
        action = decide(owner, obj)
        if action == "keep":
            claimed.append(obj)
            continue
        if action == "ignore":
            continue
        meta = obj.get("metadata") or {}
        if action == "adopt":
            if adopt_check is False:
                adopt_check = await _can_adopt(api, owner, owner_ref)
            if isinstance(adopt_check, Exception):
                where = f"{meta.get('namespace')}/{meta.get('name')} ({meta.get('uid')})"
                errors.append(RuntimeError(f"can't adopt {kind.kind} {where}: {adopt_check}"))
                continue
        adopt = action == "adopt"
        patch = adoption_patch(owner_ref, obj) if adopt else release_patch(owner, obj)
        try:
            patched = await api.patch(
                kind,
                str(meta.get("namespace") or ""),
                str(meta.get("name", "")),
                patch,
                content_type=STRATEGIC_MERGE_PATCH,
            )
        except ApiError as err:
            # An object gone (404) is no error; a release refused as invalid (422: no such
            # owner, or a recreated object failing the uid precondition) is none either.
            if err.status != 404 and not (action == "release" and err.status == 422):
                errors.append(err)
            continue
        if action == "adopt":
            claimed.append(patched)
    if errors:
        raise errors[0]
    return claimed
