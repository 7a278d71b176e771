"""KEDA's `kubernetes-workload` scaler: how many pods match `podSelector`.

Lists the pods of the trigger's namespace (all namespaces for `*`) matching the
selector and counts every one whose phase is neither Succeeded nor Failed, as KEDA's
`getCountValue` does: Pending and Unknown pods count, and so do pods being deleted.
Active means count > activationValue. A failed list reads as KEDA's
`error inspecting kubernetes workload: <the API's message>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.triggers.kubernetes_workload import WorkloadTrigger
from podscale.controllers.runtime_api import ControllerApi

__all__ = ["TERMINATED_PHASES", "WorkloadScaler", "count_pods"]

_POD: Final = kind_for("v1", "Pod")
TERMINATED_PHASES: Final = ("Succeeded", "Failed")


def count_pods(pods: Sequence[Mapping[str, Any]]) -> int:
    """The pods KEDA counts: all but the terminated phases."""
    return sum(1 for pod in pods if (pod.get("status") or {}).get("phase") not in TERMINATED_PHASES)


class WorkloadScaler:
    def __init__(self, trigger: WorkloadTrigger, api: ControllerApi) -> None:
        self.trigger = trigger
        self._api = api

    async def read(self, now: datetime) -> ScalerReading:
        try:
            listed = await self._api.list(
                _POD, self.trigger.namespace or None, label_selector=self.trigger.pod_selector
            )
        except ApiError as err:
            raise ScalerError(f"error inspecting kubernetes workload: {err}") from None
        items = [item for item in listed.get("items") or [] if isinstance(item, Mapping)]
        count = float(count_pods(items))
        return ScalerReading(count, count > self.trigger.activation_value)

    async def close(self) -> None:
        return None
