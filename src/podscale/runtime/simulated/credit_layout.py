"""``CreditLayout``: where each drawn row of a usage plan is credited, worked out once.

``usage_ledger.UsageLedger.credit_drawn`` credits one draw (``podscale.runtime.load.draw_rows``
over a ``UsagePlan``) to the running pods (``running_pod.RunningPod``) at every advance of
``usage.SimulatedUsage``. Which pod of the view each planned pod is, whether it is on standby,
which of its containers have a counter (a start time) and under which key, which row of the
draw each container reads and whether its node is one the ledger keeps sums for: none of
that depends on the rates, the draw or the interval, only on the plan, the pod views and the
node names. ``credit_layout`` answers it as plain tuples, which ``UsageLedger.credit_laid``
walks; ``usage_plans.UsagePlans`` keeps the layout until the plan, the pod view or the nodes
change.
Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from podscale.runtime.load import UsagePlan
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = ["CreditLayout", "LaidPod", "credit_layout"]


class LaidPod(NamedTuple):
    """One planned pod the view holds: its key, its workload's index (for its share) and
    readiness, whether it is on standby (it uses nothing), its node when the ledger keeps
    that node's sums (else None), and per container with a start time, in plan order, its
    row in the draw, its name, its start and its counter's key (name, start)."""

    key: PodKey
    workload: int
    ready: bool
    standby: bool
    node: str | None
    cells: tuple[tuple[int, str, datetime, tuple[str, datetime]], ...]


@dataclass(frozen=True, slots=True)
class CreditLayout:
    """The pods to credit in plan order (those the view lacks left out) and the nodes the
    ledger keeps counters for, in the order given."""

    pods: tuple[LaidPod, ...]
    nodes: tuple[str, ...]


def credit_layout(
    plan: UsagePlan, pods: Mapping[PodKey, RunningPod], nodes: Iterable[str]
) -> CreditLayout:
    """The layout of crediting ``plan``'s draws to the views ``pods`` on ``nodes``."""
    kept = tuple(nodes)
    known = set(kept)
    laid: list[LaidPod] = []
    row = -1  # the row of the container at hand, counted over every planned container
    for namespace, pod_name, usage_node, workload, ready, _, rows in plan.pods:
        key = (namespace, pod_name)
        pod = pods.get(key)
        if pod is None:
            row += len(rows)
            continue
        started = pod.started
        cells: list[tuple[int, str, datetime, tuple[str, datetime]]] = []
        for container in rows:
            row += 1
            name = container[0]
            began = started.get(name)
            if began is not None:
                cells.append((row, name, began, (name, began)))
        node = usage_node if usage_node in known else None
        laid.append(LaidPod(key, workload, ready, pod.standby, node, tuple(cells)))
    return CreditLayout(tuple(laid), kept)
