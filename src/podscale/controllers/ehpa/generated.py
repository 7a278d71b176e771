"""Writing the generated HPA ``ehpa-<name>``: create it, or update it when it drifted.

``decisions.generated_hpa`` says what the HPA should be; ``reconcile_hpa`` makes the API
server hold it, as Crane's EHPA controller does: create it when absent (event
``HPACreated``), leave it alone when it already says everything wanted (the API server
fills defaults, e.g. the behavior's rules, which must not read as a change; the
``minReplicas`` and ``metrics`` keys may be added or dropped by the generation), otherwise
replace its labels and spec (``FailedUpdateHPA`` on error). A failure is a
``status.Failed`` with ``FailedReconcileHPA``. ``controller`` calls it once per sync and
copies the returned HPA's status into the EHPA's (``status.from_hpa``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.ehpa.decisions import covers
from podscale.controllers.ehpa.status import Failed
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta

__all__ = ["HPA", "reconcile_hpa"]

JSON = dict[str, Any]
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
# Keys the generation itself may add or drop from one sync to the next.
_OPTIONAL: Final = frozenset({"minReplicas", "metrics"})


def _unchanged(existing: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    have: Mapping[str, Any] = existing.get("spec") or {}
    same_keys = set(have) - _OPTIONAL == set(wanted["spec"]) - _OPTIONAL
    return (
        same_keys
        and covers(have, wanted["spec"])
        and meta(existing).get("labels") == wanted["metadata"]["labels"]
    )


async def reconcile_hpa(
    api: ControllerApi, recorder: EventRecorder, obj: JSON, wanted: JSON
) -> JSON:
    """The generated HPA as stored after this sync (see the module docstring)."""
    namespace = str(meta(obj).get("namespace"))
    name = str(wanted["metadata"]["name"])
    try:
        existing = await api.get(HPA, namespace, name)
    except ApiError as err:
        if err.status != 404:
            raise Failed("FailedReconcileHPA", str(err), ("Warning", "FailedGetHPA")) from err
        try:
            created = await api.create(HPA, namespace, wanted)
        except ApiError as err2:
            raise Failed("FailedReconcileHPA", str(err2), ("Warning", "FailedCreateHPA")) from err2
        await recorder.record(
            obj, "Normal", "HPACreated", "Create HorizontalPodAutoscaler successfully"
        )
        return created
    if _unchanged(existing, wanted):
        return existing
    existing = {
        **existing,
        "metadata": {**existing["metadata"], "labels": wanted["metadata"]["labels"]},
        "spec": wanted["spec"],
    }
    try:
        return await api.update(HPA, namespace, existing)
    except ApiError as err:
        raise Failed("FailedReconcileHPA", str(err), ("Warning", "FailedUpdateHPA")) from err
