"""The ``<< >>`` Go-template subset: parsing at load, rendering like Go's printer."""

from __future__ import annotations

import pytest

from podscale.metrics.prometheus.template import TemplateError, TemplateValue, parse_template

FIELDS = frozenset({"Series", "LabelMatchers", "GroupBy", "GroupBySlice", "LabelValuesByName"})
VALUES: dict[str, TemplateValue] = {
    "Series": "http_requests_total",
    "LabelMatchers": 'pod="a"',
    "GroupBy": "pod",
    "GroupBySlice": ["pod", "container"],
    "LabelValuesByName": {"pod": "a|b", "namespace": "default"},
}


@pytest.mark.parametrize(
    ("source", "rendered"),
    [
        (
            "sum(rate(<<.Series>>{<<.LabelMatchers>>}[2m])) by (<<.GroupBy>>)",
            'sum(rate(http_requests_total{pod="a"}[2m])) by (pod)',
        ),
        ("<< .Series >>", "http_requests_total"),
        ("a  <<- .GroupBy ->>  b", "apodb"),
        ("<<.GroupBySlice>>", "[pod container]"),
        ("<<.LabelValuesByName.pod>>", "a|b"),
        ("<<.LabelValuesByName>>", "map[namespace:default pod:a|b]"),
        ("no actions at all", "no actions at all"),
    ],
    ids=["typical", "spaces", "trim-markers", "slice", "map-key", "map", "literal"],
)
def test_render(source: str, rendered: str) -> None:
    assert parse_template(source, FIELDS).render(VALUES) == rendered


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("<<.Serie>>", "unknown field .Serie"),
        ("<<if .Series>>x<<end>>", "unsupported action"),
        ("<<.Series | printf>>", "unsupported action"),
        ("sum(<<.Series", "unclosed action"),
    ],
    ids=["typo", "if", "pipeline", "unclosed"],
)
def test_parse_refuses(source: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        parse_template(source, FIELDS)


def test_missing_map_key_is_an_error_not_no_value() -> None:
    template = parse_template("<<.LabelValuesByName.service>>", FIELDS)
    with pytest.raises(TemplateError, match="no entry for key 'service'"):
        template.render(VALUES)


def test_to_regex_reads_fields_back() -> None:
    template = parse_template("kube_<<.Group>>_<<.Resource>>", frozenset({"Group", "Resource"}))
    match = template.to_regex({"Group": "g", "Resource": "r"}).fullmatch("kube_apps_deployment")
    assert match is not None
    assert match.groupdict() == {"g": "apps", "r": "deployment"}
