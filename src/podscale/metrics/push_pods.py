"""One write of many pods' values of one metric, as ``PushMetricsProvider`` stores it.

``PushMetricsProvider.set_pod_metrics`` (and ``refresh_pod_metrics``, which may write later,
when someone reads: ``push_series.PushSeries._settle``) parse the values with
``pod_samples`` and store them with ``write_pod_entries``; a ``PodRefresh`` is what the
provider keeps of the last such write of a namespace's metric, so that the next one of the
same pods may overwrite its entries in place, later. Pure but for the map it writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import NamedTuple

from podscale.api import Quantity
from podscale.apiserver.metricsapis.samples import CustomSample, described_kind
from podscale.metrics.push_journal import CustomKey, ExternalKey
from podscale.metrics.push_values import PushEntry, QuantityLike, quantity_of

__all__ = ["PodRefresh", "PodSamples", "PodValues", "pod_samples", "write_pod_entries"]

# Pod name -> value and window seconds, as ``set_pod_metrics`` takes them.
PodValues = Mapping[str, tuple[QuantityLike, int | None]]
# The values parsed, by pod name (sorted).
PodSamples = list[tuple[str, Quantity, int | None]]


class PodRefresh(NamedTuple):
    """The last write of a namespace's metric: its pods (sorted), when its entries expire
    (None: never), and, when it has not been stored yet, its values (a function called
    when stored) and the instant it was made."""

    names: tuple[str, ...]
    expires: datetime | None
    pending: tuple[Callable[[], PodValues], datetime] | None = None


def pod_samples(values: PodValues) -> PodSamples:
    """The values parsed (``quantity_of``: raises ``ValueError`` on a bad one), by name."""
    # Hot (the simulated kubelets push every pod each publish): a value is parsed once
    # per call however many pods share it (``quantity_of`` is a pure function of a str).
    parsed: dict[str, Quantity] = {}
    samples: PodSamples = []
    # By name: the names are the keys (unique), so sorting them alone gives the order
    # sorting the items would, without comparing tuples.
    for pod in sorted(values):
        value, window = values[pod]
        if isinstance(value, str):
            quantity = parsed.get(value)
            if quantity is None:
                quantity = parsed[value] = quantity_of(value)
        else:
            quantity = quantity_of(value)
        samples.append((pod, quantity, window))
    return samples


def write_pod_entries(
    custom: dict[CustomKey, PushEntry],
    namespace: str,
    metric: str,
    samples: PodSamples,
    now: datetime,
    expires: datetime | None,
    written: list[tuple[CustomKey | ExternalKey, PushEntry]] | None,
) -> None:
    """Store each sample in ``custom`` as written at ``now`` (and append it to
    ``written``, the journal's, when given)."""
    api_version, kind = described_kind("pods")
    sample_namespace = namespace or None
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
        custom[key] = entry = new(PushEntry, (sample, now, expires))
        if written is not None:
            written.append((key, entry))
