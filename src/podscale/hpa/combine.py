"""Combining the metrics: upstream's ``computeReplicasForMetrics``.

First the target's selector must be usable (present, parseable, and not shared with
another HPA's pods); then every ``spec.metrics[i]`` is computed by ``metric_status`` and
the largest valid proposal wins. A failed metric blocks scale-down but not scale-up;
if every metric failed there is no proposal at all. ``decide`` calls ``combine_metrics``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import podscale.hpa.conditions as c
from podscale.api.selectors import SelectorError, parse_selector
from podscale.hpa.metric_status import MetricOutcome, compute_metric
from podscale.hpa.sync import SyncRecorder
from podscale.hpa.trace import MetricTrace
from podscale.hpa.types import Config, MetricInputs, MetricsSource, PodReader

__all__ = ["MetricsResult", "check_selector", "combine_metrics"]


class MetricsResult(NamedTuple):
    replicas: int  # -1 when no usable proposal (upstream's sentinel)
    name: str
    statuses: list[dict[str, Any]] | None
    error: str | None
    traces: tuple[MetricTrace, ...] = ()
    invalid: int = 0


def check_selector(
    sync: SyncRecorder, selector: str, controlling_hpas: Sequence[str]
) -> str | None:
    """validateAndParseSelector: an error text, or None when the selector is usable."""
    if not selector:
        sync.event("Warning", "SelectorRequired", "selector is required")
        sync.condition(
            c.SCALING_ACTIVE,
            "False",
            c.INVALID_SELECTOR,
            "the HPA target's scale is missing a selector",
        )
        return "selector is required"
    try:
        parse_selector(selector)
    except SelectorError as err:
        message = f"couldn't convert selector into a corresponding internal selector object: {err}"
        sync.event("Warning", c.INVALID_SELECTOR, message)
        sync.condition(c.SCALING_ACTIVE, "False", c.INVALID_SELECTOR, message)
        return message
    if len(controlling_hpas) > 1:
        names = " ".join(sorted(controlling_hpas))
        message = f"pods by selector {selector} are controlled by multiple HPAs: [{names}]"
        sync.event("Warning", c.AMBIGUOUS_SELECTOR, message)
        sync.condition(c.SCALING_ACTIVE, "False", c.AMBIGUOUS_SELECTOR, message)
        return message
    return None


def combine_metrics(
    sync: SyncRecorder,
    metric_specs: Sequence[dict[str, Any]],
    *,
    selector: str,
    controlling_hpas: Sequence[str],
    current_replicas: int,
    status_replicas: int,
    pods: list[dict[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    config: Config,
    tolerances: tuple[float, float],
    pod_reader: PodReader | None = None,
) -> MetricsResult:
    """computeReplicasForMetrics: the largest valid proposal, or -1 with the error."""
    selector_error = check_selector(sync, selector, controlling_hpas)
    if selector_error is not None:
        return MetricsResult(-1, "", None, selector_error)
    replicas, name = 0, ""
    statuses: list[dict[str, Any]] = []
    traces: list[MetricTrace] = []
    first_failure: MetricOutcome | None = None
    invalid = 0
    inputs = MetricInputs(
        current_replicas=current_replicas,
        status_replicas=status_replicas,
        pods=pods,
        metrics=metrics,
        namespace=namespace,
        selector=selector,
        now=sync.now,
        config=config,
        tolerances=tolerances,
        pod_reader=pod_reader,
    )
    for index, spec in enumerate(metric_specs):
        outcome = compute_metric(spec, inputs)
        statuses.append(outcome.status)
        calc = outcome.proposal.trace if outcome.proposal is not None else None
        mtype = str(spec.get("type", ""))
        traces.append(
            MetricTrace(index, mtype, outcome.name, outcome.replicas, outcome.error, calc)
        )
        if outcome.replicas is None:
            # getUnableComputeReplicaCountCondition emits one event per failing metric.
            sync.event("Warning", outcome.condition_reason or "", outcome.failure_detail or "")
            if first_failure is None:
                first_failure = outcome
            invalid += 1
            continue
        if replicas == 0 or outcome.replicas > replicas:
            replicas, name = outcome.replicas, outcome.name
    error = None
    if first_failure is not None:
        error = (
            f"invalid metrics ({invalid} invalid out of {len(metric_specs)}), "
            f"first error is: {first_failure.error}"
        )
    # All invalid, or some invalid while the valid ones point down: do not act.
    if invalid >= len(metric_specs) or (invalid > 0 and replicas < current_replicas):
        if first_failure is not None:
            sync.condition(
                c.SCALING_ACTIVE,
                "False",
                first_failure.condition_reason or "",
                first_failure.condition_message or "",
            )
        return MetricsResult(-1, "", statuses, error, tuple(traces), invalid)
    sync.condition(
        c.SCALING_ACTIVE,
        "True",
        c.VALID_METRIC_FOUND,
        f"the HPA was able to successfully calculate a replica count from {name}",
    )
    return MetricsResult(replicas, name, statuses, error, tuple(traces), invalid)
