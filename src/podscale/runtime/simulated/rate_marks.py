"""Request rates published without touching every pod: each publish kept as a snapshot.

``SimulatedUsage.publish`` publishes every ready loaded pod's request rate every period
(``request_rates``), and the rates are mostly written and never read (a fleet whose HPAs
scale on CPU reads none). ``publish_rates`` is ``request_rates.rates_of_rows`` whose work
per pod is done only when the rates are read: while the members stay the same
(``RateTable``, kept per assignment), every member pod was last published at the last
publish, so the last publish is kept whole (``LastPublish``: its table, instant and the
cumulative requests served per pod as of then, a snapshot ``requests_served`` hands over and
nobody changes: ``UsageLedger.requests_by_pod``) instead of writing each
pod's mark into ``published``, and each namespace's rates are a function
(``PodRates.values``) of the two copies, which the push provider calls when someone reads
(``PushMetricsProvider.refresh_pod_metrics``). A new table, or a pod gone
(``forget_mark``), first writes the kept marks into ``published`` (``settle_marks``) and
takes the general path. Answers and marks equal the general path's: the same arithmetic on
the same operands (tests/unit/runtime/simulated/test_rate_marks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from podscale.runtime.load import PodLoad
from podscale.runtime.simulated.request_rates import (
    Published,
    RateRow,
    rate_rows,
    rates_of_rows,
)
from podscale.runtime.simulated.running_pod import PodKey
from podscale.runtime.simulated.usage_loads import WorkloadLoad

__all__ = [
    "LastPublish",
    "PodRates",
    "RateTable",
    "forget_mark",
    "mark_of",
    "publish_rates",
    "rate_table",
    "settle_marks",
]

# A namespace's pod values as ``PushMetricsProvider.set_pod_metrics`` takes them.
Values = dict[str, tuple[str, int | None]]


class RateTable(NamedTuple):
    """The member pods as ``publish_rates`` reads them (``rate_table``)."""

    rows: tuple[RateRow, ...]  # ``rate_rows``: the general path's
    keys: tuple[PodKey, ...]  # every member pod's, in order
    unique: bool  # no pod twice (``assign_pods`` claims each pod once)
    # Per namespace (in the order of its first ready pod): its ready pods' names (sorted)
    # and keys (in the same order).
    ready: tuple[tuple[str, tuple[str, ...], tuple[PodKey, ...]], ...]


class LastPublish(NamedTuple):
    """The last publish whose marks ``published`` does not hold yet: each pod of ``table``
    was last published at ``at``, having served ``served.get(key, 0.0)`` then."""

    table: RateTable
    at: datetime
    served: Mapping[PodKey, float]


class PodRates(NamedTuple):
    """One namespace's rates: the pods' names (sorted) and a function giving their
    values (name -> rate text and window), called when they are read."""

    namespace: str
    names: tuple[str, ...]
    values: Callable[[], Values]


def rate_table(members: Sequence[tuple[WorkloadLoad, Sequence[PodLoad]]]) -> RateTable:
    """``members`` as ``publish_rates`` reads them (a caller keeps it per assignment)."""
    rows = rate_rows(members)
    keys = tuple([row[0] for row in rows])
    ready: dict[str, list[tuple[str, PodKey]]] = {}
    for key, namespace, name, pod_ready in rows:
        if pod_ready:
            ready.setdefault(namespace, []).append((name, key))
    return RateTable(
        rows,
        keys,
        len(set(keys)) == len(keys),
        tuple(
            [
                (namespace, tuple([n for n, _ in pods]), tuple([k for _, k in pods]))
                for namespace, pods in ((ns, sorted(pods)) for ns, pods in ready.items())
            ]
        ),
    )


def settle_marks(published: Published, last: LastPublish | None) -> None:
    """Write ``last``'s marks into ``published`` (what the general path would have written)."""
    if last is not None:
        served_of, at = last.served.get, last.at
        for key in last.table.keys:
            published[key] = (at, served_of(key, 0.0))


def mark_of(
    published: Published, last: LastPublish | None, key: PodKey
) -> tuple[datetime, float] | None:
    """The pod's last publish and its requests served then (None: never published)."""
    if last is not None and key in last.table.keys:
        return last.at, last.served.get(key, 0.0)
    return published.get(key)


def forget_mark(published: Published, last: LastPublish | None, key: PodKey) -> None:
    """Forget the pod's mark (it is gone); the caller drops ``last``, settled here."""
    settle_marks(published, last)
    published.pop(key, None)


def publish_rates(
    table: RateTable,
    requests_served: Mapping[PodKey, float],
    published: Published,
    last: LastPublish | None,
    now: datetime,
    pushing: bool,
) -> tuple[LastPublish | None, list[PodRates]]:
    """``rates_of_rows(table.rows, ...)`` as ``PodRates`` per namespace (none when not
    ``pushing``), and what to keep as the last publish. ``requests_served`` is kept as it
    is: the caller hands over a snapshot it never changes. With ``last`` of the same table
    nothing is done per pod: the rates are computed when ``PodRates.values`` is called.
    Otherwise ``last`` is settled into ``published`` and the general path runs."""
    if last is not None and last.table is table:
        # A snapshot the caller never changes (``UsageLedger.requests_by_pod``): kept as
        # it is, the rates read it as of now.
        served = requests_served
        kept = LastPublish(table, now, served)
        if not pushing:
            return kept, []
        before, since = last.served, last.at
        return kept, [
            PodRates(namespace, names, _rates_later(keys, names, before, served, since, now))
            for namespace, names, keys in table.ready
        ]
    settle_marks(published, last)
    by_namespace = rates_of_rows(table.rows, requests_served, published, now, pushing)
    marks = LastPublish(table, now, requests_served) if table.unique else None
    return marks, [
        PodRates(namespace, tuple(sorted(values)), _given(values))
        for namespace, values in by_namespace.items()
    ]


def _given(values: Values) -> Callable[[], Values]:
    return lambda: values


def _rates_later(
    keys: tuple[PodKey, ...],
    names: tuple[str, ...],
    before: Mapping[PodKey, float],
    after: Mapping[PodKey, float],
    since: datetime,
    now: datetime,
) -> Callable[[], Values]:
    def values() -> Values:
        return pod_rates(keys, names, before, after, since, now)

    return values


def pod_rates(
    keys: tuple[PodKey, ...],
    names: tuple[str, ...],
    before: Mapping[PodKey, float],
    after: Mapping[PodKey, float],
    since: datetime,
    now: datetime,
) -> Values:
    """The rates of the pods (``keys``, named ``names``) that served ``before[key]`` at
    ``since`` and ``after[key]`` at ``now``: ``rates_of_rows``' arithmetic, pod for pod."""
    seconds = (now - since).total_seconds()
    divisor, window = max(seconds, 1e-9), round(seconds)
    texts: dict[float, str] = {}  # one text per distinct rate: a load's pods share theirs
    values: Values = {}
    before_of, after_of = before.get, after.get
    for key, name in zip(keys, names, strict=True):
        rate = (after_of(key, 0.0) - before_of(key, 0.0)) / divisor
        text = texts.get(rate)
        if text is None:
            text = texts[rate] = f"{round(rate * 1000)}m"
        values[name] = (text, window)
    return values
