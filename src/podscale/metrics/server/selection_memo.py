"""What ``MetricsStorage.pod_usage_of`` answered, remembered for the same question.

``pod_usage_of`` keeps, of the pod names a ``PodSelection`` gave, the pods the
``ObjectLabels`` know whose labels the selector matches, and serves their records from the
current snapshot. The HPA asks it about its pods at every sync and the usage history every
minute, mostly about the same pods: the label filter's answer changes only when a pod object
is written, and the whole answer only then or when a scrape stores a new snapshot.

``SelectionMemo`` keeps both, exactly keyed:

- ``matched``: per (namespace, selector, names as given), the names that pass the label
  filter, with the labels' version (``StoreObjectLabels.labels_version``: the store's latest
  write to a pod, which moves with every create, update and delete of one; ``labels_of``
  reads nothing else). Kept across snapshots.
- ``answer``: per the same question and version, the records served from one snapshot
  (compared by identity: a scrape replaces the snapshot object, and the memo holds the one
  it answered from). Only the current snapshot's answers are kept.

The selector is keyed by value (a frozen record of its requirements: equal selectors
select alike), since the HPA, the usage history and a scenario's snapshots each build their
own. An ``ObjectLabels`` without a version is never memoised (``labels_version`` answers
None). Neighbours: ``storage`` (the caller), ``podscale.metrics.object_labels`` (the
version).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from podscale.api.selectors import Selector
from podscale.apiserver.metricsapis.pod_usage import PodUsage
from podscale.metrics.object_labels import ObjectLabels

__all__ = ["NO_OBJECTS_VERSION", "SelectionMemo", "labels_version"]

# The version of "no ObjectLabels": every pod reads as labelled {} (nothing to change).
NO_OBJECTS_VERSION: Final = -1
# Questions kept across snapshots; beyond it the memo starts afresh (pods come and go, so
# an HPA's names, part of the key, change over a day).
_LIMIT: Final = 512

_Key = tuple[str, Selector, tuple[str, ...]]


def labels_version(objects: ObjectLabels | None) -> int | None:
    """The version of every pod's labels ``objects`` answers, or None when it has none."""
    if objects is None:
        return NO_OBJECTS_VERSION
    version = getattr(objects, "labels_version", None)
    if version is None:
        return None
    value = version("pods")
    return value if type(value) is int else None


class SelectionMemo:
    """``pod_usage_of``'s label filters and answers; see the module docstring."""

    __slots__ = ("_answers", "_matched", "_snapshot")

    def __init__(self) -> None:
        self._matched: dict[_Key, tuple[int, tuple[str, ...]]] = {}
        self._snapshot: object = None
        self._answers: dict[_Key, tuple[int, list[PodUsage]]] = {}

    def matched(
        self, namespace: str, selector: Selector, names: tuple[str, ...], version: int
    ) -> tuple[str, ...] | None:
        """The names that passed the label filter at ``version``, or None if not known."""
        kept = self._matched.get((namespace, selector, names))
        if kept is None or kept[0] != version:
            return None
        return kept[1]

    def keep_matched(
        self,
        namespace: str,
        selector: Selector,
        names: tuple[str, ...],
        version: int,
        matched: tuple[str, ...],
    ) -> None:
        if len(self._matched) >= _LIMIT:
            self._matched.clear()
        self._matched[(namespace, selector, names)] = (version, matched)

    def answer(
        self,
        snapshot: object,
        namespace: str,
        selector: Selector,
        names: tuple[str, ...],
        version: int,
    ) -> list[PodUsage] | None:
        """The records served from ``snapshot`` for this question, or None if not known."""
        if snapshot is not self._snapshot:
            return None
        kept = self._answers.get((namespace, selector, names))
        if kept is None or kept[0] != version:
            return None
        return kept[1]

    def keep_answer(
        self,
        snapshot: object,
        namespace: str,
        selector: Selector,
        names: tuple[str, ...],
        version: int,
        records: list[PodUsage],
    ) -> None:
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._answers = {}
        self._answers[(namespace, selector, names)] = (version, records)


def label_filter(
    objects: ObjectLabels | None, namespace: str, names: tuple[str, ...], selector: Selector
) -> tuple[str, ...]:
    """The names, sorted and once each, of the pods ``objects`` knows (all, without it)
    whose labels ({} without ``objects``) ``selector`` matches."""
    labels_of = None if objects is None else objects.labels_of
    matches = selector.matches
    no_labels: Mapping[str, str] = {}
    kept: list[str] = []
    for name in sorted(set(names)):
        labels = no_labels if labels_of is None else labels_of("pods", namespace, name)
        if labels is not None and matches(labels):
            kept.append(name)
    return tuple(kept)
