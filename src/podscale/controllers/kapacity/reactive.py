"""The Dynamic provider's Reactive portrait: the upstream HPA algorithm over current metrics.

Kapacity's reactive generator (algorithm ``KubeHPA``) computes, every ``syncPeriod``, the
replica count the upstream HPA's replica calculator proposes for each metric (with the
algorithm's tolerance, CPU initialization period and readiness delay), keeping the
largest (at least 1). Unlike the HPA it applies no stabilization window, no rate limits
and no min/max (the IHPA clamps). When every metric fails, or some fail and the rest
would scale down, it fails with "invalid metrics (N invalid out of M), first error is:
...". ``reactive_replicas`` does this through podscale's engine (``podscale.hpa.
calculator.calculate_replicas``) and a ``MetricsClient`` (the HPA controller's), asking
the client first (``controllers.hpa.prefetch``) since the engine is synchronous. The
target's ``/scale`` gives the current replicas and the pod selector. Used by
``controller``; the value it makes is offered by ``portrait_sources`` as
"Dynamic-Reactive".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.prefetch import QueryRecorder, RecordedMetrics, fetch_answers
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.kapacity.provider_spec import KubeHPAAlgorithm
from podscale.controllers.runtime_api import ControllerApi
from podscale.hpa.calculator import calculate_replicas
from podscale.hpa.types import Config, MetricError, MetricsUnavailable

__all__ = ["ReactiveError", "reactive_replicas", "read_target"]

POD: Final = kind_for("v1", "Pod")


class ReactiveError(Exception):
    """The portrait could not be generated; ``str()`` is Kapacity's message."""


def _propose(
    metrics: Sequence[Mapping[str, Any]],
    source: QueryRecorder | RecordedMetrics,
    *,
    current: int,
    pods: list[dict[str, Any]],
    namespace: str,
    selector: str,
    now: dt.datetime,
    config: Config,
) -> tuple[int, list[str]]:
    replicas, errors = 1, []
    for metric in metrics:
        try:
            proposal = calculate_replicas(
                dict(metric),
                current_replicas=current,
                pods=pods,
                metrics=source,
                namespace=namespace,
                selector=selector,
                now=now,
                config=config,
            )
        except (MetricError, MetricsUnavailable) as err:
            errors.append(str(err))
            continue
        replicas = max(replicas, proposal.replicas)
    return replicas, errors


async def read_target(
    api: ControllerApi, namespace: str, target: Mapping[str, Any]
) -> tuple[int, str, list[dict[str, Any]]]:
    """The target's ``/scale`` replicas and selector and the pods it selects, as the HPA
    engine takes them; ``ReactiveError`` otherwise. Shared with ``checker_readings``."""
    try:
        mappings = await resolve_target(api, target)
        scale, _ = await read_scale(api, mappings, namespace, str(target.get("name") or ""))
    except ScaleTargetError as err:
        raise ReactiveError(f"failed to get the target's current scale: {err}") from None
    current = int((scale.get("spec") or {}).get("replicas") or 0)
    selector = str((scale.get("status") or {}).get("selector") or "")
    try:
        listed = await api.list(POD, namespace, label_selector=selector)
    except ApiError as err:
        raise ReactiveError(f"failed to list pods: {err}") from None
    return current, selector, list(listed.get("items") or [])


async def reactive_replicas(
    api: ControllerApi,
    client: MetricsClient,
    namespace: str,
    target: Mapping[str, Any],
    metrics: Sequence[Mapping[str, Any]],
    algorithm: KubeHPAAlgorithm,
    now: dt.datetime,
) -> int:
    """The replica count the Reactive portrait holds now; ``ReactiveError`` otherwise."""
    if not metrics:
        raise ReactiveError("invalid metrics (0 invalid out of 0), first error is: <nil>")
    current, selector, pods = await read_target(api, namespace, target)
    config = Config(
        tolerance=algorithm.tolerance,
        cpu_initialization_period=algorithm.cpu_initialization_period,
        initial_readiness_delay=algorithm.initial_readiness_delay,
    )
    context: dict[str, Any] = {
        "current": current,
        "pods": pods,
        "namespace": namespace,
        "selector": selector,
        "now": now,
        "config": config,
    }
    recorder = QueryRecorder()
    _propose(metrics, recorder, **context)
    answers = await fetch_answers(client, recorder.queries)
    replicas, errors = _propose(metrics, answers, **context)
    if errors and (len(errors) == len(metrics) or replicas < current):
        raise ReactiveError(
            f"invalid metrics ({len(errors)} invalid out of {len(metrics)}), "
            f"first error is: {errors[0]}"
        )
    return replicas
