"""What ``MetricsStorage.pod_usage_of`` answered, remembered for the same question.

``pod_usage_of`` keeps, of the pod names a ``PodSelection`` gave, the pods the
``ObjectLabels`` know whose labels the selector matches, and serves their records from the
current snapshot. The HPA asks it about its pods at every sync and the usage history every
minute, mostly about the same pods: the label filter's answer changes only when a pod object
is written, and the whole answer only then or when a scrape stores a new snapshot.

``SelectionMemo`` keeps both per question, in one ``Selection``, exactly keyed:

- ``matched``: per (namespace, selector, names as given), the names that pass the label
  filter, with the labels' version (``StoreObjectLabels.labels_version``: the store's latest
  write to a pod, which moves with every create, update and delete of one; ``labels_of``
  reads nothing else). Kept across snapshots.
- ``records``: per the same question and version, the records served from one snapshot
  (compared by identity: a scrape replaces the snapshot object; the memo holds only the
  current one and numbers each, so answers name theirs by its number).

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

__all__ = ["NO_OBJECTS_VERSION", "Selection", "SelectionMemo", "label_filter", "labels_version"]

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


class Selection:
    """One question's kept answer: the label filter's names at ``version``, and the
    records served from the snapshot of ``generation`` (-1: none yet)."""

    __slots__ = ("generation", "matched", "records", "version")

    def __init__(self, version: int, matched: tuple[str, ...]) -> None:
        self.version = version
        self.matched = matched
        self.generation = -1
        self.records: list[PodUsage] = []


class SelectionMemo:
    """``pod_usage_of``'s label filters and answers; see the module docstring. Each
    question is looked up once (its key hashes the selector's requirements), and the
    snapshot is held only while current: answers name it by a generation."""

    __slots__ = ("_generation", "_selections", "_snapshot")

    def __init__(self) -> None:
        self._selections: dict[_Key, Selection] = {}
        self._snapshot: object = None
        self._generation = 0

    def generation(self, snapshot: object) -> int:
        """The number of ``snapshot``, the current one (a new one gets the next)."""
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._generation += 1
        return self._generation

    def get(self, key: _Key, version: int) -> Selection | None:
        """The question's kept answer at ``version``, or None if not known."""
        kept = self._selections.get(key)
        return kept if kept is not None and kept.version == version else None

    def keep(self, key: _Key, version: int, matched: tuple[str, ...]) -> Selection:
        """A new entry for the question: its label filter's answer at ``version``."""
        if len(self._selections) >= _LIMIT:
            self._selections.clear()
        kept = self._selections[key] = Selection(version, matched)
        return kept


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
