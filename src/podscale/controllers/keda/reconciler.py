"""KEDA's ``ScaledObjectReconciler``: one reconcile of a ScaledObject.

``ScaledObjectReconciler.reconcile`` runs for every ScaledObject event and every change of
its generated HPA (``controller.ScaledObjectController`` queues them): the
``finalizer.keda.sh`` finalizer (on deletion: stop the loop, restore
``originalReplicaCount`` when asked, drop the finalizer), KEDA's initial ``Unknown``
conditions, the pause annotations (``pause``), the ``scaledobject.keda.sh/name`` label,
KEDA's admission checks (``validation``, over the other ScaledObjects and HPAs the
controller's informers hold), the target's ``/scale`` (``target``), the triggers
(``metrics_server.trigger_specs``), the generated HPA (``generated``), the scalers of the
``handler.ScaleHandler`` and a (re)started ``scale_loop.ScaleLoop`` when the generation
moved. A step that fails is ``Ready=False`` with KEDA's message (``status``), never a
crash. The status, events and metadata are written through ``writes``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.controllers.keda import events as ev
from podscale.controllers.keda import pause
from podscale.controllers.keda import status as so_status
from podscale.controllers.keda.formula import Formula, FormulaError
from podscale.controllers.keda.generated import GeneratedHpaError, generated_hpa, hpa_update
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.controllers.keda.metrics_server import trigger_specs
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.scale_loop import ScaleLoop
from podscale.controllers.keda.target import ScaleTargetClient, TargetError
from podscale.controllers.keda.triggers.spec import TriggerError, TriggerSpec
from podscale.controllers.keda.types import ScaledObject, ScaledObjectError
from podscale.controllers.keda.validation import admission_error, denial
from podscale.controllers.keda.writes import FINALIZER, ScaledObjectWrites
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import meta

__all__ = ["HPA", "ScaledObjectReconciler"]

JSON = dict[str, Any]
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
# podscale's wording for what KEDA's admission webhook would have refused.
_NOT_ADMITTED: Final = "ScaledObject would not be admitted by KEDA's webhook"
_RESOURCE_TYPES: Final = frozenset({"cpu", "memory"})


class _CheckFailed(Exception):
    """A reconcile step failed: KEDA's message and the cause, for ``Ready=False``."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(f"{message}: {cause}")
        self.message = message
        self.cause = cause
        # What the reconcile had recorded before the step failed (KEDA writes each part of
        # the status as it goes), when more than the caller's own status.
        self.status: JSON | None = None


class ScaledObjectReconciler:
    """Reconciles ScaledObjects; see the module docstring."""

    def __init__(
        self,
        api: ControllerApi,
        *,
        targets: ScaleTargetClient,
        handler: ScaleHandler,
        loop: ScaleLoop,
        writes: ScaledObjectWrites,
        others: Callable[[ScaledObject], list[ScaledObject]],
        hpas: Callable[[str], list[JSON]],
    ) -> None:
        self._api = api
        self._targets = targets
        self._handler = handler
        self._loop = loop
        self._writes = writes
        # What the admission checks read: the other live ScaledObjects of the namespace
        # and its HPAs, from the controller's informers.
        self._others = others
        self._hpas = hpas

    async def reconcile(self, key: str) -> None:
        """Reconcile the ScaledObject ``namespace/name``; see the module docstring."""
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(SCALED_OBJECT, namespace, name)
        except ApiError as err:
            if err.status == 404:
                await self._loop.stop(key)
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            await self._finalize(key, obj)
            return
        obj = await self._writes.ensure_finalizer_and_label(obj)
        old_status: JSON = dict(obj.get("status") or {})
        status = so_status.initial_conditions(old_status)
        events: list[ev.Event] = []
        try:
            try:
                so = parse_scaled_object(obj)
            except ScaledObjectError as err:
                raise _CheckFailed(_NOT_ADMITTED, str(err)) from None
            status = await self._reconcile_object(key, obj, so, status, events)
        except _CheckFailed as err:
            await self._loop.stop(key)
            failed_on = status if err.status is None else err.status
            status = so_status.check_failed(failed_on, err.message, err.cause)
            events.append(so_status.check_failed_event(err.message, err.cause))
        await self._writes.finish(obj, old_status, status, events)

    async def _reconcile_object(
        self, key: str, obj: JSON, so: ScaledObject, status: JSON, events: list[ev.Event]
    ) -> JSON:
        paused = pause.read_pause(so.annotations)
        if pause.needs_pause(paused, status):
            return await self._pause(key, so, status, paused)
        status = pause.reconcile_paused(status, paused)
        refused = admission_error(
            so,
            others=self._others(so),
            hpas=self._hpas(so.namespace),
            containers=await self._targets.containers(so.namespace, so.scale_target),
        )
        if refused is not None:
            raise _CheckFailed(_NOT_ADMITTED, denial(refused))
        try:
            target = await self._targets.read(so.namespace, so.scale_target)
        except TargetError as err:
            raise _CheckFailed(so_status.SCALE_TARGET_ERROR_MESSAGE, str(err)) from None
        # KEDA records the trigger and authentication types before it builds the HPA, so a
        # trigger whose metadata fails there still shows in ``kubectl get so``.
        status = so_status.with_trigger_types(status, so)
        try:
            specs, formula = self._triggers(so)
            hpa_name = await self._ensure_hpa(obj, so, specs)
        except _CheckFailed as err:
            err.status = status
            raise
        status = so_status.ready(
            status,
            hpa_name=hpa_name,
            metric_names=[s.metric_name for s in specs if s.type not in _RESOURCE_TYPES],
            resource_metric_names=[s.metric_name for s in specs if s.type in _RESOURCE_TYPES],
            original_replicas=target.replicas,
            target=so.scale_target,
            gvkr=_gvkr(target.info, so),
            so=so,
        )
        generation = int(meta(obj).get("generation") or 0)
        await self._handler.put(key, so, generation, specs, formula, target.selector)
        self._loop.start(key, generation)
        ready = so_status.ready_event(obj.get("status") or {})
        if ready is not None:
            events.append(ready)
        return status

    def _triggers(self, so: ScaledObject) -> tuple[tuple[TriggerSpec, ...], Formula | None]:
        try:
            return trigger_specs(so)
        except TriggerError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        except FormulaError as err:
            raise _CheckFailed(_NOT_ADMITTED, str(err)) from None

    async def _ensure_hpa(self, obj: JSON, so: ScaledObject, specs: Sequence[TriggerSpec]) -> str:
        try:
            wanted = generated_hpa(obj, so, specs)
        except GeneratedHpaError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        name = str(wanted["metadata"]["name"])
        try:
            try:
                existing = await self._api.get(HPA, so.namespace, name)
            except ApiError as err:
                if err.status != 404:
                    raise
                await self._api.create(HPA, so.namespace, wanted)
                return name
            update = hpa_update(existing, wanted)
            if update is not None:
                await self._api.update(HPA, so.namespace, update)
        except ApiError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        return name

    async def _pause(self, key: str, so: ScaledObject, status: JSON, paused: pause.Pause) -> JSON:
        """KEDA's pause: the loop (which already pinned ``paused-replicas``) stops and the
        generated HPA goes, so nothing scales the target until the annotations do."""
        await self._loop.stop(key)
        name = str(status.get("hpaName") or so.hpa_name)
        try:
            await self._api.delete(HPA, so.namespace, name)
        except ApiError as err:
            if err.status != 404:
                message = "failed to delete HPA for paused ScaledObject"
                raise _CheckFailed(message, str(err)) from None
        status = pause.reconcile_paused(status, paused)
        return pause.set_condition(
            status, "Ready", "True", so_status.READY_REASON, so_status.READY_MESSAGE
        )

    async def _finalize(self, key: str, obj: JSON) -> None:
        await self._loop.stop(key)
        finalizers = list(meta(obj).get("finalizers") or ())
        if FINALIZER not in finalizers:
            return
        try:
            so = parse_scaled_object(obj)
        except ScaledObjectError:
            so = None
        restore = None if so is None else so_status.finalize_replicas(so, obj.get("status") or {})
        if so is not None and restore is not None:
            try:
                target = await self._targets.read(so.namespace, so.scale_target)
                await self._targets.write(so.namespace, target, restore)
            except TargetError:
                pass  # KEDA logs and goes on: a missing target must not block deletion
        finalizers.remove(FINALIZER)
        await self._writes.patch_meta(obj, {"finalizers": finalizers})


def _gvkr(info: KindInfo, so: ScaledObject) -> dict[str, str]:
    """KEDA's ``GroupVersionKindResource`` of the target, as its status records it."""
    return {
        "group": info.group,
        "version": info.version,
        "kind": info.kind,
        "resource": info.plural,
    }
