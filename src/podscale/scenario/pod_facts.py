"""What a snapshot reads of each pod, remembered while the pod is unchanged.

``scenario.snapshot`` asks of every pod of every workload, at every tick, whether it is
ready (``runtime.load.is_pod_ready``) and what CPU its containers request: the same
answers for a pod that did not change since the previous tick, which most pods did not.
``PodFacts`` keeps both per pod, keyed by namespace and name and valid for one
``metadata.resourceVersion`` (a pod's content is fixed at a resourceVersion, and any write
gives it a new one), so an answer is reused exactly while the pod is the same; a pod without
a resourceVersion is computed every time. ``ScenarioRun`` keeps one for its snapshots.

Only the pods of the last two snapshots are kept: ``begin`` (called once per snapshot)
retires what the snapshot before the previous one read, so pods that are gone do not pile
up over a long run.

``ready`` answers for a whole list of pods, kept while it is the same list object (a kept
selection, ``pod_index.KeptSelections``: the same pod objects, so the same answers), for the
same two snapshots.
"""

from __future__ import annotations

from typing import Any

from podscale.api.quantity import parse_quantity
from podscale.runtime.load import is_pod_ready

__all__ = ["PodFacts", "cpu_request", "pod_facts", "pod_name"]

JSON = dict[str, Any]
# (namespace, name) -> (resourceVersion, ready, CPU request in millicores)
_Facts = dict[tuple[str, str], tuple[str, bool, int]]
# id(pods) -> (pods, the names of its ready pods with their CPU requests); the list is held,
# so its id is not reused while kept.
_Ready = dict[int, tuple[list[JSON], list[tuple[str, int]]]]


def cpu_request(pod: JSON) -> int:
    """The pod's containers' summed CPU requests, in millicores."""
    total = 0
    for container in (pod.get("spec") or {}).get("containers") or []:
        value = ((container.get("resources") or {}).get("requests") or {}).get("cpu")
        if value is not None:
            total += parse_quantity(value).milli_value()
    return total


def pod_name(pod: JSON) -> str:
    return str((pod.get("metadata") or {}).get("name") or "")


def pod_facts(pod: JSON) -> tuple[bool, int]:
    """Whether the pod is ready, and then its CPU request in millicores (0 when it is not:
    a snapshot only sums the ready pods' requests); computed afresh."""
    ready = is_pod_ready(pod)
    return ready, cpu_request(pod) if ready else 0


class PodFacts:
    """``pod_facts`` per pod and resourceVersion, for the last two snapshots."""

    def __init__(self) -> None:
        self._current: _Facts = {}
        self._previous: _Facts = {}
        self._ready: _Ready = {}
        self._ready_previous: _Ready = {}

    def begin(self) -> None:
        """A new snapshot starts: forget what neither it nor the last one read."""
        self._previous, self._current = self._current, {}
        self._ready_previous, self._ready = self._ready, {}

    def ready(self, pods: list[JSON]) -> list[tuple[str, int]]:
        """The names of the ready ones of ``pods`` (in order) with their CPU requests, as
        ``of`` tells; the same answer again for the same list object (callers do not mutate
        either). Names, not the pods: a kept answer is read without touching a pod object
        (each a cache miss in a fleet's snapshot)."""
        key = id(pods)
        known = self._ready.get(key) or self._ready_previous.get(key)
        if known is None or known[0] is not pods:
            found = []
            for pod in pods:
                is_ready, request = self.of(pod)
                if is_ready:
                    found.append((pod_name(pod), request))
            known = (pods, found)
        self._ready[key] = known
        return known[1]

    def of(self, pod: JSON) -> tuple[bool, int]:
        metadata = pod.get("metadata") or {}
        version = metadata.get("resourceVersion")
        if not version:
            return pod_facts(pod)
        key = (str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        known = self._current.get(key) or self._previous.get(key)
        if known is None or known[0] != version:
            ready, request = pod_facts(pod)
            known = (str(version), ready, request)
        self._current[key] = known
        return known[1], known[2]
