"""The values of Crane's two external metrics, kept per namespace, ready to publish.

Crane's metric collector exports ``crane_autoscaling_prediction`` and
``crane_autoscaling_cron`` as series labelled by the target's kind, name and namespace and
the metric's ``resourceIdentifier`` (plus ``algorithm`` for a prediction); its adapter
serves them on external.metrics.k8s.io to the generated HPAs, which select them by those
labels. ``Published`` is that set of series in memory: the controller sets or drops one
EHPA's series and hands the whole set of a (namespace, metric) to an
``ExternalMetricsWriter`` (podscale's push provider) as a replacing write, so a series
dropped here disappears there and other EHPAs' series in the namespace are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from podscale.api import Quantity
from podscale.apiserver.metricsapis.providers import ExternalMetricsWriter
from podscale.apiserver.metricsapis.samples import ExternalSample, Labels, sorted_labels

__all__ = ["Published", "as_quantity"]

Key = tuple[str, str]  # namespace, metric
_MILLI: Final = 1000


def as_quantity(value: float) -> Quantity:
    """A value in milli units (Crane's gauge keeps the float; a quantity needs a grain)."""
    return Quantity.from_milli(round(value * _MILLI))


class Published:
    """Series by (namespace, metric), each by owner (the EHPA's key) and label set."""

    def __init__(self, writer: ExternalMetricsWriter | None) -> None:
        self._writer = writer
        self._series: dict[Key, dict[tuple[str, Labels], Quantity]] = {}

    def set(
        self,
        owner: str,
        namespace: str,
        metric: str,
        series: Mapping[Labels, Quantity],
    ) -> None:
        """Make ``series`` the owner's whole set of ``metric`` (empty: none) and write the
        namespace's set of that metric: always while the owner has series, as pushed
        values expire and each sync renews them; otherwise when something was dropped."""
        key = (namespace, metric)
        current = self._series.get(key, {})
        kept = {k: v for k, v in current.items() if k[0] != owner}
        wanted = {**kept, **{(owner, labels): value for labels, value in series.items()}}
        if not series and wanted == current:
            return
        self._series[key] = wanted
        self._write(key)

    def forget(self, owner: str) -> None:
        for key, series in list(self._series.items()):
            if any(k[0] == owner for k in series):
                self._series[key] = {k: v for k, v in series.items() if k[0] != owner}
                self._write(key)

    def value(self, namespace: str, metric: str, labels: Mapping[str, str]) -> Quantity | None:
        """The value of a series (for tests and describe)."""
        wanted = sorted_labels(labels)
        for (_, have), value in self._series.get((namespace, metric), {}).items():
            if have == wanted:
                return value
        return None

    def _write(self, key: Key) -> None:
        if self._writer is None:
            return
        namespace, metric = key
        samples = [
            ExternalSample(namespace, metric, value, labels)
            for (_, labels), value in sorted(self._series[key].items())
        ]
        self._writer.write_external_samples(namespace, metric, samples, replace=True)
