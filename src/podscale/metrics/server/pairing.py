"""Which stored point each point of a new scrape pairs with (``storage``'s write side).

``MetricsStorage.store`` keeps, for every node and container point of a batch, the point to
make a rate with: the one stored last if the new one is newer, else the previous one kept if
still older, else none; a container that restarted (started at or after the stored point)
has none, and a fresh one (started between ``FRESH_CONTAINER_MIN_AGE`` and one resolution
before its sample) gets a synthetic point, CPU zero at its start time. ``previous_of`` is
the rule for one point, ``previous_containers`` for one pod's containers, ``previous_pods``
the loop over a scrape's pods. Pure functions
over the immutable mappings of the stored snapshot (the steady state shares them: see
``previous_pods``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Final

from podscale.metrics.server.pod_records import Containers
from podscale.metrics.server.points import MetricsPoint, PodKey

__all__ = ["FRESH_CONTAINER_MIN_AGE", "previous_containers", "previous_of", "previous_pods"]

FRESH_CONTAINER_MIN_AGE: Final = timedelta(seconds=10)
"""Younger containers give too short a window for the synthetic first point."""
_NONE: Final[Containers] = {}  # a pod not stored (read only)


def previous_of(
    new: MetricsPoint, last: MetricsPoint | None, prev: MetricsPoint | None
) -> MetricsPoint | None:
    """The point to pair with ``new``, given what was stored as last and previous."""
    if last is None:
        return None
    if new.timestamp > last.timestamp:
        return last
    # The same sample again (or an older one): keep the older pair member if it still is.
    # (Upstream would pair a container missing from ``prev`` with Go's zero point, a
    # window of centuries; such a container simply has no previous point here.)
    if prev is not None and prev.timestamp < new.timestamp:
        return prev
    return None


def previous_containers(
    containers: Containers, last: Containers, prev: Containers, resolution: timedelta
) -> dict[str, MetricsPoint]:
    """The point each container of one pod's new scrape pairs with, by name (the containers
    without one left out), given the pod's last and previous stored points: the pairing
    rules for one pod, spelled plainly; ``previous_pods`` is the same over a scrape's pods,
    fused and unpacked (the tests hold the two equal)."""
    chosen: dict[str, MetricsPoint] = {}
    for name, point in containers.items():
        start, timestamp = point.start_time, point.timestamp
        fresh = (
            start is not None
            and start < timestamp
            and FRESH_CONTAINER_MIN_AGE <= timestamp - start < resolution
        )
        if fresh:
            assert start is not None
            chosen[name] = point._replace(timestamp=start, cumulative_cpu_used=0)
            continue
        stored = last.get(name)
        if stored is None or (start is not None and start >= stored.timestamp):
            continue  # new, or restarted
        if timestamp > stored.timestamp:
            chosen[name] = stored
            continue
        earlier = prev.get(name)
        if earlier is not None and earlier.timestamp < timestamp:
            chosen[name] = earlier
    return chosen


def previous_pods(
    pods: Mapping[PodKey, Containers],
    last: Mapping[PodKey, Containers],
    prev: Mapping[PodKey, Containers],
    resolution: timedelta,
) -> dict[PodKey, Containers]:
    """Each pod's ``previous_containers`` given what was stored as its last
    and previous points, in the batch's order, the pods without any left out: ``store``'s
    loop over every container of a scrape, the per-pod method inlined (the same tests in
    the same order) and each point unpacked once rather than read field by field. A pod
    whose every container pairs with its stored point gets the stored mapping itself (equal
    to what the method builds; the storage reads the pairs by name only)."""
    chosen_of: dict[PodKey, Containers] = {}
    fresh_min = FRESH_CONTAINER_MIN_AGE
    for key, containers in pods.items():
        stored_of = last.get(key, _NONE)
        # A pod of one container (the usual case) scraped again: the steady state's tests
        # below on that container, without the loop.
        if len(containers) == 1 and len(stored_of) == 1:
            [name] = containers
            start, timestamp, _, _ = containers[name]
            if not (
                start is not None
                and start < timestamp
                and fresh_min <= timestamp - start < resolution
            ):
                stored = stored_of.get(name)
                if stored is not None:
                    stored_at = stored[1]
                    if not ((start is not None and start >= stored_at) or timestamp <= stored_at):
                        chosen_of[key] = stored_of
                        continue
        # The steady state (a pod scraped again, nothing restarted): every container pairs
        # with its stored point, so what is chosen equals the stored containers, and that
        # (immutable) mapping itself is kept rather than a copy per pod and scrape (the
        # pairs are read by name only). The same tests as below; any other outcome takes
        # the general loop, from the start.
        if stored_of and len(stored_of) == len(containers):
            for name, point in containers.items():
                start, timestamp, _, _ = point
                if (
                    start is not None
                    and start < timestamp
                    and fresh_min <= timestamp - start < resolution
                ):
                    break
                stored = stored_of.get(name)
                if stored is None:
                    break
                stored_at = stored[1]
                if (start is not None and start >= stored_at) or timestamp <= stored_at:
                    break
            else:
                chosen_of[key] = stored_of
                continue
        earlier_of: Containers | None = None  # ``prev``'s, read when first needed
        chosen: dict[str, MetricsPoint] = {}
        for name, point in containers.items():
            start, timestamp, _, _ = point
            if (
                start is not None
                and start < timestamp
                and fresh_min <= timestamp - start < resolution
            ):
                chosen[name] = point._replace(timestamp=start, cumulative_cpu_used=0)
                continue
            stored = stored_of.get(name)
            if stored is None:
                continue  # new
            stored_at = stored[1]
            if start is not None and start >= stored_at:
                continue  # restarted
            if timestamp > stored_at:
                chosen[name] = stored
                continue
            if earlier_of is None:
                earlier_of = prev.get(key, _NONE)
            earlier = earlier_of.get(name)
            if earlier is not None and earlier[1] < timestamp:
                chosen[name] = earlier
        if chosen:
            chosen_of[key] = chosen
    return chosen_of
