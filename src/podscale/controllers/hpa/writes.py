"""The HPA controller's writes to the API: the target's replicas and the autoscaler's status.

- ``rescale``: a decision that rescales writes ``spec.replicas`` through the target's
  ``/scale`` (the mapping ``scale_target.read_scale`` read it through, the Scale it read as
  the body, so the write carries its resourceVersion); a failure becomes upstream's
  ``FailedRescale`` outcome (``podscale.hpa.apply_rescale_failure``) in the decision.
- ``write_status``: the autoscaler object's ``status`` subresource (the synced kind: HPA or
  PHPA), written whole; a failure is upstream's ``FailedUpdateStatus`` Warning event and a
  log line, and the sync counts as failed.

Called once per sync by ``controller`` (the PHPA's ``controllers.phpa.controller`` writes
its own status through ``write_status`` too).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.hpa import Decision
from podscale.hpa.scale_failures import apply_rescale_failure

__all__ = ["rescale", "write_status"]

_LOG = logging.getLogger(__name__)

JSON = dict[str, Any]


async def rescale(
    api: ControllerApi,
    target_kind: KindInfo,
    namespace: str,
    scale: JSON,
    hpa: JSON,
    decision: Decision,
    now: datetime,
) -> tuple[Decision, bool]:
    """``decision``'s replicas written to ``/scale``: the decision, and whether the write
    succeeded (when not, the decision says ``FailedRescale``)."""
    body = copy_json(scale)
    body.setdefault("spec", {})["replicas"] = decision.desired_replicas
    try:
        await api.update(target_kind, namespace, body, "scale")
    except ApiError as err:
        return apply_rescale_failure(decision, hpa, error=str(err), now=now), False
    return decision, True


async def write_status(
    api: ControllerApi, recorder: EventRecorder, kind: KindInfo, hpa: JSON, status: JSON
) -> bool:
    """``status`` written to ``hpa``; False (and a ``FailedUpdateStatus`` event) when the
    write failed."""
    meta = hpa.get("metadata") or {}
    try:
        await api.update(
            kind,
            str(meta.get("namespace") or ""),
            {**hpa, "status": status},
            "status",
        )
    except ApiError as err:
        await recorder.record(hpa, "Warning", "FailedUpdateStatus", str(err))
        _LOG.warning("failed to update status for %s: %s", meta.get("name"), err)
        return False
    return True
