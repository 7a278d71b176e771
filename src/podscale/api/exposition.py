"""Prometheus text exposition of a ``prometheus_client`` collector, in Go's gather order.

The API server's ``/metrics`` (``podscale.apiserver.http.app``) renders the plane's
``CollectorRegistry`` (``ServerState.metrics_registry``) with ``render_text``; the HPA
controller's metrics (``podscale.controllers.hpa.monitor``) and the supervisor's
(``podscale.client.supervisor``) are collectors registered there. The text itself is
``prometheus_client.generate_latest``'s; this module only presents the families the way
client_golang's registry gathers them, which is what upstream components serve:

- families sorted by name, and a family without a sample left out (Go's gatherer skips
  a vector that has no child yet; ``prometheus_client`` prints its HELP and TYPE);
- a family's series sorted by their label values, a histogram's as buckets, ``_sum``,
  ``_count`` (Go's order; ``prometheus_client`` puts ``_count`` first);
- no ``_created`` series: Go's text format has none. They are dropped here rather than
  with the process-wide ``disable_created_metrics()``, so an application that embeds a
  plane keeps its own registry's behaviour.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from prometheus_client import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

__all__ = ["render_text"]

# A series' samples in Go's order; anything else (a counter's ``_total``, a gauge) first.
_SUFFIX_RANK = {"_bucket": 0, "_sum": 1, "_count": 2}


def render_text(collector: Collector) -> str:
    """``collector``'s families as text exposition format 0.0.4 ("" when it has none)."""
    return generate_latest(_GoOrder(collector)).decode("utf-8")


class _GoOrder:
    """A collector presenting another one's families as client_golang gathers them."""

    def __init__(self, inner: Collector) -> None:
        self._inner = inner

    def collect(self) -> Iterable[Metric]:
        families: list[Metric] = []
        for family in self._inner.collect():
            created = family.name + "_created"
            samples = [sample for sample in family.samples if sample.name != created]
            if not samples:
                continue
            ordered = copy.copy(family)
            ordered.samples = sorted(samples, key=lambda s: _series_key(family.name, s))
            families.append(ordered)
        return sorted(families, key=_exposed_name)


def _exposed_name(family: Metric) -> str:
    # A counter family is named without the ``_total`` its text carries; Go sorts by the latter.
    return family.name + "_total" if family.type == "counter" else family.name


def _series_key(family: str, sample: Sample) -> tuple[tuple[str, ...], int]:
    # Stable sort: within one series the buckets keep their ascending ``le`` order.
    labels = tuple(value for name, value in sorted(sample.labels.items()) if name != "le")
    return labels, _SUFFIX_RANK.get(sample.name.removeprefix(family), 0)
