"""The WorkloadDefault pod sorter: a workload's pods in the order it would scale them down.

Kapacity's ``WorkloadDefault`` sorter asks the target workload for its own order, first =
first to go. A StatefulSet removes its highest ordinals first, so its pods sort by the
number after the last ``-`` of their names, descending (a name without one reads 0, as
Go's failed ``Atoi``). For a Deployment Kapacity leaves the order unimplemented (the pods
as listed); podscale uses what the Deployment's ReplicaSets actually do, upstream's
deletion ranking (``controllers.replicaset.ordering.sort_for_deletion``: unscheduled,
pending, unready and cheaper-to-delete pods first, then pods sharing a node with more of
the workload's pods, ...), ranking co-location over every pod the selector matches, as
Kapacity's ReplicaSet sorter does. Any other target kind has no sorter: ``workload_of``
gives Kapacity's error text and ``rp_controller`` reports it.

Pure: the caller lists the pods and passes ``now``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from podscale.controllers.replicaset.ordering import rank_by_related_pods, sort_for_deletion

__all__ = ["UnknownWorkload", "Workload", "sort_pods", "workload_of"]


class Workload(StrEnum):
    DEPLOYMENT = "Deployment"
    STATEFUL_SET = "StatefulSet"


class UnknownWorkload(ValueError):
    """A scale target kind Kapacity has no workload behaviour for."""


def workload_of(api_version: str, kind: str) -> Workload:
    """The workload behaviour of ``kind`` in ``api_version`` (group ``apps`` only)."""
    group, _, version = api_version.rpartition("/")
    if group == "apps" and kind == Workload.DEPLOYMENT:
        return Workload.DEPLOYMENT
    if group == "apps" and kind == Workload.STATEFUL_SET:
        return Workload.STATEFUL_SET
    # Go prints a GroupVersionKind as "group/version, Kind=kind".
    raise UnknownWorkload(f'unknown workload with gvk "{group}/{version}, Kind={kind}"')


def _name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("metadata") or {}).get("name") or "")


def _ordinal(name: str) -> int:
    suffix = name[name.rfind("-") + 1 :]
    try:
        return int(suffix) if suffix.isascii() and suffix.lstrip("+-").isdigit() else 0
    except ValueError:
        return 0


def sort_pods(
    workload: Workload,
    pods: Sequence[Mapping[str, Any]],
    related: Sequence[Mapping[str, Any]],
    now: datetime,
) -> list[str]:
    """The names of ``pods`` in ``workload``'s scale-down order; ``related`` are all the
    pods the target's selector matches (co-location ranks of a Deployment)."""
    if workload is Workload.STATEFUL_SET:
        return sorted((_name(p) for p in pods), key=_ordinal, reverse=True)
    ranks = rank_by_related_pods(pods, related)
    ordered = sort_for_deletion([dict(p) for p in pods], ranks=ranks, now=now)
    return [_name(p) for p in ordered]
