"""The pods of one snapshot, listed once per namespace and found by label selector.

``scenario.snapshot`` reads every workload's pods at each tick. Listing them through the API
per workload decoded the whole namespace each time: a fleet of 100 workloads spent a fifth of
its run in those LISTs (quadratic in pods). Here one LIST per namespace feeds an index by
label pair; a selector with an exact requirement (``app=web``, what workload selectors are)
only looks at the pods carrying that pair, and any other selector scans the namespace.

``KeptPods`` carries one namespace's LIST from a snapshot to the next while no pod was
written: it is keyed on the store's ``resource_revision("pods")``, which moves with every
create, update and delete of a pod, so a kept LIST is exactly what a new one would return
(the same items, in the same order; ``SharedItems`` already hands out unchanged pods as the
same objects). Most ticks of a steady workload write no pod.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from podscale.api.selectors import Selector

__all__ = ["KeptPods", "PodIndex"]

JSON = dict[str, Any]


class PodIndex:
    """Pods by namespace and by (namespace, label, value), filled on first use."""

    def __init__(self, list_pods: Callable[[str], Awaitable[list[JSON]]]) -> None:
        self._list_pods = list_pods
        self._namespaces: dict[str, list[JSON]] = {}
        self._by_label: dict[tuple[str, str, str], list[JSON]] = {}

    async def select(self, namespace: str, selector: Selector) -> list[JSON]:
        """The pods of ``namespace`` that ``selector`` matches, in listing order."""
        pods = await self._namespace(namespace)
        candidates = pods
        for requirement in selector.requirements:
            value = selector.requires_exact_match(requirement.key)
            if value is not None:
                candidates = self._by_label.get((namespace, requirement.key, value), [])
                break
        return [pod for pod in candidates if selector.matches(_labels(pod))]

    async def _namespace(self, namespace: str) -> list[JSON]:
        pods = self._namespaces.get(namespace)
        if pods is None:
            pods = self._namespaces[namespace] = await self._list_pods(namespace)
            for pod in pods:
                for key, value in _labels(pod).items():
                    self._by_label.setdefault((namespace, key, str(value)), []).append(pod)
        return pods


class KeptPods:
    """Each namespace's pods LIST with the pods' resource revision it was read at."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, list[JSON]]] = {}

    async def pods(
        self,
        namespace: str,
        revision: int,
        list_pods: Callable[[str], Awaitable[list[JSON]]],
    ) -> list[JSON]:
        """The LIST kept for ``namespace`` if it was read at ``revision`` (no pod written
        since), else a new one from ``list_pods``, kept. ``revision`` is read before the
        LIST: a write landing in between only makes the next call list again."""
        kept = self._kept.get(namespace)
        if kept is not None and kept[0] == revision:
            return kept[1]
        pods = await list_pods(namespace)
        self._kept[namespace] = (revision, pods)
        return pods


def _labels(pod: JSON) -> dict[str, str]:
    labels = (pod.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}
