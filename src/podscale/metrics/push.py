"""``PushMetricsProvider``: custom and external metrics that someone pushes in.

Serves custom.metrics.k8s.io and external.metrics.k8s.io (it implements both provider
protocols of ``podscale.apiserver.metricsapis.providers``) from values that tests and
simulations hand it, either in-process (``set_custom_metric``, ``set_pod_metric``,
``set_external_metric``) or through the API server (PUT/POST of a value list at the URL a GET
reads; see ``podscale.apiserver.metricsapis.push`` for the body rules).

Contract:
- A series is one metric of one object (custom) or of one namespace (external) with one label
  set; writing it again replaces its value. PUT replaces everything its URL names.
- Values expire ``ttl`` after they were written, on the injected clock (None: never), so a
  source that stops pushing looks like a metric that went missing, as with a real adapter.
- ``metricLabelSelector`` (external: ``labelSelector``) filters series by their labels; when
  several series of one object match, their values are summed, like the adapters' default
  ``sum(...) by (...)`` query, and the newest timestamp wins.
- A custom read by ``labelSelector`` keeps only objects that ``objects`` (``ObjectLabels``)
  says exist and match, so a deleted pod's samples are never served. Without ``objects`` the
  selector cannot be evaluated and every object with a value is returned (the HPA matches
  pods itself).
- Unknown metric: the adapters' 404s (``metric_not_found*``); known metric with no matching
  object or series: an empty list.
- Values must be finite as a double (``metricsapis.samples.is_finite``): the setters raise
  ``ValueError`` otherwise, as the push extension answers 400.
- With a ``journal`` (``push_journal``), every change is recorded there before the write
  returns, and a new provider over it serves what was pushed until ``ttl`` after the push
  time: values survive a restart; ones that expired meanwhile are dropped on load.

``refresh_pod_metrics`` is ``set_pod_metrics`` with values computed only when someone reads,
while it overwrites the same pods' unexpired entries and there is no journal (what the
simulated kubelets publish every period, mostly never read): every read and write first
stores the pending values as of their write (``PushSeries._settle``), so no answer, expiry
or journal record differs from ``set_pod_metrics``'.

The stored series, their expiry and purge, the journal and the push extension's writers
(``write_custom_samples``, ``write_external_samples``) are its base's,
``push_series.PushSeries``; the entries and the parsing of values are ``push_values``'s. This
module adds the in-process setters and the reads of the two provider protocols.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.api import Selector
from podscale.apiserver.metricsapis.providers import (
    CustomMetricInfo,
    CustomScope,
    ExternalMetricInfo,
    external_metric_not_found,
    metric_not_found,
    metric_not_found_for,
    metric_not_found_for_selector,
)
from podscale.apiserver.metricsapis.samples import (
    CustomSample,
    ExternalSample,
    described_kind,
    render_custom,
    render_external,
    sorted_labels,
)
from podscale.metrics.object_labels import ObjectLabels
from podscale.metrics.push_journal import CustomKey, ExternalKey, PushJournal
from podscale.metrics.push_pods import (
    PodRefresh,
    PodSamples,
    PodValues,
    pod_samples,
    write_pod_entries,
)
from podscale.metrics.push_series import PushSeries
from podscale.metrics.push_values import PushEntry, QuantityLike, combined, quantity_of
from podscale.store.interface import Clock

__all__ = ["DEFAULT_TTL", "PushMetricsProvider"]

JSON = dict[str, Any]

DEFAULT_TTL = timedelta(minutes=2)


class PushMetricsProvider(PushSeries):
    """Custom and external metrics pushed in-process or through the API (see module doc)."""

    def __init__(
        self,
        clock: Clock,
        *,
        ttl: timedelta | float | None = DEFAULT_TTL,
        objects: ObjectLabels | None = None,
        journal: PushJournal | None = None,
    ) -> None:
        super().__init__(clock, ttl=ttl, journal=journal)
        self._objects = objects

    # -- in-process setters ---------------------------------------------------------------
    def set_custom_metric(
        self,
        group_resource: str,
        namespace: str | None,
        name: str,
        metric: str,
        value: QuantityLike,
        *,
        labels: Mapping[str, str] | None = None,
        timestamp: datetime | None = None,
        window_seconds: int | None = None,
    ) -> None:
        """Set one series of ``metric`` for an object (``namespace`` None: root-scoped)."""
        namespace = namespace or None
        api_version, kind = described_kind(group_resource)
        sample = CustomSample(
            group_resource=group_resource,
            namespace=namespace,
            name=name,
            metric=metric,
            value=quantity_of(value),
            labels=sorted_labels(labels),
            timestamp=timestamp,
            window_seconds=window_seconds,
            kind=kind,
            api_version=api_version,
        )
        info = CustomMetricInfo(group_resource, namespace is not None, metric)
        self.write_custom_samples(CustomScope(info, namespace, name), [sample], replace=False)

    def set_pod_metric(
        self, namespace: str, pod: str, metric: str, value: QuantityLike, **options: Any
    ) -> None:
        """``set_custom_metric`` for a pod (what a Pods metric of an HPA reads)."""
        self.set_custom_metric("pods", namespace, pod, metric, value, **options)

    def set_pod_metrics(self, namespace: str, metric: str, values: PodValues) -> None:
        """``set_pod_metric`` for many pods of ``namespace`` at once (pod name -> value and
        window seconds), as one write: one lock, one expiry check, one journal write."""
        now = self._clock.now()
        samples = pod_samples(values)  # a bad value raises before anything is written
        with self._lock:
            self._write_pods(namespace, metric, samples, now)
            self._refreshing.pop((namespace, metric), None)

    def refresh_pod_metrics(
        self,
        namespace: str,
        metric: str,
        names: tuple[str, ...],
        values: Callable[[], PodValues],
    ) -> None:
        """``set_pod_metrics(namespace, metric, values())`` where ``names`` are the sorted
        keys of ``values()``, which must be valid values (``ValueError`` otherwise, maybe
        at a later read). When the last write of ``metric`` in ``namespace`` was of the
        same pods, none of its entries has expired, and there is no journal, ``values``
        is called only when someone reads (``_settle``): this write would have overwritten
        each entry in place, and its purge of expired series is the next read's or
        write's (every one purges first, and what has expired by now has by then)."""
        now = self._clock.now()
        group = (namespace, metric)
        with self._lock:
            kept = self._refreshing.get(group)
            if (
                kept is not None
                and kept.names == names
                and (kept.expires is None or now < kept.expires)
                and self._journal is None
            ):
                expires = self._expiry(now)
                self._refreshing[group] = PodRefresh(names, expires, (values, now))
                if names:
                    self._note_expiry(expires)  # as ``_write_pods`` would
                return
            samples = pod_samples(values())
            self._write_pods(namespace, metric, samples, now)
            written = tuple([pod for pod, _, _ in samples])
            self._refreshing[group] = PodRefresh(written, self._expiry(now))

    def _write_pods(self, namespace: str, metric: str, samples: PodSamples, now: datetime) -> None:
        """Write the pods' samples of ``metric`` at ``now`` (the caller holds the lock)."""
        removed: list[CustomKey | ExternalKey] = list(self._purge())
        # Only the journal reads what was written (``_record_changes``).
        written: list[tuple[CustomKey | ExternalKey, PushEntry]] = []
        expires = self._expiry(now)
        journaled = written if self._journal is not None else None
        write_pod_entries(self._custom, namespace, metric, samples, now, expires, journaled)
        if samples:
            self._note_expiry(expires)  # every entry expires at ``expires``
        self._record_changes(written, removed)

    def set_external_metric(
        self,
        namespace: str,
        metric: str,
        value: QuantityLike,
        *,
        labels: Mapping[str, str] | None = None,
        timestamp: datetime | None = None,
        window_seconds: int | None = None,
    ) -> None:
        """Set the series of external ``metric`` in ``namespace`` with ``labels``."""
        sample = ExternalSample(
            namespace, metric, quantity_of(value), sorted_labels(labels), timestamp, window_seconds
        )
        self.write_external_samples(namespace, metric, [sample], replace=False)

    # -- CustomMetricsProvider --------------------------------------------------------------
    def list_custom_metrics(self) -> Sequence[CustomMetricInfo]:
        with self._lock:
            self._purge()
            keys = {(k[0], bool(k[1]), k[3]) for k in self._custom}
        return [CustomMetricInfo(gr, namespaced, metric) for gr, namespaced, metric in keys]

    async def get_metric_by_name(
        self,
        namespace: str | None,
        name: str,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> JSON:
        samples = self._live_custom(info, namespace)
        if not samples:
            raise metric_not_found(info.group_resource, info.metric)
        own = [s for s in samples if s.name == name]
        if not own:
            raise metric_not_found_for(info.group_resource, info.metric, name)
        matching = [s for s in own if metric_selector.matches(dict(s.labels))]
        if not matching:
            raise metric_not_found_for_selector(
                info.group_resource, info.metric, name, metric_selector
            )
        return render_custom(combined(matching), metric_selector)

    async def get_metric_by_selector(
        self,
        namespace: str | None,
        selector: Selector,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> list[JSON]:
        samples = self._live_custom(info, namespace)
        if not samples:
            raise metric_not_found(info.group_resource, info.metric)
        by_name: dict[str, list[CustomSample]] = {}
        for sample in samples:
            if metric_selector.matches(dict(sample.labels)):
                by_name.setdefault(sample.name, []).append(sample)
        return [
            render_custom(combined(by_name[name]), metric_selector)
            for name in sorted(self._selected(by_name, info, namespace, selector))
        ]

    def _selected(
        self,
        names: Iterable[str],
        info: CustomMetricInfo,
        namespace: str | None,
        selector: Selector,
    ) -> list[str]:
        if self._objects is None:
            return list(names)
        chosen: list[str] = []
        for name in names:
            labels = self._objects.labels_of(info.group_resource, namespace, name)
            if labels is not None and selector.matches(labels):
                chosen.append(name)
        return chosen

    # -- ExternalMetricsProvider ------------------------------------------------------------
    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        with self._lock:
            self._purge()
            metrics = {k[1] for k in self._external}
        return [ExternalMetricInfo(metric) for metric in metrics]

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        with self._lock:
            self._purge()
            samples = [
                e.sample
                for k, e in sorted(self._external.items(), key=lambda item: item[0])
                if k[:2] == (namespace, info.metric)
                if isinstance(e.sample, ExternalSample)
            ]
        if not samples:
            raise external_metric_not_found(info.metric)
        return [render_external(s) for s in samples if metric_selector.matches(dict(s.labels))]
