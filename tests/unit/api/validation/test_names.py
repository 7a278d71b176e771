"""Tests for podscale.api.validation.names: upstream's exact detail strings."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.field_errors import FieldPath, invalid
from podscale.api.validation import names as validation_names
from podscale.api.validation.names import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_annotations,
    validate_dns1123_label_name,
    validate_dns1123_subdomain_name,
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_path_segment_name,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
KEY_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
KEY_SLASHES_MSG = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

Check = Callable[[str], list[str]]


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (is_dns1123_subdomain, "example.com", []),
        (is_dns1123_subdomain, "a" * 253, []),
        (is_dns1123_subdomain, "My_HPA", [SUBDOMAIN_MSG]),
        (is_dns1123_subdomain, "", [SUBDOMAIN_MSG]),
        (is_dns1123_subdomain, "a-", [SUBDOMAIN_MSG]),
        (is_dns1123_subdomain, "a..b", [SUBDOMAIN_MSG]),
        (is_dns1123_subdomain, "web\n", [SUBDOMAIN_MSG]),
        (is_dns1123_subdomain, "a" * 254, ["must be no more than 253 characters"]),
        (
            is_dns1123_subdomain,
            "A" * 254,
            ["must be no more than 253 characters", SUBDOMAIN_MSG],
        ),
        (is_dns1123_label, "my-name", []),
        (is_dns1123_label, "123-abc", []),
        (is_dns1123_label, "a.b", ["must not contain dots"]),
        (is_dns1123_label, "Web", [LABEL_MSG]),
        (is_dns1123_label, "a" * 64, ["must be no more than 63 characters"]),
        (is_dns1035_label, "abc-123", []),
        (is_dns1035_label, "1abc", [DNS1035_MSG]),
        (is_qualified_name, "app", []),
        (is_qualified_name, "example.com/My_Name.1", []),
        (is_qualified_name, "a/b/c", [KEY_SLASHES_MSG]),
        (is_qualified_name, "/a", ["prefix part must be non-empty"]),
        (is_qualified_name, "Example.com/a", ["prefix part " + SUBDOMAIN_MSG]),
        (is_qualified_name, "a/", ["name part must be non-empty", KEY_NAME_MSG]),
        (is_qualified_name, "", ["name part must be non-empty", KEY_NAME_MSG]),
        (is_qualified_name, "-a", [KEY_NAME_MSG]),
        (is_qualified_name, "a" * 64, ["name part must be no more than 63 characters"]),
        (is_valid_label_value, "", []),
        (is_valid_label_value, "My_value.1", []),
        (is_valid_label_value, "a/b", [VALUE_MSG]),
        (is_valid_label_value, "a" * 64, ["must be no more than 63 characters"]),
    ],
    ids=[
        "subdomain-ok",
        "subdomain-253",
        "subdomain-upper-underscore",
        "subdomain-empty",
        "subdomain-trailing-dash",
        "subdomain-empty-segment",
        "subdomain-trailing-newline",
        "subdomain-254",
        "subdomain-254-and-bad",
        "label-ok",
        "label-digit-start",
        "label-dots",
        "label-upper",
        "label-64",
        "dns1035-ok",
        "dns1035-digit-start",
        "qualified-plain",
        "qualified-prefixed",
        "qualified-two-slashes",
        "qualified-empty-prefix",
        "qualified-bad-prefix",
        "qualified-empty-name",
        "qualified-empty",
        "qualified-dash-start",
        "qualified-64",
        "value-empty-ok",
        "value-ok",
        "value-slash",
        "value-64",
    ],
)
def test_predicates_return_upstream_details(check: Check, value: str, expected: list[str]) -> None:
    assert check(value) == expected


@pytest.mark.parametrize(
    ("name", "prefix", "expected"),
    [
        ("web", False, []),
        (".", False, ["may not be '.'"]),
        ("..", False, ["may not be '..'"]),
        ("a/b", False, ["may not contain '/'"]),
        ("a%b", False, ["may not contain '%'"]),
        ("a/%", False, ["may not contain '/'", "may not contain '%'"]),
        (".", True, []),
        ("a/b", True, ["may not contain '/'"]),
    ],
    ids=["ok", "dot", "dotdot", "slash", "percent", "both", "prefix-dot", "prefix-slash"],
)
def test_validate_path_segment_name(name: str, prefix: bool, expected: list[str]) -> None:
    assert validate_path_segment_name(name, prefix) == expected


@pytest.mark.parametrize(
    ("name", "prefix", "expected"),
    [
        ("web-", True, []),
        ("web-", False, [SUBDOMAIN_MSG]),
        ("Web-", True, [SUBDOMAIN_MSG]),
    ],
    ids=["generate-name-trailing-dash", "name-trailing-dash", "generate-name-upper"],
)
def test_validate_dns1123_subdomain_name(name: str, prefix: bool, expected: list[str]) -> None:
    assert validate_dns1123_subdomain_name(name, prefix) == expected


def test_validate_dns1123_label_name_masks_trailing_dash_for_prefix() -> None:
    assert validate_dns1123_label_name("ns-", True) == []
    assert validate_dns1123_label_name("ns-", False) == [LABEL_MSG]


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({"app": "web"}, []),
        (None, []),
        ({"a/b/c": "x"}, [f'metadata.labels: Invalid value: "a/b/c": {KEY_SLASHES_MSG}']),
        ({"app": "a/b"}, [f'metadata.labels: Invalid value: "a/b": {VALUE_MSG}']),
        (
            {"app": "a" * 64},
            [f'metadata.labels: Invalid value: "{"a" * 64}": must be no more than 63 characters'],
        ),
    ],
    ids=["ok", "none", "bad-key", "bad-value", "long-value"],
)
def test_validate_labels(labels: dict[str, str] | None, expected: list[str]) -> None:
    got = validate_labels(labels, FieldPath("metadata", "labels"))
    assert [str(e) for e in got] == expected


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({"Example.COM/Key": "x"}, []),
        ({"a/b/c": "x"}, [f'metadata.annotations: Invalid value: "a/b/c": {KEY_SLASHES_MSG}']),
        ({"k": "v" * (256 * 1024 - 1)}, []),
        (
            {"k": "v" * (256 * 1024)},
            ["metadata.annotations: Too long: may not be more than 262144 bytes"],
        ),
    ],
    ids=["case-insensitive-key", "bad-key", "at-limit", "over-limit"],
)
def test_validate_annotations(annotations: dict[str, str], expected: list[str]) -> None:
    got = validate_annotations(annotations, FieldPath("metadata", "annotations"))
    assert [str(e) for e in got] == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, []),
        ({}, []),
        (
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["a"]},
                    {"key": "tier", "operator": "Exists"},
                ],
            },
            [],
        ),
        (
            {"matchLabels": {"app": "a/b"}},
            [f's.matchLabels: Invalid value: "a/b": {VALUE_MSG}'],
        ),
        (
            {"matchExpressions": [{"key": "k", "operator": "In"}]},
            [
                "s.matchExpressions[0].values: Required value: must be specified when `operator` "
                "is 'In' or 'NotIn'"
            ],
        ),
        (
            {"matchExpressions": [{"key": "k", "operator": "NotIn", "values": []}]},
            [
                "s.matchExpressions[0].values: Required value: must be specified when `operator` "
                "is 'In' or 'NotIn'"
            ],
        ),
        (
            {"matchExpressions": [{"key": "k", "operator": "DoesNotExist", "values": ["x"]}]},
            [
                "s.matchExpressions[0].values: Forbidden: may not be specified when `operator` "
                "is 'Exists' or 'DoesNotExist'"
            ],
        ),
        (
            {"matchExpressions": [{"key": "k", "operator": "Foo"}]},
            ['s.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator'],
        ),
        (
            {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a/b"]}]},
            [f's.matchExpressions[0].values[0]: Invalid value: "a/b": {VALUE_MSG}'],
        ),
        (
            {"matchExpressions": [{"key": "-k", "operator": "Exists"}]},
            [f's.matchExpressions[0].key: Invalid value: "-k": {KEY_NAME_MSG}'],
        ),
    ],
    ids=[
        "none",
        "empty",
        "valid",
        "bad-match-label",
        "in-without-values",
        "notin-empty-values",
        "doesnotexist-with-values",
        "bad-operator",
        "bad-expression-value",
        "bad-expression-key",
    ],
)
def test_validate_label_selector(selector: dict[str, Any] | None, expected: list[str]) -> None:
    assert [str(e) for e in validate_label_selector(selector, FieldPath("s"))] == expected


def test_validate_label_selector_can_allow_invalid_values() -> None:
    selector = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["a/b"]}]}
    assert validate_label_selector(selector, FieldPath("s"), allow_invalid_label_value=True) == []


_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@given(st.text(alphabet="ab-.A_/%\n", max_size=12))
def test_subdomain_is_valid_exactly_when_it_fully_matches(value: str) -> None:
    assert (is_dns1123_subdomain(value) == []) == bool(_SUBDOMAIN_RE.fullmatch(value))


@given(st.text(alphabet="ab-.", max_size=12))
def test_every_label_is_a_subdomain(value: str) -> None:
    if not is_dns1123_label(value):
        assert is_dns1123_subdomain(value) == []


def plain_validate_labels(labels: Any, path: FieldPath) -> list[str]:
    """``validate_labels`` without its memo of valid maps: each pair checked."""
    errors: list[str] = []
    for key, value in (labels or {}).items():
        errors.extend(str(e) for e in validate_label_name(key, path))
        errors.extend(str(invalid(path, value, msg)) for msg in is_valid_label_value(str(value)))
    return errors


_label_text = st.text(alphabet="aZ9.-_/é", max_size=8)


@given(st.lists(st.dictionaries(_label_text, _label_text, max_size=3), min_size=1, max_size=4))
def test_validated_labels_read_as_the_plain_checks_when_met_again(
    maps: list[dict[str, str]],
) -> None:
    """A map found valid is filed and answered from the memo when it comes again (at
    another path too); an invalid one is checked every time."""
    for path in (FieldPath("metadata", "labels"), FieldPath("spec", "template", "labels")):
        for labels in maps + maps:
            got = [str(e) for e in validate_labels(labels, path)]
            assert got == plain_validate_labels(labels, path)


@pytest.mark.parametrize(
    "labels",
    [{"app": 1}, {"app": True}, {"app": None}, {"app": ["x"]}, {"app": {"k": "v"}}],
    ids=["int", "bool", "null", "list", "map"],
)
def test_labels_beyond_strings_are_checked_every_time(labels: dict[str, Any]) -> None:
    path = FieldPath("metadata", "labels")
    for _ in range(2):
        assert [str(e) for e in validate_labels(labels, path)] == plain_validate_labels(
            labels, path
        )
    assert tuple(labels.items()) not in list(validation_names_memo())


def validation_names_memo() -> Any:
    return validation_names._VALID_LABELS
