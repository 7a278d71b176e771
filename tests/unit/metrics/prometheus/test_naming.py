"""Rule ``name`` expansion (Go ``Regexp.Expand``) and series filters."""

from __future__ import annotations

import re

import pytest

from podscale.metrics.prometheus.naming import (
    NameRule,
    SeriesFilter,
    default_name_as,
    expand_name,
    keeps_series,
)


@pytest.mark.parametrize(
    ("pattern", "template", "series", "expected"),
    [
        ("^(.*)_total$", "$1", "http_requests_total", "http_requests"),
        ("^(.*)_total$", "${1}_per_second", "http_requests_total", "http_requests_per_second"),
        ("^(.*)_total$", "$1_per_second", "http_requests_total", ""),
        ("^(?P<base>.*)_total$", "$base", "http_requests_total", "http_requests"),
        ("^(.*)_total$", "$$1", "http_requests_total", "$1"),
        ("^(.*)_total$", "$2x", "http_requests_total", ""),
        (".*", "$0", "queue_depth", "queue_depth"),
        ("total", "$0", "http_requests_total", "total"),
    ],
    ids=[
        "capture",
        "braced",
        "greedy-name-is-group-1_per_second",
        "named",
        "dollar-escape",
        "missing-group",
        "whole",
        "search-not-anchored",
    ],
)
def test_expand_name_follows_go(pattern: str, template: str, series: str, expected: str) -> None:
    match = re.search(pattern, series)
    assert match is not None
    assert expand_name(template, match) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [(".*", "$0"), ("^(.*)_total$", "$1"), ("^(a)(b)$", None)],
    ids=["no-groups", "one-group", "two-groups"],
)
def test_default_name_as(pattern: str, expected: str | None) -> None:
    assert default_name_as(re.compile(pattern)) == expected


def test_name_rule_skips_series_that_do_not_match() -> None:
    rule = NameRule(re.compile("^(.*)_total$"), "$1")
    assert rule.metric_name("queue_depth") is None


@pytest.mark.parametrize(
    ("series", "kept"),
    [("container_cpu_total", True), ("container_cpu_seconds_total", False), ("up", False)],
    ids=["kept", "excluded-by-isNot", "excluded-by-is"],
)
def test_every_filter_must_agree(series: str, kept: bool) -> None:
    filters = [
        SeriesFilter(re.compile("^container_"), positive=True),
        SeriesFilter(re.compile("_seconds_total$"), positive=False),
    ]
    assert keeps_series(filters, series) is kept
