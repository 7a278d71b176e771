"""Loading rule files: what loads, and every refusal naming its rule and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from podscale.metrics.prometheus.config import load_config, load_config_file
from podscale.metrics.prometheus.errors import ConfigError
from podscale.metrics.prometheus.resources import NAMESPACES, GroupResource

SAMPLE = """
rules:
- seriesQuery: '{__name__=~"^container_.*",container!="POD",namespace!="",pod!=""}'
  seriesFilters:
  - isNot: "^container_.*_seconds_total$"
  resources:
    overrides:
      namespace: {resource: "namespace"}
      pod: {resource: "pod"}
  name:
    matches: "^container_(.*)_total$"
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>,container!="POD"}[2m])) by (<<.GroupBy>>)'
externalRules:
- seriesQuery: '{__name__="queue_consumer_lag",name!=""}'
  metricsQuery: sum(<<.Series>>{<<.LabelMatchers>>}) by (name)
  resources:
    overrides: { namespace: {resource: "namespace"} }
    namespaced: false
  labelValueReplacements:
  - {find: "#", replace: "_"}
resourceRules:
  cpu: {containerQuery: "ignored"}
"""


def test_sample_config_loads() -> None:
    config = load_config(SAMPLE)
    (rule,) = config.rules
    assert rule.path == "rules[0]"
    assert rule.name.as_ == "$1"  # defaulted: one capture group
    assert [f.positive for f in rule.series_filters] == [False, True]  # name.matches appended
    assert rule.resources.overrides == {"namespace": NAMESPACES, "pod": GroupResource("", "pods")}
    (external,) = config.external_rules
    assert external.external
    assert not external.namespaced
    assert external.label_value_replacements == (("#", "_"),)


def test_empty_document_is_an_empty_config() -> None:
    assert load_config("").rules == ()


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "adapter.yaml"
    path.write_text("rules: [{}]")
    with pytest.raises(ConfigError, match=f"config {path}: rules\\[0\\].seriesQuery: Required"):
        load_config_file(path)


BASE = "seriesQuery: up, metricsQuery: '<<.Series>>'"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules: [{}]", "rules[0].seriesQuery: Required value"),
        ("rules: [{seriesQuery: up}]", "rules[0].metricsQuery: Required value"),
        (
            f"rules: [{{{BASE}, seriesQueery: x}}]",
            "rules[0].seriesQueery: Invalid value: unknown field",
        ),
        (
            f"rules: [{{{BASE}, name: {{matches: '('}}}}]",
            'rules[0].name.matches: Invalid value: "(": not a valid regular expression',
        ),
        (
            f"rules: [{{{BASE}, name: {{matches: '(a)(b)'}}}}]",
            "rules[0].name.as: Required value: must specify an 'as' value",
        ),
        (
            f"rules: [{{{BASE}, seriesFilters: [{{is: a, isNot: b}}]}}]",
            "rules[0].seriesFilters[0]: Invalid value: must have exactly one of `is` and `isNot`",
        ),
        (
            f"rules: [{{{BASE}, seriesFilters: [{{isNot: '['}}]}}]",
            'rules[0].seriesFilters[0].isNot: Invalid value: "["',
        ),
        (
            "rules: [{seriesQuery: up, metricsQuery: '<<.Seriess>>'}]",
            'rules[0].metricsQuery: Invalid value: "<<.Seriess>>": unknown field .Seriess',
        ),
        (
            f"rules: [{{{BASE}, resources: {{template: '<<.Kind>>'}}}}]",
            "rules[0].resources.template: Invalid value",
        ),
        (
            f"rules: [{{{BASE}, resources: {{overrides: {{pod: {{group: x}}}}}}}}]",
            "rules[0].resources.overrides[pod].resource: Required value",
        ),
        (
            f"rules: [{{{BASE}, resources: {{overrides: {{'a-b': {{resource: pod}}}}}}}}]",
            'rules[0].resources.overrides[a-b]: Invalid value: "a-b": not a valid Prometheus',
        ),
        (
            f"rules: [{{{BASE}, resources: {{namespaced: false}}}}]",
            "rules[0].resources.namespaced: Invalid value: unknown field",
        ),
        (
            f"externalRules: [{{{BASE}, resources: {{namespaced: 'no'}}}}]",
            'externalRules[0].resources.namespaced: Invalid value: "no": must be true or false',
        ),
        ("rules: {}", "rules: Invalid value: must be a list of rules"),
        ("rulez: []", "rulez: Invalid value: unknown field"),
        ("[1, 2]", "<root>: Invalid value: must be a mapping"),
        ("rules: [", "<root>: Invalid value: not valid YAML"),
    ],
    ids=[
        "no-series-query",
        "no-metrics-query",
        "unknown-rule-key",
        "bad-name-regex",
        "as-needed",
        "filter-both",
        "bad-filter-regex",
        "template-typo",
        "resource-template-field",
        "override-without-resource",
        "override-bad-label",
        "namespaced-on-custom-rule",
        "namespaced-not-bool",
        "rules-not-list",
        "unknown-top-key",
        "not-a-mapping",
        "bad-yaml",
    ],
)
def test_refusals_name_rule_and_field(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(text)
    assert message in str(caught.value)


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        load_config("rules: [{}, {seriesQuery: up}]")
    assert [error.field for error in caught.value.errors] == [
        "rules[0].seriesQuery",
        "rules[0].metricsQuery",
        "rules[1].metricsQuery",
    ]
