"""The pods of one snapshot, listed once per namespace and found by label selector.

``scenario.snapshot`` reads every workload's pods at each tick. Listing them through the API
per workload decoded the whole namespace each time: a fleet of 100 workloads spent a fifth of
its run in those LISTs (quadratic in pods). Here one LIST per namespace feeds an index by
label pair; a selector with an exact requirement (``app=web``, what workload selectors are)
only looks at the pods carrying that pair, and any other selector scans the namespace.

``KeptReads`` carries a read (one namespace's pods LIST, a workload's GET, the Events LIST)
from a snapshot to the next while nothing of its resource was written: it is keyed on the
store's ``resource_revision`` of that resource, which moves with every create, update and
delete of one of its objects, so a kept answer is exactly what a new read would return
(``SharedItems`` already hands out unchanged objects as the same items). Most ticks of a
steady workload write no pod, no Deployment and no Event.

``KeptSelections`` carries each selector's answer over a namespace's pods from a snapshot to
the next while that LIST is the same list object (what ``KeptReads`` hands back while no pod
was written): the answer is a pure function of the listed pods and the selector, so a
workload's pods are found again without one label lookup per pod per tick.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

from podscale.api.selectors import Selector

__all__ = ["KeptReads", "KeptSelections", "PodIndex"]

JSON = dict[str, Any]
T = TypeVar("T")


class KeptSelections:
    """Selector answers per namespace, kept while the namespace's pods LIST is the same
    object (held here, so its identity cannot be reused); one list per namespace is kept."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[list[JSON], dict[Selector, list[JSON]]]] = {}

    def answers(self, namespace: str, pods: list[JSON]) -> dict[Selector, list[JSON]]:
        """The kept answers over ``pods`` (empty, and the old ones dropped, for a new list)."""
        kept = self._kept.get(namespace)
        if kept is None or kept[0] is not pods:
            kept = self._kept[namespace] = (pods, {})
        return kept[1]


class PodIndex:
    """Pods by namespace and by (namespace, label, value), filled on first use; with
    ``kept``, a selector's answer over the same LIST as a previous snapshot's is reused."""

    def __init__(
        self,
        list_pods: Callable[[str], Awaitable[list[JSON]]],
        kept: KeptSelections | None = None,
    ) -> None:
        self._list_pods = list_pods
        self._kept = kept
        self._listed: dict[str, list[JSON]] = {}
        self._namespaces: dict[str, list[JSON]] = {}
        self._by_label: dict[tuple[str, str, str], list[JSON]] = {}

    async def select(self, namespace: str, selector: Selector) -> list[JSON]:
        """The pods of ``namespace`` that ``selector`` matches, in listing order. With
        ``kept`` the answer may be a kept list, the same object as before: callers do not
        mutate it (``PodFacts.ready`` keeps its answer by that identity)."""
        if self._kept is None:
            return await self._select(namespace, selector)
        pods = self._listed.get(namespace)
        if pods is None:
            pods = self._listed[namespace] = await self._list_pods(namespace)
        answers = self._kept.answers(namespace, pods)
        found = answers.get(selector)
        if found is None:
            found = answers[selector] = await self._select(namespace, selector)
        return found

    async def _select(self, namespace: str, selector: Selector) -> list[JSON]:
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
            pods = self._listed.get(namespace)
            if pods is None:
                pods = self._listed[namespace] = await self._list_pods(namespace)
            self._namespaces[namespace] = pods
            for pod in pods:
                for key, value in _labels(pod).items():
                    self._by_label.setdefault((namespace, key, str(value)), []).append(pod)
        return pods


class KeptReads:
    """Reads of the API kept with the revision of the resource they read (the store's
    ``resource_revision``): a read is done again only once that resource was written."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[int, Any]] = {}
        # The pods' selector answers over the kept LISTs (``PodIndex``).
        self.selections = KeptSelections()

    async def read(self, key: Hashable, revision: int, read: Callable[[], Awaitable[T]]) -> T:
        """What ``read`` returned for ``key`` when its resource was at ``revision`` (nothing
        of it written since), else ``read()`` again, kept. ``revision`` is taken before the
        read: a write landing in between only makes the next call read again."""
        kept = self._kept.get(key)
        if kept is not None and kept[0] == revision:
            value: T = kept[1]
            return value
        value = await read()
        self._kept[key] = (revision, value)
        return value


def _labels(pod: JSON) -> dict[str, str]:
    labels = (pod.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}
