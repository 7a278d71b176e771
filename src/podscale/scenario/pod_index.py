"""The pods of one snapshot, listed once per namespace and found by label selector.

``scenario.snapshot`` reads every workload's pods at each tick. Listing them through the API
per workload decoded the whole namespace each time: a fleet of 100 workloads spent a fifth of
its run in those LISTs (quadratic in pods). Here one LIST per namespace feeds an index by
label pair; a selector with an exact requirement (``app=web``, what workload selectors are)
only looks at the pods carrying that pair, and any other selector scans the namespace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from podscale.api.selectors import Selector

__all__ = ["PodIndex"]

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


def _labels(pod: JSON) -> dict[str, str]:
    labels = (pod.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}
