"""Rendering a rule's ``metricsQuery`` for one request.

The template gets prometheus-adapter's arguments:

- ``Series``: the Prometheus series name found by discovery;
- ``LabelMatchers``: comma-joined matchers, in this order: the metric selector's requirements,
  the namespace (when the request is namespaced), then the described objects' names
  (``pod="web-1"`` for one, ``pod=~"web-1|web-2"`` for several; external rules have none);
- ``LabelValuesByName``: label -> matched value(s) (several joined by ``|``, regex-escaped so
  the text is safe inside ``=~``);
- ``GroupBy`` / ``GroupBySlice``: the object label (custom rules); empty for external rules.

Selector requirements map as upstream's query builder: ``=``/``==`` -> ``=``, ``!=`` -> ``!=``,
``in`` -> ``=~`` alternation, ``notin`` -> ``!~``, ``exists`` -> ``!=""``, ``!key`` -> ``=""``;
``gt``/``lt`` cannot be expressed and are refused. Every value is escaped (``promql``).
Neighbours: ``config.Rule`` supplies the template and resource labels; ``provider`` calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from podscale.api.selectors import Requirement, Selector
from podscale.metrics.prometheus.config import Rule
from podscale.metrics.prometheus.errors import QueryBuildError
from podscale.metrics.prometheus.promql import escape_regex, render_alternation, render_matcher
from podscale.metrics.prometheus.resources import NAMESPACES, GroupResource
from podscale.metrics.prometheus.template import TemplateError, TemplateValue

__all__ = ["build_external_query", "build_object_query"]


@dataclass(frozen=True, slots=True)
class _Part:
    matcher: str
    label: str
    value: str


def _requirement_part(requirement: Requirement) -> _Part:
    label, values = requirement.key, requirement.values
    op = requirement.operator
    if op in ("=", "=="):
        return _Part(render_matcher(label, "=", values[0]), label, values[0])
    if op == "!=":
        return _Part(render_matcher(label, "!=", values[0]), label, values[0])
    if op in ("in", "notin"):
        if not values:
            raise QueryBuildError("operator requires values")
        body = render_alternation(values)
        return _Part(render_matcher(label, "=~" if op == "in" else "!~", body), label, body)
    if op == "exists":
        return _Part(render_matcher(label, "!=", ""), label, "")
    if op == "!":
        return _Part(render_matcher(label, "=", ""), label, "")
    raise QueryBuildError("operator not supported by prometheus")


def _namespace_part(rule: Rule, namespace: str) -> _Part:
    label = _label_for(rule, NAMESPACES)
    return _Part(render_matcher(label, "=", namespace), label, namespace)


def _label_for(rule: Rule, resource: GroupResource) -> str:
    try:
        return rule.resources.label_for_resource(resource)
    except TemplateError as err:
        raise QueryBuildError(str(err)) from None


def _render(rule: Rule, series: str, parts: list[_Part], group_by: list[str]) -> str:
    args: dict[str, TemplateValue] = {
        "Series": series,
        "LabelMatchers": ",".join(part.matcher for part in parts),
        "LabelValuesByName": {part.label: part.value for part in parts},
        "GroupBy": ",".join(group_by),
        "GroupBySlice": group_by,
    }
    try:
        query = rule.metrics_query.render(args)
    except TemplateError as err:
        raise QueryBuildError(f"{rule.path}.metricsQuery: {err}") from None
    if not query:
        raise QueryBuildError("empty query produced by metrics query template")
    return query


def build_object_query(
    rule: Rule,
    series: str,
    resource: GroupResource,
    namespace: str | None,
    names: Sequence[str],
    metric_selector: Selector,
) -> str:
    """The query for ``names`` of ``resource`` (in ``namespace``, if namespaced)."""
    if not names:
        raise QueryBuildError(f"no {resource} names requested")
    parts = [_requirement_part(r) for r in _requirements(metric_selector)]
    if namespace:
        parts.append(_namespace_part(rule, namespace))
    label = _label_for(rule, resource)
    if len(names) == 1:
        parts.append(_Part(render_matcher(label, "=", names[0]), label, escape_regex(names[0])))
    else:
        body = render_alternation(names)
        parts.append(_Part(render_matcher(label, "=~", body), label, body))
    return _render(rule, series, parts, [label])


def build_external_query(
    rule: Rule, series: str, namespace: str | None, metric_selector: Selector
) -> str:
    """The query for an external metric; the namespace applies only to namespaced rules."""
    parts = [_requirement_part(r) for r in _requirements(metric_selector)]
    if namespace and rule.namespaced:
        parts.append(_namespace_part(rule, namespace))
    for find, replace in rule.label_value_replacements:
        parts = [_Part(p.matcher, p.label, p.value.replace(find, replace)) for p in parts]
    return _render(rule, series, parts, [])


def _requirements(selector: Selector) -> tuple[Requirement, ...]:
    if selector.matches_nothing:
        raise QueryBuildError("a selector that matches nothing cannot be queried")
    return selector.requirements
