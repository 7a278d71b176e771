"""Escaping of label values into PromQL: literals and exact-match regex alternations."""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.metrics.prometheus.errors import QueryBuildError
from podscale.metrics.prometheus.promql import (
    escape_regex,
    is_label_name,
    quote_string,
    render_alternation,
    render_matcher,
)


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("web-1", '"web-1"'),
        ('a"b', '"a\\"b"'),
        ("a\\b", '"a\\\\b"'),
        ("line\nbreak", '"line\\nbreak"'),
        ("", '""'),
    ],
    ids=["plain", "quote", "backslash", "newline", "empty"],
)
def test_quote_string(value: str, quoted: str) -> None:
    assert quote_string(value) == quoted


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("web.1", "web\\.1"),
        ("a|b", "a\\|b"),
        ("(x)*+?", "\\(x\\)\\*\\+\\?"),
        ("[a]{1}^$", "\\[a\\]\\{1\\}\\^\\$"),
        ("back\\slash", "back\\\\slash"),
        ("a-b_c d#~", "a-b_c d#~"),
    ],
    ids=["dot", "pipe", "groups-and-repeats", "classes-and-anchors", "backslash", "not-special"],
)
def test_escape_regex_escapes_re2_metacharacters_only(value: str, escaped: str) -> None:
    assert escape_regex(value) == escaped


@given(st.text())
def test_quoted_literal_reads_back_as_the_value(value: str) -> None:
    # Go's %q escapes are a subset of Python's string literal escapes.
    assert ast.literal_eval(quote_string(value)) == value


@given(st.lists(st.text(min_size=1), min_size=1, max_size=4), st.text())
def test_alternation_matches_exactly_its_values(values: list[str], other: str) -> None:
    pattern = re.compile(render_alternation(values), re.DOTALL)
    for value in values:
        assert pattern.fullmatch(value)
    assert (pattern.fullmatch(other) is not None) == (other in values)


@pytest.mark.parametrize(
    ("name", "valid"),
    [("pod", True), ("_x9", True), ("9x", False), ("app.kubernetes.io/name", False), ("", False)],
    ids=["plain", "underscore", "leading-digit", "k8s-key", "empty"],
)
def test_is_label_name(name: str, valid: bool) -> None:
    assert is_label_name(name) is valid


def test_render_matcher_refuses_an_inexpressible_label() -> None:
    with pytest.raises(QueryBuildError, match=r'"app\.kubernetes\.io/name" is not a valid'):
        render_matcher("app.kubernetes.io/name", "=", "web")


def test_render_matcher_quotes_the_value() -> None:
    assert render_matcher("pod", "=~", "web\\.1|a") == 'pod=~"web\\\\.1|a"'
