"""Rendering ``metricsQuery`` for object and external requests, selectors included."""

from __future__ import annotations

import pytest

from podscale.api import Selector, parse_selector
from podscale.api.selectors import Requirement
from podscale.metrics.prometheus.config import Rule, load_config
from podscale.metrics.prometheus.errors import QueryBuildError
from podscale.metrics.prometheus.queries import build_external_query, build_object_query
from podscale.metrics.prometheus.resources import GroupResource

PODS = GroupResource("", "pods")
CONFIG = load_config(
    """
rules:
- seriesQuery: x
  resources:
    overrides: {namespace: {resource: namespace}, pod: {resource: pod}}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[2m])) by (<<.GroupBy>>)'
- seriesQuery: x
  resources:
    overrides: {pod: {resource: pod}}
  metricsQuery: '<<.LabelValuesByName.pod>> / <<.GroupBySlice>>'
externalRules:
- seriesQuery: x
  resources:
    overrides: {namespace: {resource: namespace}}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (name)'
- seriesQuery: x
  resources: {namespaced: false}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>})'
  labelValueReplacements: [{find: "#", replace: "_"}]
"""
)
POD_RULE, RAW_RULE = CONFIG.rules
NS_EXTERNAL, CLUSTER_EXTERNAL = CONFIG.external_rules


def _object(rule: Rule, names: list[str], selector: Selector, namespace: str | None) -> str:
    return build_object_query(rule, "http_requests_total", PODS, namespace, names, selector)


@pytest.mark.parametrize(
    ("names", "selector", "namespace", "query"),
    [
        (
            ["web-1"],
            Selector(),
            "default",
            'sum(rate(http_requests_total{namespace="default",pod="web-1"}[2m])) by (pod)',
        ),
        (
            ["web-1", "web.2"],
            Selector(),
            "default",
            'sum(rate(http_requests_total{namespace="default",pod=~"web-1|web\\\\.2"}[2m]))'
            " by (pod)",
        ),
        (
            ["web-1", "web-1"],
            Selector(),
            None,
            'sum(rate(http_requests_total{pod=~"web-1|web-1"}[2m])) by (pod)',
        ),
        (
            ["a"],
            parse_selector("verb in (GET,PUT),code!=500,handler,!debug"),
            "ns",
            'sum(rate(http_requests_total{code!="500",debug="",handler!="",verb=~"GET|PUT"'
            ',namespace="ns",pod="a"}[2m])) by (pod)',
        ),
    ],
    ids=["one-pod", "several-pods-escaped", "root-scoped", "selector-operators"],
)
def test_object_query(
    names: list[str], selector: Selector, namespace: str | None, query: str
) -> None:
    assert _object(POD_RULE, names, selector, namespace) == query


def test_hostile_selector_values_stay_inside_their_literal() -> None:
    selector = Selector((Requirement("path", "=", ('"}) or vector(1) #',)),))
    query = _object(POD_RULE, ["a"], selector, None)
    assert 'path="\\"}) or vector(1) #"' in query


def test_raw_template_fields() -> None:
    query = _object(RAW_RULE, ["web.1", "b"], Selector(), None)
    assert query == "web\\.1|b / [pod]"


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (parse_selector("replicas>3"), "operator not supported by prometheus"),
        (parse_selector("app.kubernetes.io/name=web"), "is not a valid Prometheus label name"),
        (Selector.nothing(), "matches nothing"),
    ],
    ids=["gt", "k8s-style-key", "nothing"],
)
def test_inexpressible_selectors_are_refused(selector: Selector, message: str) -> None:
    with pytest.raises(QueryBuildError, match=message):
        _object(POD_RULE, ["a"], selector, None)


def test_no_names_is_refused() -> None:
    with pytest.raises(QueryBuildError, match="no pods names requested"):
        _object(POD_RULE, [], Selector(), None)


def test_resource_without_label_is_upstreams_error() -> None:
    with pytest.raises(QueryBuildError, match="no generic resource label form"):
        build_object_query(
            POD_RULE, "x", GroupResource("apps", "deployments"), None, ["a"], Selector()
        )


@pytest.mark.parametrize(
    ("rule", "namespace", "selector", "query"),
    [
        (
            NS_EXTERNAL,
            "default",
            parse_selector("name=jobs"),
            'sum(queue_depth{name="jobs",namespace="default"}) by (name)',
        ),
        (CLUSTER_EXTERNAL, "default", parse_selector("name=jobs"), 'sum(queue_depth{name="jobs"})'),
        (CLUSTER_EXTERNAL, "default", Selector(), "sum(queue_depth{})"),
    ],
    ids=["namespaced", "namespaced-false-ignores-namespace", "no-selector"],
)
def test_external_query(rule: Rule, namespace: str, selector: Selector, query: str) -> None:
    assert build_external_query(rule, "queue_depth", namespace, selector) == query


def test_namespaced_external_rule_needs_a_namespace_label() -> None:
    rule = load_config(
        "externalRules: [{seriesQuery: x, metricsQuery: '<<.Series>>{<<.LabelMatchers>>}'}]"
    ).external_rules[0]
    with pytest.raises(QueryBuildError, match="unable to convert resource namespaces into label"):
        build_external_query(rule, "queue_depth", "default", Selector())


def test_label_value_replacements_apply_to_label_values_by_name() -> None:
    rule = load_config(
        """
externalRules:
- seriesQuery: x
  resources: {namespaced: false}
  metricsQuery: '<<.LabelValuesByName.topic>> <<.LabelMatchers>>'
  labelValueReplacements: [{find: "_", replace: "#"}]
"""
    ).external_rules[0]
    query = build_external_query(rule, "lag", None, parse_selector("topic=a_b"))
    assert query == 'a#b topic="a_b"'
