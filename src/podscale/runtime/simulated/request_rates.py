"""Each ready loaded pod's request rate since its last publish, as custom-metric values.

``runtime.simulated.usage.SimulatedUsage.publish`` calls ``request_rates`` (as
``rates_of_rows``, through ``rate_marks.publish_rates``, which defers it to when the rates
are read while the members stay the same) every publish period with the pods each load
serves (``assign_pods``' members), the ledger's cumulative requests served per pod
(``UsageLedger.requests_by_pod``) and the map of each pod's last publish; the answer goes
into a ``metrics.push.PushMetricsProvider``. A rate is the requests served between two
publishes over the seconds between them, as Prometheus' ``rate()`` would give it, in
milli-units; a pod's first publish only starts its window. What it reads of each member
pod (``rate_rows``) changes only with the assignment, which the caller keeps it with (in a
``rate_marks.RateTable``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Final

from podscale.runtime.load import PodLoad
from podscale.runtime.simulated.running_pod import PodKey
from podscale.runtime.simulated.usage_loads import WorkloadLoad

__all__ = [
    "Published",
    "RateRow",
    "RatesByNamespace",
    "rate_rows",
    "rates_of_rows",
    "request_rates",
]

# The instant of a pod's last publish and its requests served then.
Published = dict[PodKey, tuple[datetime, float]]
# Per namespace, per pod: the rate's quantity text and its window in whole seconds.
RatesByNamespace = dict[str, dict[str, tuple[str, int | None]]]
# A member pod as ``rates_of_rows`` reads it: its key, namespace, name and readiness.
RateRow = tuple[PodKey, str, str, bool]
# What a pod never published reads as (no instant, nothing served).
_NEVER: Final[tuple[None, float]] = (None, 0.0)


def rate_rows(members: Sequence[tuple[WorkloadLoad, Sequence[PodLoad]]]) -> tuple[RateRow, ...]:
    """The member pods as ``rates_of_rows`` reads them, in order: what ``request_rates``
    read of each pod at every publish, read once (a caller keeps it per assignment)."""
    return tuple(
        [
            ((pod.namespace, pod.name), pod.namespace, pod.name, pod.ready)
            for _, pods in members
            for pod in pods
        ]
    )


def request_rates(
    members: Sequence[tuple[WorkloadLoad, Sequence[PodLoad]]],
    requests_served: Mapping[PodKey, float],
    published: Published,
    now: datetime,
    pushing: bool,
) -> RatesByNamespace:
    """The rates to publish at ``now``; records ``now`` as every member pod's last publish
    in ``published`` (a pod not ready, or published for the first time, gets no rate).
    With ``pushing`` False only the record is kept (nothing reads the rates). A pod missing
    from ``requests_served`` has served none."""
    return rates_of_rows(rate_rows(members), requests_served, published, now, pushing)


def rates_of_rows(
    rows: Sequence[RateRow],
    requests_served: Mapping[PodKey, float],
    published: Published,
    now: datetime,
    pushing: bool,
) -> RatesByNamespace:
    """``request_rates`` of the members whose ``rate_rows`` are ``rows``."""
    by_namespace: RatesByNamespace = {}
    # Hot (every pod, every publish). Pods published together share their window (one per
    # distinct last publish: the same arithmetic on the same instants) and often their rate
    # (one text per distinct rate).
    windows: dict[datetime, tuple[float, int]] = {}
    texts: dict[float, str] = {}
    # The namespace's map of the pod before (a load's pods share their namespace).
    namespace: str | None = None
    values: dict[str, tuple[str, int | None]] = {}
    served_of, published_of, never = requests_served.get, published.get, _NEVER
    for key, pod_namespace, name, ready in rows:
        served = served_of(key, 0.0)
        since, before = published_of(key, never)
        published[key] = (now, served)
        if not ready or since is None or not pushing:
            continue
        window = windows.get(since)
        if window is None:
            seconds = (now - since).total_seconds()
            window = windows[since] = (max(seconds, 1e-9), round(seconds))
        rate = (served - before) / window[0]
        text = texts.get(rate)
        if text is None:
            text = texts[rate] = f"{round(rate * 1000)}m"
        if pod_namespace != namespace:
            namespace = pod_namespace
            values = by_namespace.setdefault(namespace, {})
        values[name] = (text, window[1])
    return by_namespace
