"""What KEDA's operator writes to a ScaledObject itself: status, events and metadata.

``ScaledObjectWrites`` wraps the ``ControllerApi`` and the ``EventRecorder`` the controller
records with (as ``keda-operator``). ``finish`` merge-patches the ``status`` subresource with
what changed (keys the new status dropped go as ``null``) and records the events;
``ensure_finalizer_and_label`` adds the ``finalizer.keda.sh`` finalizer and the
``scaledobject.keda.sh/name`` label (``generated.SCALED_OBJECT_LABEL``, the metrics server's
selector) and ``patch_meta`` merge-patches ``metadata``. The reconcile of ``controller`` and
the poll of ``scale_loop`` both write through it; what they write is decided by ``status``,
``pause`` and ``decisions``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from podscale.client.http import ApiError
from podscale.controllers.keda import events as ev
from podscale.controllers.keda.generated import SCALED_OBJECT_LABEL
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta

__all__ = ["FINALIZER", "ScaledObjectWrites"]

JSON = dict[str, Any]
FINALIZER: Final = "finalizer.keda.sh"
_MERGE_PATCH: Final = "application/merge-patch+json"


class ScaledObjectWrites:
    """Writes to ScaledObjects and their events; see the module docstring."""

    def __init__(self, api: ControllerApi, recorder: EventRecorder) -> None:
        self._api = api
        self._recorder = recorder

    async def finish(self, obj: JSON, old: JSON, new: JSON, events: Sequence[ev.Event]) -> None:
        """Write the status when it changed (gone objects are fine), then the events."""
        if new != old:
            patch: JSON = {**new, **{k: None for k in old if k not in new}}
            try:
                await self._api.patch(
                    SCALED_OBJECT,
                    meta(obj).get("namespace"),
                    str(meta(obj).get("name")),
                    {"status": patch},
                    content_type=_MERGE_PATCH,
                    subresource="status",
                )
            except ApiError as err:
                if err.status == 404:
                    return
                raise
        for event in events:
            await self.record(obj, event)

    async def record(self, obj: JSON, event: ev.Event) -> None:
        await self._recorder.record(obj, event.type, event.reason, event.message)

    async def ensure_finalizer_and_label(self, obj: JSON) -> JSON:
        patch: JSON = {}
        finalizers = list(meta(obj).get("finalizers") or ())
        if FINALIZER not in finalizers:
            patch["finalizers"] = [*finalizers, FINALIZER]
        name = str(meta(obj).get("name"))
        if (meta(obj).get("labels") or {}).get(SCALED_OBJECT_LABEL) != name:
            patch["labels"] = {SCALED_OBJECT_LABEL: name}
        if not patch:
            return obj
        return await self.patch_meta(obj, patch)

    async def patch_meta(self, obj: JSON, patch: JSON) -> JSON:
        return await self._api.patch(
            SCALED_OBJECT,
            meta(obj).get("namespace"),
            str(meta(obj).get("name")),
            {"metadata": patch},
            content_type=_MERGE_PATCH,
        )
