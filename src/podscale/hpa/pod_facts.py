"""``group_pods`` over per-pod facts extracted once: the same groups, less reading per sync.

``pods.group_pods`` reads each pod's metadata, phase and Ready condition and parses its
times at every sync, though the listed pods are mostly the same objects from one sync to
the next. ``pod_facts`` extracts what it reads of one pod into a ``PodFacts`` (a pure
function of the pod); ``group_pod_facts`` applies ``group_pods``' rules to those facts,
taking them from a ``PodReader`` (the controller's memo keeps them per pod object). A pod
whose facts cannot be extracted (malformed: no name, an unparseable time) goes through
``group_pods`` itself, so it fails or is sorted exactly as it would be there.
``tests/unit/hpa/test_pod_facts.py`` holds both paths equal. ``calculator_pods`` picks
this path when its ``MetricInputs`` carries a reader.

``scan_pods`` goes further for a utilization target (what an HPA computes at every sync):
the groups, the requests and the ready pods' totals in one pass over the pods, where the
general path walks them (or their samples) four times. It answers only the usual case;
anything that would fail or needs the general rules is left to the general path
(``tests/unit/hpa/test_pod_scan.py`` holds the calculator's result equal on both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final, NamedTuple

from podscale.hpa.pods import ZERO_TIME, PodGroups, group_pods, parse_time, pod_request
from podscale.hpa.types import PodFacts, PodMetric, PodReader

__all__ = [
    "PLAIN_READER",
    "PodScan",
    "group_pod_facts",
    "pod_facts",
    "request_or_none",
    "scan_pods",
]

CPU: Final = "cpu"


def pod_facts(pod: Mapping[str, Any]) -> PodFacts | None:
    """What ``group_pods`` reads of ``pod``, or None when reading it would fail."""
    try:
        metadata = pod["metadata"]
        name = metadata["name"]
        status = pod.get("status") or {}
        phase = status.get("phase")
        set_aside: tuple[str, str] | None = None
        if metadata.get("deletionTimestamp") is not None:
            set_aside = ("ignored", "deleted")
        elif phase == "Failed":
            set_aside = ("ignored", "failed")
        elif phase == "Pending":
            set_aside = ("unready", "pending")
        condition = None
        for candidate in status.get("conditions") or ():
            if candidate.get("type") == "Ready":
                condition = candidate
                break
        if condition is None:
            return PodFacts(name, set_aside, "no ready condition", ZERO_TIME, ZERO_TIME, False)
        start_text = status.get("startTime")
        if not start_text:
            return PodFacts(name, set_aside, "no start time", ZERO_TIME, ZERO_TIME, False)
        start_time = parse_time(start_text)
        transition_text = condition.get("lastTransitionTime")
        last_transition = parse_time(transition_text) if transition_text else ZERO_TIME
        ready_false = condition.get("status") == "False"
    except Exception:  # malformed: group_pods reads it (and fails) as it always would
        return None
    return PodFacts(name, set_aside, None, start_time, last_transition, ready_false)


class _PlainReader:
    """A ``PodReader`` keeping nothing: every value extracted afresh."""

    __slots__ = ()

    def facts(self, pod: Mapping[str, Any]) -> PodFacts | None:
        return pod_facts(pod)

    def request(self, pod: Mapping[str, Any], container: str, resource: str) -> int:
        return pod_request(pod, container, resource)

    def values(
        self, pod: Mapping[str, Any], container: str, resource: str
    ) -> tuple[PodFacts | None, int | None]:
        return pod_facts(pod), request_or_none(self, pod, container, resource)

    def all_values(
        self, pods: Sequence[Mapping[str, Any]], container: str, resource: str
    ) -> list[tuple[PodFacts | None, int | None]]:
        return [self.values(pod, container, resource) for pod in pods]


def request_or_none(
    reader: PodReader, pod: Mapping[str, Any], container: str, resource: str
) -> int | None:
    """``reader.request``, None when it fails (``PodReader.values``' request)."""
    try:
        return reader.request(pod, container, resource)
    except Exception:  # the general path raises it in its turn
        return None


PLAIN_READER: Final[PodReader] = _PlainReader()


def _cpu_reason(
    facts: PodFacts,
    sample: PodMetric,
    initializing_since: datetime,
    initial_readiness_delay: timedelta,
) -> str | None:
    # ``pods._cpu_unready_reason`` on the extracted facts, step for step.
    if facts.cpu_reason is not None:
        return facts.cpu_reason
    start_time = facts.start_time
    if start_time > initializing_since:
        if facts.ready_false:
            return "not ready"
        if sample.timestamp < facts.last_transition + sample.window:
            return "inside cpu initialization period"
        return None
    if facts.ready_false and start_time + initial_readiness_delay > facts.last_transition:
        return "not yet ready since start"
    return None


def group_pod_facts(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    reader: PodReader,
    *,
    now: datetime,
    cpu_initialization_period: timedelta,
    initial_readiness_delay: timedelta,
) -> PodGroups:
    """``group_pods(pods, metrics, resource, ...)``, reading each pod through ``reader``."""
    initializing_since = now - cpu_initialization_period
    ready_count = 0
    unready: dict[str, str] = {}
    missing: set[str] = set()
    ignored: dict[str, str] = {}
    cpu = resource == CPU
    for pod in pods:
        facts = reader.facts(pod)
        if facts is None:
            # Each pod is sorted on its own: the general rules for this one pod, merged.
            alone = group_pods(
                [pod],
                metrics,
                resource,
                now=now,
                cpu_initialization_period=cpu_initialization_period,
                initial_readiness_delay=initial_readiness_delay,
            )
            ready_count += alone.ready_count
            unready.update(alone.unready)
            missing.update(alone.missing)
            ignored.update(alone.ignored)
            continue
        name = facts.name
        if facts.set_aside is not None:
            group, reason = facts.set_aside
            (ignored if group == "ignored" else unready)[name] = reason
            continue
        sample = metrics.get(name)
        if sample is None:
            missing.add(name)
            continue
        if cpu:
            why = _cpu_reason(facts, sample, initializing_since, initial_readiness_delay)
            if why is not None:
                unready[name] = why
                continue
        ready_count += 1
    return PodGroups(ready_count, unready, frozenset(missing), ignored)


class PodScan(NamedTuple):
    """``scan_pods``' answer: the groups and requests the general path computes, and the
    summed usage and requests of the ready pods (those ``resource_utilization_ratio``
    sums: a ready pod's sample is exactly a usable sample with a request)."""

    groups: PodGroups
    requests: dict[str, int]
    usage_total: int
    request_total: int


def scan_pods(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    container: str,
    reader: PodReader,
    *,
    now: datetime,
    cpu_initialization_period: timedelta,
    initial_readiness_delay: timedelta,
) -> PodScan | None:
    """``group_pod_facts``, ``calculate_requests`` and the ready totals in one pass.

    None when the general path must answer: a pod's facts cannot be extracted, a request
    fails (the general path raises it after its own checks, in upstream's order), two
    listed pods share a name, or no usable sample remains (an error there too). The
    reader's values are pure, so the general path then sees the same ones.
    """
    if not pods:
        return None
    initializing_since = now - cpu_initialization_period
    cpu = resource == CPU
    ready_count = usage_total = request_total = 0
    unready: dict[str, str] = {}
    missing: set[str] = set()
    ignored: dict[str, str] = {}
    requests: dict[str, int] = {}
    unlisted = len(metrics)  # samples of pods outside the listed set, once counted down
    for facts, request in reader.all_values(pods, container, resource):
        if facts is None or request is None:
            return None
        name = facts.name
        requests[name] = request
        sample = metrics.get(name)
        if sample is not None:
            unlisted -= 1
        if facts.set_aside is not None:
            group, reason = facts.set_aside
            (ignored if group == "ignored" else unready)[name] = reason
            continue
        if sample is None:
            missing.add(name)
            continue
        # ``_cpu_reason`` is None for a pod started before the initialization period that
        # is not Ready=False (most pods, most syncs): asked only otherwise.
        if cpu and (
            facts.cpu_reason is not None
            or facts.ready_false
            or facts.start_time > initializing_since
        ):
            why = _cpu_reason(facts, sample, initializing_since, initial_readiness_delay)
            if why is not None:
                unready[name] = why
                continue
        ready_count += 1
        usage_total += sample.value
        request_total += request
    if len(requests) != len(pods) or ready_count + unlisted == 0:
        return None
    groups = PodGroups(ready_count, unready, frozenset(missing), ignored)
    return PodScan(groups, requests, usage_total, request_total)
