"""Label selectors: the string parser, canonical strings, matching and ``LabelSelector``.

Error texts follow upstream's lexer/parser (labels/selector.go), ``NewRequirement`` and the
``content`` label validators; canonical strings follow ``internalSelector.String``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import (
    Requirement,
    Selector,
    SelectorError,
    format_label_selector,
    label_selector_to_string,
    new_requirement,
    parse_selector,
    selector_from_label_selector,
    selector_from_set,
)

KEY_REGEX_HELP = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_REGEX_HELP = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN_HELP = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

CANONICAL = [
    ("", ""),
    ("   ", ""),
    ("a", "a"),
    ("!a", "!a"),
    ("a=b", "a=b"),
    ("a==b", "a==b"),
    ("a!=b", "a!=b"),
    ("a=", "a="),
    ("a>1", "a>1"),
    ("a<10", "a<10"),
    ("a in (y,x)", "a in (x,y)"),
    ("a in (x)", "a in (x)"),
    ("a notin (z)", "a notin (z)"),
    ("a in (x,x)", "a in (x)"),
    ("a in ()", "a in ()"),
    ("a in (,)", "a in ()"),
    ("a in (b,,c)", "a in (,b,c)"),
    ("  z = 1 ,  a  in  ( q , p ) ", "a in (p,q),z=1"),
    ("c,b=1,!a", "!a,b=1,c"),
    ("a=b,c!=d,e in (x,y),f notin (z),g,!h,x>1", "a=b,c!=d,e in (x,y),f notin (z),g,!h,x>1"),
    ("a=b,a!=c", "a=b,a!=c"),
    ("a notin (in)", "a notin (in)"),
    ("in in (notin)", "in in (notin)"),
    ("example.com/app=web", "example.com/app=web"),
    ("a=b \x00 ignored", "a=b"),
]


@pytest.mark.parametrize(("text", "canonical"), CANONICAL, ids=[repr(c[0]) for c in CANONICAL])
def test_parse_gives_canonical_string(text: str, canonical: str) -> None:
    assert str(parse_selector(text)) == canonical


ERRORS = [
    ("(", "found '(', expected: !, identifier, or 'end of string'"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("a,", "found '', expected: identifier after ','"),
    ("a,=b", "found '=', expected: identifier after ','"),
    ("a=b=c", "found '=', expected: ',' or 'end of string'"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("a=b\tc", "found 'c', expected: ',' or 'end of string'"),
    ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ("a in (b))", "found ')', expected: ',' or 'end of string'"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("!!a", "unable to parse requirement: found '!', expected: identifier"),
    ("a=(", "unable to parse requirement: found '(', expected: identifier"),
    ("a!==b", "unable to parse requirement: found '=', expected: identifier"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
    ("a in b", "unable to parse requirement: found 'b' expected: '('"),
    ("a in", "unable to parse requirement: found '' expected: '('"),
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
    ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
    ("a in (,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
    ("a in (b,=", "unable to parse requirement: found '=', expected: ',', or identifier"),
    (
        "Foo_=bar",
        'unable to parse requirement: <nil>: Invalid value: "Foo_": name part ' + KEY_REGEX_HELP,
    ),
    (
        "/a",
        'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty',
    ),
    (
        "A.b/c",
        'unable to parse requirement: <nil>: Invalid value: "A.b/c": prefix part ' + SUBDOMAIN_HELP,
    ),
    (
        "a/b/c",
        'unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key '
        + KEY_REGEX_HELP
        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ),
    (
        "p/",
        'unable to parse requirement: <nil>: Invalid value: "p/": name part must be non-empty; '
        "name part " + KEY_REGEX_HELP,
    ),
    (
        "k" * 64,
        f'unable to parse requirement: <nil>: Invalid value: "{"k" * 64}": '
        "name part must be no more than 63 characters",
    ),
    (
        "a=b@c",
        'unable to parse requirement: values[0][a]: Invalid value: "b@c": ' + VALUE_REGEX_HELP,
    ),
    (
        "a>-5",
        'unable to parse requirement: values[0][a]: Invalid value: "-5": ' + VALUE_REGEX_HELP,
    ),
    (
        "x>abc",
        'unable to parse requirement: values[0]: Invalid value: "abc": '
        "for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    (
        "x<",
        'unable to parse requirement: values[0]: Invalid value: "": '
        "for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    (
        "a in (x@,y@)",
        'unable to parse requirement: [values[0][a]: Invalid value: "x@": '
        + VALUE_REGEX_HELP
        + ', values[1][a]: Invalid value: "y@": '
        + VALUE_REGEX_HELP
        + "]",
    ),
    (
        "a=" + "v" * 64,
        f'unable to parse requirement: values[0][a]: Invalid value: "{"v" * 64}": '
        "must be no more than 63 characters",
    ),
    # Limits count UTF-8 bytes (Go's len) although the text says "characters".
    (
        "a=" + "é" * 32,
        f'unable to parse requirement: values[0][a]: Invalid value: "{"é" * 32}": '
        "must be no more than 63 characters; " + VALUE_REGEX_HELP,
    ),
    (
        "p" * 254 + "/k",
        f'unable to parse requirement: <nil>: Invalid value: "{"p" * 254}/k": '
        "prefix part must be no more than 253 characters",
    ),
]


@pytest.mark.parametrize(("text", "message"), ERRORS, ids=[repr(e[0][:20]) for e in ERRORS])
def test_parse_errors_read_as_upstream(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_selector(text)
    assert str(caught.value) == message


MATCHING: list[tuple[str, dict[str, str], bool]] = [
    ("", {}, True),
    ("", {"a": "b"}, True),
    ("a=b", {"a": "b"}, True),
    ("a=b", {"a": "c"}, False),
    ("a=b", {}, False),
    ("a==b", {"a": "b", "x": "y"}, True),
    ("a!=b", {}, True),
    ("a!=b", {"a": "b"}, False),
    ("a!=b", {"a": "c"}, True),
    ("a in (x,y)", {"a": "y"}, True),
    ("a in (x,y)", {"a": "z"}, False),
    ("a in (x,y)", {}, False),
    ("a notin (x,y)", {}, True),
    ("a notin (x,y)", {"a": "x"}, False),
    ("a notin (x,y)", {"a": "z"}, True),
    ("a in ()", {"a": ""}, True),
    ("a", {"a": ""}, True),
    ("a", {"b": "a"}, False),
    ("!a", {"b": "1"}, True),
    ("!a", {"a": "1"}, False),
    ("a>1", {"a": "2"}, True),
    ("a>1", {"a": "1"}, False),
    ("a>1", {"a": "x"}, False),
    ("a>1", {}, False),
    ("a<10", {"a": "-3"}, True),
    ("a<10", {"a": "99999999999999999999"}, False),
    ("a<10", {"a": "1_0"}, False),
    ("a=", {"a": ""}, True),
    ("a=b,c in (x),!d,e>3", {"a": "b", "c": "x", "e": "4"}, True),
    ("a=b,c in (x),!d,e>3", {"a": "b", "c": "x", "e": "4", "d": ""}, False),
]


@pytest.mark.parametrize(
    ("text", "labels", "matched"),
    MATCHING,
    ids=[f"{t or 'everything'}-{sorted(ls.items())}" for t, ls, _ in MATCHING],
)
def test_matching(text: str, labels: dict[str, str], matched: bool) -> None:
    assert parse_selector(text).matches(labels) is matched


def test_everything_and_nothing() -> None:
    everything, nothing = Selector.everything(), Selector.nothing()
    assert everything.empty()
    assert everything.matches({"any": "thing"})
    assert str(everything) == ""
    assert not nothing.empty()
    assert not nothing.matches({})
    assert str(nothing) == ""
    assert nothing.add(Requirement("a", "exists")) is nothing
    assert not parse_selector("a").empty()


def test_add_sorts_by_key_and_exact_match() -> None:
    selector = Selector.everything().add(
        Requirement("z", "=", ("1",)), Requirement("a", "in", ("x",))
    )
    assert str(selector) == "a in (x),z=1"
    assert selector.requires_exact_match("a") == "x"
    assert selector.requires_exact_match("z") == "1"
    assert selector.requires_exact_match("m") is None
    assert parse_selector("a in (x,y)").requires_exact_match("a") is None
    assert parse_selector("a!=x").requires_exact_match("a") is None


def test_requirement_errors_and_paths() -> None:
    with pytest.raises(SelectorError) as caught:
        new_requirement("a", "=", ["x", "y"], path="spec.selector")
    assert str(caught.value) == (
        'spec.selector.values: Invalid value: []string{"x", "y"}: '
        "exact-match compatibility requires one single value"
    )
    with pytest.raises(SelectorError) as caught:
        new_requirement("a", "gt", ["1", "2"])
    assert str(caught.value) == (
        'values: Invalid value: []string{"1", "2"}: '
        "for 'Gt', 'Lt' operators, exactly one value is required"
    )
    with pytest.raises(SelectorError) as caught:
        new_requirement("a", "~", [])
    assert str(caught.value) == (
        'operator: Unsupported value: "~": supported values: '
        '"in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"'
    )
    assert str(new_requirement("a", "in", ["y", "x"])) == "a in (x,y)"


LABEL_SELECTORS: list[tuple[str, dict[str, Any] | None, str, str]] = [
    ("null", None, "", "<none>"),
    ("empty", {}, "", "<none>"),
    ("empty-parts", {"matchLabels": {}, "matchExpressions": []}, "", "<none>"),
    ("labels", {"matchLabels": {"app": "web", "tier": "fe"}}, "app=web,tier=fe", ""),
    (
        "expressions",
        {
            "matchLabels": {"z": "1"},
            "matchExpressions": [
                {"key": "m", "operator": "NotIn", "values": ["q", "b"]},
                {"key": "n", "operator": "DoesNotExist"},
                {"key": "e", "operator": "Exists", "values": []},
                {"key": "a", "operator": "In", "values": ["x"]},
            ],
        },
        "a in (x),e,m notin (b,q),!n,z=1",
        "",
    ),
]


@pytest.mark.parametrize(
    ("label_selector", "text", "formatted"),
    [c[1:] for c in LABEL_SELECTORS],
    ids=[c[0] for c in LABEL_SELECTORS],
)
def test_label_selector_conversion(
    label_selector: dict[str, Any] | None, text: str, formatted: str
) -> None:
    assert label_selector_to_string(label_selector) == text
    assert format_label_selector(label_selector) == (formatted or text)


def test_null_selects_nothing_and_empty_selects_everything() -> None:
    assert not selector_from_label_selector(None).matches({"app": "web"})
    assert selector_from_label_selector({}).matches({"app": "web"})
    assert selector_from_label_selector({"matchLabels": {"app": "web"}}).matches({"app": "web"})
    assert not selector_from_label_selector({"matchLabels": {"app": "web"}}).matches({})


LABEL_SELECTOR_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    (
        "operator",
        {"matchExpressions": [{"key": "a", "operator": "Foo"}]},
        '"Foo" is not a valid label selector operator',
    ),
    (
        "in-empty",
        {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
        "values: Invalid value: []string(nil): "
        "for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        "notin-missing",
        {"matchExpressions": [{"key": "a", "operator": "NotIn"}]},
        "values: Invalid value: []string(nil): "
        "for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        "exists-values",
        {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
        'values: Invalid value: []string{"x"}: '
        "values set must be empty for exists and does not exist",
    ),
    (
        "bad-key",
        {"matchLabels": {"Foo_": "x"}},
        'key: Invalid value: "Foo_": name part ' + KEY_REGEX_HELP,
    ),
    (
        "bad-value",
        {"matchLabels": {"app": "x y"}},
        'values[0][app]: Invalid value: "x y": ' + VALUE_REGEX_HELP,
    ),
]


@pytest.mark.parametrize(
    ("label_selector", "message"),
    [c[1:] for c in LABEL_SELECTOR_ERRORS],
    ids=[c[0] for c in LABEL_SELECTOR_ERRORS],
)
def test_label_selector_errors(label_selector: dict[str, Any], message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        selector_from_label_selector(label_selector)
    assert str(caught.value) == message
    assert format_label_selector(label_selector) == "<error>"


def test_selector_from_set() -> None:
    assert str(selector_from_set({"b": "2", "a": "1"})) == "a=1,b=2"
    assert selector_from_set(None).empty()
    assert selector_from_set({}).empty()


def test_parse_is_cached_and_requirements_compare_by_value() -> None:
    assert parse_selector("a=b") is parse_selector("a=b")
    assert parse_selector("a in (y,x)") == parse_selector("a in (x,y)")
    assert Requirement("a", "=", ("b",)) == Requirement("a", "=", ("b",))


# -- properties -------------------------------------------------------------------------------

_NAMES = st.from_regex(r"[a-z0-9]([-a-z0-9_.]{0,6}[a-z0-9])?", fullmatch=True)
_KEYS = st.one_of(_NAMES, st.builds(lambda p, n: f"{p}.io/{n}", st.sampled_from("abc"), _NAMES))
_VALUES = st.one_of(st.just(""), _NAMES, st.integers(-5, 50).map(str).filter(lambda v: v[0] != "-"))


@st.composite
def requirements(draw: st.DrawFn) -> Requirement:
    key = draw(_KEYS)
    operator = draw(st.sampled_from(["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"]))
    if operator in ("exists", "!"):
        values: list[str] = []
    elif operator in ("gt", "lt"):
        values = [str(draw(st.integers(0, 40)))]
    elif operator in ("in", "notin"):
        values = draw(st.lists(_VALUES, min_size=1, max_size=3, unique=True))
    else:
        values = [draw(_VALUES)]
    return new_requirement(key, operator, values)


_LABELS = st.dictionaries(st.one_of(_KEYS, st.sampled_from(["a", "b.io/a"])), _VALUES, max_size=4)


@given(st.lists(requirements(), max_size=4), st.lists(_LABELS, max_size=4))
def test_canonical_strings_reparse_to_the_same_selector(
    reqs: list[Requirement], label_sets: list[dict[str, str]]
) -> None:
    selector = Selector.everything().add(*reqs)
    text = str(selector)
    reparsed = parse_selector(text)
    assert str(reparsed) == text
    for labels in label_sets:
        assert reparsed.matches(labels) == selector.matches(labels)
        assert selector.matches(labels) == all(r.matches(labels) for r in reqs)


# -- module layout: the model and the parser are re-exported, and never import back -------

_REEXPORTED = [
    ("podscale.api.selector_model", "Requirement"),
    ("podscale.api.selector_model", "Selector"),
    ("podscale.api.selector_model", "SelectorError"),
    ("podscale.api.selector_model", "new_requirement"),
    ("podscale.api.selector_model", "selector_from_set"),
    ("podscale.api.selector_model", "OPERATORS"),
    ("podscale.api.selector_model", "BINARY_OPERATORS"),
    ("podscale.api.selector_parser", "parse_selector"),
]


@pytest.mark.parametrize(("module", "name"), _REEXPORTED, ids=[n for _, n in _REEXPORTED])
def test_public_names_are_reexported_from_selectors(module: str, name: str) -> None:
    import podscale.api.selectors as selectors

    assert name in selectors.__all__
    assert getattr(selectors, name) is getattr(importlib.import_module(module), name)


def _podscale_imports(module: str) -> set[str]:
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("podscale")
    }


_LOWER_MODULES = [
    ("podscale.api.selector_model", {"podscale.api.names"}),
    ("podscale.api.selector_parser", {"podscale.api.names", "podscale.api.selector_model"}),
]


@pytest.mark.parametrize(("module", "allowed"), _LOWER_MODULES, ids=[m for m, _ in _LOWER_MODULES])
def test_lower_selector_modules_never_import_selectors_or_validation(
    module: str, allowed: set[str]
) -> None:
    # selectors imports both, and validation.apps imports selectors: either edge is a cycle.
    assert _podscale_imports(module) <= allowed


def test_a_parsed_label_selector_is_kept_and_an_invalid_one_raises_every_time() -> None:
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "Exists"}],
    }
    first = selector_from_label_selector(selector)
    assert selector_from_label_selector(dict(selector)) is first
    assert str(first) == "app=web,tier"
    invalid = {"matchExpressions": [{"key": "tier", "operator": "Near"}]}
    for _ in range(2):
        with pytest.raises(SelectorError, match='"Near" is not a valid label selector operator'):
            selector_from_label_selector(invalid)
