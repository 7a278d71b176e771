"""``RunningPod``: the view of one running pod that the usage bookkeeping reads.

``running_pod`` reads it from a pod object as the simulated kubelet wrote its status
(``podscale.runtime.simulated.kubelet_state``): the load model's ``PodLoad`` limited to the
running containers, their start times, the pod's labels, uid and start. ``usage.SimulatedUsage``
keeps one per running pod; ``usage_ledger.UsageLedger`` credits and reports by it,
``credit_layout`` lays the credit of a draw out over it and ``usage_loads.assign_pods``
matches loads' selectors against its labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from podscale.controllers.kapacity.kind import POD_STATE_LABEL
from podscale.runtime.load import PodLoad, is_running, pod_load
from podscale.runtime.simulated.pod_status import parse_time

__all__ = ["PodKey", "RunningPod", "running_pod"]

JSON = dict[str, Any]
PodKey = tuple[str, str]
_STANDBY: Final = "Standby"


@dataclass(frozen=True, slots=True)
class RunningPod:
    """A pod with at least one running container: the load model's ``PodLoad`` (its
    containers limited to the running ones), their start times and the pod's own."""

    load: PodLoad
    uid: str
    labels: Mapping[str, str]
    start_time: datetime | None
    started: Mapping[str, datetime]
    # What ``UsageLedger.pods_points`` reads of the pod at every scrape, derived once from
    # the fields above (a pod's view is rebuilt whenever its status moves): per container
    # name, the first of a repeated name standing, its counter's key (name, start). None
    # when a container has no start time, which ``pods_points`` reports as it always did.
    counters: tuple[tuple[str, tuple[str, datetime]], ...] | None = field(
        init=False, compare=False, repr=False
    )
    # Whether the pod is labelled Standby (``controllers.kapacity.kind.POD_STATE_LABEL``:
    # Kapacity's standby state, its resources reclaimed): it then uses nothing.
    standby: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "standby", self.labels.get(POD_STATE_LABEL) == _STANDBY)
        object.__setattr__(self, "counters", self._counters())

    def _counters(self) -> tuple[tuple[str, tuple[str, datetime]], ...] | None:
        started = self.started
        plan: dict[str, tuple[str, datetime]] = {}
        for container in self.load.containers:
            name = container.name
            if name in plan:
                continue
            began = started.get(name)
            if began is None:
                return None
            plan[name] = (name, began)
        return tuple(plan.items())

    @property
    def key(self) -> PodKey:
        return self.load.key


def running_pod(pod: JSON) -> RunningPod | None:
    """The ledger's view of a pod object; None when nothing of it runs."""
    if not is_running(pod):
        return None
    status = pod.get("status") or {}
    started: dict[str, datetime] = {}
    for container in status.get("containerStatuses") or []:
        running = (container.get("state") or {}).get("running") or {}
        if running.get("startedAt"):
            started[str(container.get("name", ""))] = parse_time(str(running["startedAt"]))
    if not started:
        return None
    load = pod_load(pod)
    load = PodLoad(
        name=load.name,
        namespace=load.namespace,
        node=load.node,
        ready=load.ready,
        containers=tuple(c for c in load.containers if c.name in started),
    )
    metadata = pod.get("metadata") or {}
    start = status.get("startTime")
    return RunningPod(
        load=load,
        uid=str(metadata.get("uid") or ""),
        labels={str(k): str(v) for k, v in (metadata.get("labels") or {}).items()},
        start_time=parse_time(str(start)) if start else None,
        started=started,
    )
