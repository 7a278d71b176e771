"""Reading an IHPA's stability checkers now: the async shell around ``checkers``.

``read_checkers`` turns each of ``spec.stabilityCheckers`` into a
``stability.CheckerReading`` (name, action, cool-down, anomalous now) for
``reconcile.decide``. A Metrics checker's rules (``checkers.rule_of``) are read the way
the HPA reads their metric types: the target's ``/scale`` and pods
(``reactive.read_target``) and the podscale HPA engine's calculation
(``podscale.hpa.calculator.calculate_replicas``, with upstream's default HPA settings)
over the IHPA controller's ``MetricsClient``, asked first through
``controllers.hpa.prefetch`` since the engine is synchronous; all rules of all checkers
share one round of queries. An Object or External Value rule reads its value straight
from the client (the engine returns it only with a replica count, which needs ready
pods). Resource and Pods rules are read over the online pods only (podscale's choice:
the load a checker guards is the one the pods in traffic carry). A checker is anomalous
when any rule holds. Anything that cannot be read (an
unreadable rule, the target, a metric) is logged and counts as no anomaly, so a broken
checker never stops a change nor crashes the controller; an External checker (a user's
plug-in, which podscale does not run) never sees one either. The controller calls this
only while a gray change is in force (``reconcile.gray_in_force``).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.prefetch import QueryRecorder, RecordedMetrics, fetch_answers
from podscale.controllers.kapacity.checkers import (
    MetricRule,
    checker_name,
    holds,
    observed,
    rule_of,
)
from podscale.controllers.kapacity.pod_states import PodState, state_of
from podscale.controllers.kapacity.reactive import ReactiveError, read_target
from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.stability import CheckerReading
from podscale.controllers.kapacity.types import CheckerType, Ihpa
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import meta
from podscale.hpa.calculator import calculate_replicas
from podscale.hpa.types import Config, MetricError, MetricsUnavailable

__all__ = ["read_checkers"]

_LOG = logging.getLogger(__name__)


def _rules(ihpa: Ihpa) -> list[list[MetricRule]]:
    """Each checker's readable rules (none for an External checker)."""
    out: list[list[MetricRule]] = []
    for index, checker in enumerate(ihpa.spec.stability_checkers):
        rules = []
        if checker.type == CheckerType.METRICS:
            for i, metric in enumerate(checker.metrics):
                try:
                    rules.append(rule_of(metric, f"spec.stabilityCheckers[{index}].metrics[{i}]"))
                except KapacityError as err:
                    _LOG.info("stability checker of %s/%s: %s", ihpa.namespace, ihpa.name, err)
        out.append(rules)
    return out


def _direct(rule: MetricRule) -> bool:
    """An Object or External Value: its value alone, which the HPA engine would only hand
    back with a replica count that needs ready pods (a checker needs none)."""
    return rule.kind == "Value" and rule.spec.get("type") in ("Object", "External")


async def _value(client: MetricsClient, rule: MetricRule, namespace: str) -> int:
    """The object's value, or the sum of the external metric's series (as the HPA sums)."""
    if rule.spec.get("type") == "Object":
        source = rule.spec.get("object") or {}
        metric = source.get("metric") or {}
        value, _ = await client.object_metric(
            str(metric.get("name") or ""),
            namespace,
            dict(source.get("describedObject") or {}),
            metric.get("selector"),
        )
        return value
    metric = (rule.spec.get("external") or {}).get("metric") or {}
    values, _ = await client.external_metric(
        str(metric.get("name") or ""), namespace, metric.get("selector")
    )
    return sum(values)


async def _direct_anomalous(
    client: MetricsClient, rules: Sequence[MetricRule], namespace: str
) -> bool:
    seen = False
    for rule in rules:
        if not _direct(rule):
            continue
        try:
            actual = await _value(client, rule, namespace)
        except MetricsUnavailable as err:
            _LOG.info("stability checker metric not read: %s", err)
            continue
        seen = seen or holds(rule, actual)
    return seen


def _anomalous(
    rules: Sequence[MetricRule], source: QueryRecorder | RecordedMetrics, context: dict[str, Any]
) -> bool:
    seen = False
    for rule in rules:
        if _direct(rule):
            continue
        try:
            proposal = calculate_replicas(dict(rule.spec), metrics=source, **context)
            actual = observed(rule, proposal)
        except (MetricError, MetricsUnavailable, KapacityError) as err:
            if isinstance(source, RecordedMetrics):
                _LOG.info("stability checker metric not read: %s", err)
            continue
        seen = seen or holds(rule, actual)
    return seen


async def read_checkers(
    api: ControllerApi, client: MetricsClient, ihpa: Ihpa, now: dt.datetime
) -> tuple[CheckerReading, ...]:
    """Every checker of ``ihpa`` with whether it sees an anomaly now."""
    checkers = ihpa.spec.stability_checkers
    rules = _rules(ihpa)
    anomalous = [await _direct_anomalous(client, r, ihpa.namespace) for r in rules]
    if any(not _direct(rule) for checker_rules in rules for rule in checker_rules):
        try:
            current, selector, pods = await read_target(
                api, ihpa.namespace, ihpa.spec.target.to_json()
            )
        except ReactiveError as err:
            _LOG.info("stability checkers of %s/%s not read: %s", ihpa.namespace, ihpa.name, err)
        else:
            # The pods that serve traffic: a cut-off or standby pod is idle by design, and
            # upstream's CPU rule would still count it (it went unready long after it
            # started), diluting exactly the load the checker watches.
            online = [p for p in pods if state_of(meta(p).get("labels")) is PodState.ONLINE]
            context: dict[str, Any] = {
                "current_replicas": len(online) or current,
                "pods": online,
                "namespace": ihpa.namespace,
                "selector": selector,
                "now": now,
                "config": Config(),
            }
            recorder = QueryRecorder()
            for checker_rules in rules:
                _anomalous(checker_rules, recorder, context)
            answers = await fetch_answers(client, recorder.queries)
            read = [_anomalous(r, answers, context) for r in rules]
            anomalous = [a or b for a, b in zip(anomalous, read, strict=True)]
    return tuple(
        CheckerReading(
            checker_name(index, checker),
            "Rollback" if checker.action == "Rollback" else "Pause",
            checker.cool_down_seconds,
            anomalous[index],
        )
        for index, checker in enumerate(checkers)
    )
