"""``PushSeries``: the pushed series ``PushMetricsProvider`` serves, and their writes.

The base of ``push.PushMetricsProvider`` (which adds the in-process setters and the reads of
the two provider protocols): one ``push_values.PushEntry`` per custom series (keyed by
group-resource, namespace, object, metric and labels) and per external series (namespace,
metric, labels), under one lock. ``write_custom_samples`` and ``write_external_samples``
are the push extension's writers (``podscale.apiserver.metricsapis.push``); values expire
``ttl`` after they were written, and expired ones are purged (``_purge``) at the next read
or write once the earliest expiry has passed; before that, a purge stores the pod
writes ``refresh_pod_metrics`` left pending (``_settle``). With a ``journal``
(``push_journal``), every write is recorded there before it returns (``_record_changes``),
and a new provider over it loads what was pushed (``_restore``), dropping what expired
meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime, timedelta

from podscale.apiserver.metricsapis.providers import CustomMetricInfo, CustomScope
from podscale.apiserver.metricsapis.samples import CustomSample, ExternalSample
from podscale.metrics.push_journal import (
    CustomKey,
    ExternalKey,
    PushJournal,
    decode_record,
    encode_record,
    journal_key,
)
from podscale.metrics.push_pods import PodRefresh, pod_samples, write_pod_entries
from podscale.metrics.push_values import PushEntry, expired, quantity_of
from podscale.store.interface import Clock

__all__ = ["PushSeries"]


class PushSeries:
    """The stored series, their expiry and the journal; see the module docstring."""

    def __init__(
        self, clock: Clock, *, ttl: timedelta | float | None, journal: PushJournal | None
    ) -> None:
        self._clock = clock
        self._ttl = timedelta(seconds=ttl) if isinstance(ttl, int | float) else ttl
        self._journal = journal
        self._lock = threading.Lock()
        self._custom: dict[CustomKey, PushEntry] = {}
        self._external: dict[ExternalKey, PushEntry] = {}
        # No entry can expire before this (None: none can expire at all), so a write does
        # not scan every series for expired ones (the simulated kubelets write one series
        # per pod each publish: a scan per write made a publish quadratic in pods).
        self._purge_after: datetime | None = None
        # Per namespace and metric, the last ``set_pod_metrics``-like write of its pods, not
        # stored yet while ``pending`` (``PushMetricsProvider.refresh_pod_metrics``).
        self._refreshing: dict[tuple[str, str], PodRefresh] = {}
        if journal is not None:
            self._restore(journal)

    def _restore(self, journal: PushJournal) -> None:
        """Load the journal's series; drop (there too) the ones whose ttl ran out since."""
        now = self._clock.now()
        stale: list[str] = []
        for record in journal.load():
            key, sample, pushed_at = decode_record(record)
            entry = PushEntry(sample, pushed_at, self._expiry(pushed_at))
            if expired(entry, now):
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

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            keys = [journal_key(k) for k in self._custom]
            keys += [journal_key(k) for k in self._external]
            self._custom.clear()
            self._external.clear()
            self._refreshing.clear()
            if self._journal is not None:
                self._journal.apply([], keys)

    # -- writers (the push extension) -----------------------------------------------------
    def _entry(self, sample: CustomSample | ExternalSample) -> PushEntry:
        now = self._clock.now()
        entry = PushEntry(
            sample._replace(timestamp=sample.timestamp or now), now, self._expiry(now)
        )
        return self._noted(entry)

    def _noted(self, entry: PushEntry) -> PushEntry:
        """``entry``, its expiry noted in ``_purge_after``."""
        self._note_expiry(entry.expires_at)
        return entry

    def _note_expiry(self, expires: datetime | None) -> None:
        if expires is not None and (self._purge_after is None or expires < self._purge_after):
            self._purge_after = expires

    def _record_changes(
        self,
        written: Sequence[tuple[CustomKey | ExternalKey, PushEntry]],
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
            quantity_of(s.value)
        with self._lock:
            removed: list[CustomKey | ExternalKey] = list(self._purge())
            self._refreshing.clear()  # it may replace or delete any pod's series
            if replace:
                for key in [k for k in self._custom if self._in_scope(k, scope, namespace)]:
                    del self._custom[key]
                    removed.append(key)
            written: list[tuple[CustomKey | ExternalKey, PushEntry]] = []
            for s in samples:
                key = (s.group_resource, s.namespace or "", s.name, s.metric, s.labels)
                self._custom[key] = entry = self._entry(s)
                written.append((key, entry))
            self._record_changes(written, removed)

    def write_external_samples(
        self, namespace: str, metric: str, samples: Sequence[ExternalSample], *, replace: bool
    ) -> None:
        for s in samples:
            quantity_of(s.value)
        with self._lock:
            removed: list[CustomKey | ExternalKey] = list(self._purge())
            if replace:
                for key in [k for k in self._external if k[:2] == (namespace, metric)]:
                    del self._external[key]
                    removed.append(key)
            written: list[tuple[CustomKey | ExternalKey, PushEntry]] = []
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
        self._settle()  # the pending pod writes first, as made before this
        now = self._clock.now()
        if self._purge_after is None or now < self._purge_after:
            return []
        removed: list[CustomKey | ExternalKey] = []
        for key in [k for k, e in self._custom.items() if expired(e, now)]:
            del self._custom[key]
            removed.append(key)
        for ext_key in [k for k, e in self._external.items() if expired(e, now)]:
            del self._external[ext_key]
            removed.append(ext_key)
        expiries = [
            e.expires_at
            for e in [*self._custom.values(), *self._external.values()]
            if e.expires_at is not None
        ]
        self._purge_after = min(expiries, default=None)
        return removed

    def _settle(self) -> None:
        """Store the pending pod writes (``PushMetricsProvider.refresh_pod_metrics``): each
        overwrites, in place, the entries of the write before it, as when it was made (the
        caller holds the lock; every read and write purges, so settles, first)."""
        for group, kept in self._refreshing.items():
            if kept.pending is None:
                continue
            values, at = kept.pending
            samples = pod_samples(values())
            if tuple([pod for pod, _, _ in samples]) != kept.names:
                raise ValueError(f"pod values of {group} are not of the pods they named")
            write_pod_entries(self._custom, *group, samples, at, kept.expires, None)
            self._refreshing[group] = kept._replace(pending=None)

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
