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
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from podscale.api import Quantity, Selector, parse_quantity
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
    is_finite,
    render_custom,
    render_external,
    sorted_labels,
)
from podscale.metrics.object_labels import ObjectLabels
from podscale.metrics.push_journal import (
    CustomKey,
    ExternalKey,
    PushJournal,
    decode_record,
    encode_record,
    journal_key,
)
from podscale.store.interface import Clock

__all__ = ["DEFAULT_TTL", "PushMetricsProvider"]

JSON = dict[str, Any]
QuantityLike = Quantity | str | int | float

DEFAULT_TTL = timedelta(minutes=2)


class _Entry(NamedTuple):
    """A stored sample (timestamp always set), when it was pushed and when it stops being
    served (a NamedTuple: one is built per pod at every publish of the simulated kubelets)."""

    sample: CustomSample | ExternalSample
    pushed_at: datetime
    expires_at: datetime | None


def _expired(entry: _Entry, now: datetime) -> bool:
    return entry.expires_at is not None and entry.expires_at <= now


def _quantity(value: QuantityLike) -> Quantity:
    if isinstance(value, str):
        milli = _milli_quantity(value)
        if milli is not None:
            return milli  # always finite
    quantity = value if isinstance(value, Quantity) else parse_quantity(value)
    if not is_finite(quantity):
        raise ValueError(f"metric value {value!r} is not a finite number")
    return quantity


@functools.lru_cache(maxsize=4096)  # a pure function of the text, as the parse cache is
def _milli_quantity(text: str) -> Quantity | None:
    """``parse_quantity(text)`` for a whole positive number of milli-units without leading
    zeros and of at most 18 digits (``"8123m"``: what the simulated kubelets push for every
    pod at every publish, a new text nearly each time, so the parse cache seldom holds it);
    None for any other text. The parser reads such a text as ``digits x 10**-3`` and echoes
    it back unless the digits end in ``000`` (then ``"1"``, not ``"1000m"``, is canonical)."""
    digits = text[:-1]
    if (
        text[-1:] != "m"
        or not 0 < len(digits) <= 18
        or digits[0] == "0"
        or not (digits.isascii() and digits.isdigit())
    ):
        return None
    return Quantity(int(digits), -3, "DecimalSI", None if digits.endswith("000") else text)


def _combined(samples: list[CustomSample]) -> CustomSample:
    """One sample for an object whose matching series are summed; newest timestamp wins."""
    newest = max(samples, key=lambda s: s.timestamp.timestamp() if s.timestamp else 0.0)
    total = samples[0].value
    for sample in samples[1:]:
        total = total + sample.value
    return newest._replace(value=total, labels=())


class PushMetricsProvider:
    """Custom and external metrics pushed in-process or through the API (see module doc)."""

    def __init__(
        self,
        clock: Clock,
        *,
        ttl: timedelta | float | None = DEFAULT_TTL,
        objects: ObjectLabels | None = None,
        journal: PushJournal | None = None,
    ) -> None:
        self._clock = clock
        self._ttl = timedelta(seconds=ttl) if isinstance(ttl, int | float) else ttl
        self._objects = objects
        self._journal = journal
        self._lock = threading.Lock()
        self._custom: dict[CustomKey, _Entry] = {}
        self._external: dict[ExternalKey, _Entry] = {}
        # No entry can expire before this (None: none can expire at all), so a write does
        # not scan every series for expired ones (the simulated kubelets write one series
        # per pod each publish: a scan per write made a publish quadratic in pods).
        self._purge_after: datetime | None = None
        if journal is not None:
            self._restore(journal)

    def _restore(self, journal: PushJournal) -> None:
        """Load the journal's series; drop (there too) the ones whose ttl ran out since."""
        now = self._clock.now()
        stale: list[str] = []
        for record in journal.load():
            key, sample, pushed_at = decode_record(record)
            entry = _Entry(sample, pushed_at, self._expiry(pushed_at))
            if _expired(entry, now):
                stale.append(record.key)
            elif isinstance(sample, CustomSample) and len(key) == 5:
                self._custom[key] = self._noted(entry)
            elif isinstance(sample, ExternalSample) and len(key) == 3:
                self._external[key] = self._noted(entry)
        journal.apply([], stale)

    def _expiry(self, pushed_at: datetime) -> datetime | None:
        return None if self._ttl is None else pushed_at + self._ttl

    def close(self) -> None:
        """Close the journal (values stay served from memory until the provider goes)."""
        if self._journal is not None:
            self._journal.close()

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
            value=_quantity(value),
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

    def set_pod_metrics(
        self, namespace: str, metric: str, values: Mapping[str, tuple[QuantityLike, int | None]]
    ) -> None:
        """``set_pod_metric`` for many pods of ``namespace`` at once (pod name -> value and
        window seconds), as one write: one lock, one expiry check, one journal write."""
        api_version, kind = described_kind("pods")
        now = self._clock.now()
        # Hot (the simulated kubelets push every pod each publish): a value is parsed once
        # per call however many pods share it (``_quantity`` is a pure function of a str);
        # the namespace, key parts and expiry are the same for every pod.
        parsed: dict[str, Quantity] = {}
        samples: list[tuple[str, Quantity, int | None]] = []
        # By name: the names are the keys (unique), so sorting them alone gives the order
        # sorting the items would, without comparing tuples.
        for pod in sorted(values):
            value, window = values[pod]
            if isinstance(value, str):
                quantity = parsed.get(value)
                if quantity is None:
                    quantity = parsed[value] = _quantity(value)
            else:
                quantity = _quantity(value)
            samples.append((pod, quantity, window))
        sample_namespace = namespace or None
        with self._lock:
            removed: list[CustomKey | ExternalKey] = list(self._purge())
            written: list[tuple[CustomKey | ExternalKey, _Entry]] = []
            # Only the journal reads what was written (``_record_changes``).
            journaled = self._journal is not None
            expires = self._expiry(now)
            custom = self._custom
            # The sample and entry NamedTuples built by ``tuple.__new__``, as their generated
            # ``__new__`` does, without that Python-level call (two per pod and publish).
            new = tuple.__new__
            for pod, quantity, window in samples:
                sample: CustomSample = new(
                    CustomSample,
                    (
                        "pods",
                        sample_namespace,
                        pod,
                        metric,
                        quantity,
                        (),
                        now,
                        window,
                        kind,
                        api_version,
                    ),
                )
                key: CustomKey = ("pods", namespace, pod, metric, ())
                custom[key] = entry = new(_Entry, (sample, now, expires))
                if journaled:
                    written.append((key, entry))
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
            namespace, metric, _quantity(value), sorted_labels(labels), timestamp, window_seconds
        )
        self.write_external_samples(namespace, metric, [sample], replace=False)

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            keys = [journal_key(k) for k in self._custom]
            keys += [journal_key(k) for k in self._external]
            self._custom.clear()
            self._external.clear()
            if self._journal is not None:
                self._journal.apply([], keys)

    # -- writers (the push extension) -----------------------------------------------------
    def _entry(self, sample: CustomSample | ExternalSample) -> _Entry:
        now = self._clock.now()
        entry = _Entry(sample._replace(timestamp=sample.timestamp or now), now, self._expiry(now))
        return self._noted(entry)

    def _noted(self, entry: _Entry) -> _Entry:
        """``entry``, its expiry noted in ``_purge_after``."""
        self._note_expiry(entry.expires_at)
        return entry

    def _note_expiry(self, expires: datetime | None) -> None:
        if expires is not None and (self._purge_after is None or expires < self._purge_after):
            self._purge_after = expires

    def _record_changes(
        self,
        written: Sequence[tuple[CustomKey | ExternalKey, _Entry]],
        removed: Sequence[CustomKey | ExternalKey],
    ) -> None:
        """Journal one write (the caller holds the lock): in memory and on disk agree."""
        if self._journal is None:
            return
        kept = {k for k, _ in written}
        self._journal.apply(
            [encode_record(k, e.sample, e.pushed_at) for k, e in written],
            [journal_key(k) for k in removed if k not in kept],
        )

    def write_custom_samples(
        self, scope: CustomScope, samples: Sequence[CustomSample], *, replace: bool
    ) -> None:
        namespace = scope.namespace or ""
        for s in samples:
            _quantity(s.value)
        with self._lock:
            removed: list[CustomKey | ExternalKey] = list(self._purge())
            if replace:
                for key in [k for k in self._custom if self._in_scope(k, scope, namespace)]:
                    del self._custom[key]
                    removed.append(key)
            written: list[tuple[CustomKey | ExternalKey, _Entry]] = []
            for s in samples:
                key = (s.group_resource, s.namespace or "", s.name, s.metric, s.labels)
                self._custom[key] = entry = self._entry(s)
                written.append((key, entry))
            self._record_changes(written, removed)

    def write_external_samples(
        self, namespace: str, metric: str, samples: Sequence[ExternalSample], *, replace: bool
    ) -> None:
        for s in samples:
            _quantity(s.value)
        with self._lock:
            removed: list[CustomKey | ExternalKey] = list(self._purge())
            if replace:
                for key in [k for k in self._external if k[:2] == (namespace, metric)]:
                    del self._external[key]
                    removed.append(key)
            written: list[tuple[CustomKey | ExternalKey, _Entry]] = []
            for s in samples:
                ext_key = (s.namespace, s.metric, s.labels)
                self._external[ext_key] = entry = self._entry(s)
                written.append((ext_key, entry))
            self._record_changes(written, removed)

    @staticmethod
    def _in_scope(key: CustomKey, scope: CustomScope, namespace: str) -> bool:
        group_resource, key_namespace, name, metric, _ = key
        return (group_resource, key_namespace, metric) == (
            scope.info.group_resource,
            namespace,
            scope.info.metric,
        ) and (scope.name is None or scope.name == name)

    def _purge(self) -> list[CustomKey | ExternalKey]:
        """Drop expired entries (the caller holds the lock); their keys, for the journal.

        Reads purge too but do not write the journal: a stale row there is dropped by the
        next write or on load, never served."""
        now = self._clock.now()
        if self._purge_after is None or now < self._purge_after:
            return []
        removed: list[CustomKey | ExternalKey] = []
        for key in [k for k, e in self._custom.items() if _expired(e, now)]:
            del self._custom[key]
            removed.append(key)
        for ext_key in [k for k, e in self._external.items() if _expired(e, now)]:
            del self._external[ext_key]
            removed.append(ext_key)
        expiries = [
            e.expires_at
            for e in [*self._custom.values(), *self._external.values()]
            if e.expires_at is not None
        ]
        self._purge_after = min(expiries, default=None)
        return removed

    def _live_custom(self, info: CustomMetricInfo, namespace: str | None) -> list[CustomSample]:
        wanted = (info.group_resource, namespace or "")
        with self._lock:
            self._purge()
            return [
                e.sample
                for k, e in self._custom.items()
                if (k[0], k[1]) == wanted and k[3] == info.metric
                if isinstance(e.sample, CustomSample)
            ]

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
        return render_custom(_combined(matching), metric_selector)

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
            render_custom(_combined(by_name[name]), metric_selector)
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
