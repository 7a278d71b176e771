"""``MetricsStorage``: the last two scrapes, and the PodMetrics / NodeMetrics served from them.

metrics-server's in-memory storage (pkg/storage/{node,pod,storage}.go), rule for rule:

- Each ``store(batch)`` REPLACES what is kept: a node or pod missing from the batch (gone, or
  its node failed to answer) is forgotten at once and never served stale. What comes back
  needs two points again.
- For every point of the batch the previous point is chosen: the point stored last, if the
  new one is newer; else the previous one kept, if still older than the new one; else none.
  A container whose start time is not before the stored point's time has restarted (or is a
  new pod of the same name): its history is dropped.
- A fresh container, started between 10 s and one resolution before its first sample, gets a
  synthetic previous point (CPU zero at its start time) so it is served after one scrape.
- A pod is served only when every container of its last scrape has a previous point; a
  container whose two points do not make a rate (``usage.UsageError``) is left out of it.
  Timestamp and window are those of the earliest-sampled container (``render``).

The pairing rules (the first three) are ``pairing``'s; the usage records ``pod_records``'s.

``pod_usage_of`` gives the values of ``pod_metrics_of``'s items without rendering them
(``PodUsage`` records, built by ``pod_records`` straight from the points and kept per
snapshot), for in-process readers.

``pod_metrics``/``node_metrics`` take ``now`` (for ``creationTimestamp``) and optionally an
``ObjectLabels`` (``podscale.metrics.object_labels``): with it, as metrics-server serves from
its pod and node informers, only objects that exist in the API are served, with their labels.

State is one immutable snapshot swapped on store, so readers on other threads (the API
server's handlers) always see a consistent pair of scrapes. Each snapshot remembers the pod
usages computed from it (a pure function of its points), since several readers ask for the
same pods between two scrapes. When a snapshot's records were read, the next one's are all
computed as it is stored (``pod_records.all_records``, right after pairing, while the
points are still in the processor's caches) rather than on first read. No clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.selectors import Selector
from podscale.apiserver.metricsapis.pod_usage import (
    PodUsage,
)
from podscale.metrics.object_labels import ObjectLabels
from podscale.metrics.server.pairing import (
    FRESH_CONTAINER_MIN_AGE,
    previous_of,
    previous_pods,
)
from podscale.metrics.server.pod_records import (
    Containers,
    all_records,
    records_from_points,
)
from podscale.metrics.server.points import MetricsBatch, MetricsPoint, PodKey
from podscale.metrics.server.render import (
    render_node_metrics,
    render_pod_metrics,
)
from podscale.metrics.server.selection_memo import SelectionMemo, label_filter, labels_version
from podscale.metrics.server.usage import Usage, UsageError, compute_usage

__all__ = ["DEFAULT_RESOLUTION", "FRESH_CONTAINER_MIN_AGE", "MetricsStorage"]

JSON = dict[str, Any]

DEFAULT_RESOLUTION: Final = timedelta(seconds=15)
"""metrics-server's ``--metric-resolution`` default."""


class _Snapshot:
    """One stored pair of scrapes (replaced whole by each ``store``, never changed but for
    its read caches). A plain class with slots rather than a frozen dataclass: one is built
    per scrape, and a frozen dataclass sets each field through ``object.__setattr__``."""

    __slots__ = ("nodes_last", "nodes_prev", "pods_last", "pods_prev", "read", "records", "usages")

    def __init__(
        self,
        nodes_last: Mapping[str, MetricsPoint] | None = None,
        nodes_prev: Mapping[str, MetricsPoint] | None = None,
        pods_last: Mapping[PodKey, Containers] | None = None,
        pods_prev: Mapping[PodKey, Containers] | None = None,
    ) -> None:
        self.nodes_last: Mapping[str, MetricsPoint] = {} if nodes_last is None else nodes_last
        self.nodes_prev: Mapping[str, MetricsPoint] = {} if nodes_prev is None else nodes_prev
        self.pods_last: Mapping[PodKey, Containers] = {} if pods_last is None else pods_last
        self.pods_prev: Mapping[PodKey, Containers] = {} if pods_prev is None else pods_prev
        # Each pod's usage as ``_pod_usage`` computed it from this pair of scrapes: the HPA,
        # the usage history and a replay's snapshots read the same pods between two scrapes.
        # Filled on first read; a value is a pure function of the snapshot's own points.
        self.usages: dict[PodKey, tuple[tuple[str, Usage], ...] | None] = {}
        # The same as ``pod_usage_of``'s record of the pod (None: not served), filled likewise.
        self.records: dict[PodKey, PodUsage | None] = {}
        # Whether ``pod_usage_of`` read this snapshot: then the next one's records are all
        # computed when it is stored (its readers will read them; ``pod_records.all_records``).
        self.read = False


class MetricsStorage:
    """Keeps two scrapes; ``resolution`` is the scrape period (for fresh containers)."""

    def __init__(self, resolution: timedelta = DEFAULT_RESOLUTION) -> None:
        if resolution <= timedelta(0):
            raise ValueError("resolution must be positive")
        self._resolution = resolution
        self._snapshot = _Snapshot()
        self._selections = SelectionMemo()  # pod_usage_of's answers (query side only)

    @property
    def resolution(self) -> timedelta:
        return self._resolution

    # -- writing ------------------------------------------------------------------------

    def store(self, batch: MetricsBatch) -> None:
        old = self._snapshot
        nodes_prev: dict[str, MetricsPoint] = {}
        for name, point in batch.nodes.items():
            previous = previous_of(point, old.nodes_last.get(name), old.nodes_prev.get(name))
            if previous is not None:
                nodes_prev[name] = previous
        pods_prev = previous_pods(batch.pods, old.pods_last, old.pods_prev, self._resolution)
        snapshot = _Snapshot(dict(batch.nodes), nodes_prev, dict(batch.pods), pods_prev)
        if old.read:  # its readers will read this one's records (see ``_Snapshot.read``)
            snapshot.records = all_records(snapshot.pods_last, pods_prev)
        self._snapshot = snapshot

    # -- reading ------------------------------------------------------------------------

    def ready(self) -> bool:
        """metrics-server's readiness: some node and some pod can be served."""
        snapshot = self._snapshot
        return bool(snapshot.nodes_prev) and any(snapshot.pods_prev.values())

    def node_usage(self, name: str) -> Usage | None:
        return self._node_usage(self._snapshot, name)

    @staticmethod
    def _node_usage(snapshot: _Snapshot, name: str) -> Usage | None:
        last, prev = snapshot.nodes_last.get(name), snapshot.nodes_prev.get(name)
        if last is None or prev is None:
            return None
        try:
            return compute_usage(last, prev)
        except UsageError:
            return None

    def pod_usage(self, namespace: str, name: str) -> list[tuple[str, Usage]] | None:
        """Per-container usage in the kubelet's order, or None when the pod is not served."""
        return self._pod_usage(self._snapshot, (namespace, name))

    @staticmethod
    def _pod_usage(snapshot: _Snapshot, key: PodKey) -> list[tuple[str, Usage]] | None:
        known = MetricsStorage._known_usage(snapshot, key)
        return None if known is None else list(known)

    @staticmethod
    def _known_usage(snapshot: _Snapshot, key: PodKey) -> tuple[tuple[str, Usage], ...] | None:
        """``_pod_usage`` as the snapshot keeps it (not copied: for readers that only read)."""
        usages = snapshot.usages
        if key in usages:
            return usages[key]
        computed = MetricsStorage._compute_pod_usage(snapshot, key)
        known = usages[key] = None if computed is None else tuple(computed)
        return known

    @staticmethod
    def _compute_pod_usage(snapshot: _Snapshot, key: PodKey) -> list[tuple[str, Usage]] | None:
        last, prev = snapshot.pods_last.get(key), snapshot.pods_prev.get(key)
        if last is None or prev is None:
            return None
        usages: list[tuple[str, Usage]] = []
        for container, point in last.items():
            previous = prev.get(container)
            if previous is None:
                return None
            try:
                usages.append((container, compute_usage(point, previous)))
            except UsageError:
                continue
        return usages

    def pod_metrics(
        self, namespace: str | None, now: datetime, objects: ObjectLabels | None = None
    ) -> list[JSON]:
        """PodMetrics of one namespace (all for None), ordered by namespace and name."""
        snapshot = self._snapshot
        items: list[JSON] = []
        for key in sorted(snapshot.pods_last):
            if namespace is not None and key[0] != namespace:
                continue
            labels: Mapping[str, str] = {}
            if objects is not None:
                found = objects.labels_of("pods", key[0], key[1])
                if found is None:
                    continue
                labels = found
            usages = self._pod_usage(snapshot, key)
            if usages is not None:
                items.append(render_pod_metrics(key[0], key[1], labels, now, usages))
        return items

    def pod_metrics_of(
        self,
        namespace: str,
        names: Iterable[str],
        selector: Selector,
        now: datetime,
        objects: ObjectLabels | None = None,
    ) -> list[JSON]:
        """What ``pod_metrics(namespace, ...)`` filtered by ``selector`` on the served labels
        holds of the pods ``names``, in the same order, without reading the others."""
        return [
            render_pod_metrics(namespace, name, labels, now, usages)
            for name, labels, usages in self._selected(namespace, names, selector, objects)
        ]

    def pod_usage_of(
        self,
        namespace: str,
        names: Iterable[str],
        selector: Selector,
        objects: ObjectLabels | None = None,
    ) -> list[PodUsage]:
        """The values of the items ``pod_metrics_of`` would render, unrendered."""
        # The HPA reads its pods so at every sync and the usage history every minute: the
        # label filter is kept while no pod was written, the answer while the snapshot and
        # that filter stand (``selection_memo``, keyed exactly). Without a labels version,
        # the filter runs every time.
        snapshot = self._snapshot
        snapshot.read = True
        asked = tuple(names)
        version = labels_version(objects)
        if version is None:
            matched = label_filter(objects, namespace, asked, selector)
            return self._records_of(snapshot, namespace, matched)
        memo = self._selections
        generation = memo.generation(snapshot)
        key = (namespace, selector, asked)
        kept = memo.get(key, version)
        if kept is None:
            kept = memo.keep(key, version, label_filter(objects, namespace, asked, selector))
        elif kept.generation == generation:
            return list(kept.records)
        kept.records = self._records_of(snapshot, namespace, kept.matched)
        kept.generation = generation
        return list(kept.records)

    @staticmethod
    def _records_of(snapshot: _Snapshot, namespace: str, names: Iterable[str]) -> list[PodUsage]:
        """The served records of the pods ``names`` (in that order) the snapshot holds."""
        return records_from_points(
            namespace,
            names,
            snapshot.pods_last,
            snapshot.pods_prev,
            snapshot.records,
            snapshot.usages,
        )

    def _selected(
        self,
        namespace: str,
        names: Iterable[str],
        selector: Selector,
        objects: ObjectLabels | None,
    ) -> Iterator[tuple[str, Mapping[str, str], list[tuple[str, Usage]]]]:
        snapshot = self._snapshot
        for name, labels in self._matching(snapshot, namespace, names, selector, objects):
            usages = self._pod_usage(snapshot, (namespace, name))
            if usages is not None:
                yield name, labels, usages

    @staticmethod
    def _matching(
        snapshot: _Snapshot,
        namespace: str,
        names: Iterable[str],
        selector: Selector,
        objects: ObjectLabels | None,
    ) -> Iterator[tuple[str, Mapping[str, str]]]:
        """The pods of ``names`` scraped and (with ``objects``) known, that ``selector``
        matches on their served labels, by name."""
        for name in sorted(set(names)):
            key = (namespace, name)
            if key not in snapshot.pods_last:
                continue
            labels: Mapping[str, str] = {}
            if objects is not None:
                found = objects.labels_of("pods", namespace, name)
                if found is None:
                    continue
                labels = found
            if selector.matches(labels):
                yield name, labels

    def node_metrics(self, now: datetime, objects: ObjectLabels | None = None) -> list[JSON]:
        """NodeMetrics, ordered by name."""
        snapshot = self._snapshot
        items: list[JSON] = []
        for name in sorted(snapshot.nodes_last):
            labels: Mapping[str, str] = {}
            if objects is not None:
                found = objects.labels_of("nodes", None, name)
                if found is None:
                    continue
                labels = found
            usage = self._node_usage(snapshot, name)
            if usage is not None:
                items.append(render_node_metrics(name, labels, now, usage))
        return items
