"""KEDA's scaling-modifier formulas (expr-lang as KEDA compiles it): precedence, associativity,
ternaries, nil coalescing over failed triggers, builtins, Go arithmetic, and the errors the
ScaledObject webhook reports at admission."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.formula import FormulaError, compile_formula

NAMES = ("a", "b", "c", "primary", "secondary", "queue_len")


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("a + b * c", {"a": 1, "b": 2, "c": 3}, 7.0),
        ("(a + b) * c", {"a": 1, "b": 2, "c": 3}, 9.0),
        ("a - b - c", {"a": 10, "b": 3, "c": 2}, 5.0),
        ("a / b / c", {"a": 8, "b": 2, "c": 2}, 2.0),
        ("2 ** 3 ** 2", {}, 512.0),
        ("2 ^ 3 ^ 2", {}, 512.0),
        ("-2 ** 2", {}, -4.0),
        ("2 ** -1", {}, 0.5),
        ("-a * -b", {"a": 2, "b": 3}, 6.0),
        ("a ?? 1 + 2", {}, 3.0),
        ("7 / 2", {}, 3.5),
        ("7 % 3 + 7 % -3 * 10 + -7 % 3 * 100", {}, 1.0 + 10.0 - 100.0),
        ("1 / 0", {}, math.inf),
        ("-1 / 0", {}, -math.inf),
        ("0x1F + 0o7 + 0b11 + 1_000 + .5 + 1e-3", {}, 31 + 7 + 3 + 1000 + 0.5 + 0.001),
        ("a > 1 ? a : b", {"a": 5, "b": 1}, 5.0),
        ("a > 1 ? a : b", {"a": 0, "b": 1}, 1.0),
        ("a > 10 ? 3 : a > 5 ? 2 : 1", {"a": 7}, 2.0),
        ("a > 5 ? a > 10 ? 3 : 2 : 1", {"a": 20}, 3.0),
        ("a > 1 && !(b < 2) ? 1 : 0", {"a": 2, "b": 3}, 1.0),
        ("not (a > 1) or b == 3 ? 10 : 20", {"a": 2, "b": 3}, 10.0),
        ("a == 1 || a / 0 > 1 ? 1 : 0", {"a": 1}, 1.0),
        ("a != a ? 1 : 0", {"a": math.nan}, 1.0),
        ("primary ?? secondary ?? 8", {"primary": 1, "secondary": 2}, 1.0),
        ("primary ?? secondary ?? 8", {"secondary": 2}, 2.0),
        ("primary ?? secondary ?? 8", {}, 8.0),
        ("a == nil ? 0 : a", {}, 0.0),
        ("max(a, b / 1000)", {"a": 0.5, "b": 2000}, 2.0),
        ("min(a, b, c)", {"a": 3, "b": 1, "c": 2}, 1.0),
        ("max([a, b], 4)", {"a": 3, "b": 1}, 4.0),
        ("abs(a - b)", {"a": 1, "b": 4}, 3.0),
        ("float(a) * 2", {"a": 1.5}, 3.0),
        ("int(a) + 1", {"a": 2.7}, 3.0),
        ("ceil(1.2) + floor(-1.2) + round(-2.5) + round(2.4)", {}, 2.0 - 2.0 - 3.0 + 2.0),
        ("count([a, b, c], # > 1)", {"a": 2, "b": 3, "c": 0}, 2.0),
        ("count([a, b, c], {# > 1}) * 10", {"a": 2, "b": 0, "c": 0}, 10.0),
        ("sum([a, b]) / len([a, b])", {"a": 2, "b": 4}, 3.0),
        ("queue_len / 10 // trailing comment", {"queue_len": 40}, 4.0),
        ("/* weight */ a * 2", {"a": 2}, 4.0),
    ],
    ids=[
        "precedence-mul-over-add",
        "parentheses",
        "minus-left-assoc",
        "divide-left-assoc",
        "power-right-assoc",
        "caret-is-power",
        "power-binds-tighter-than-unary-minus",
        "unary-minus-in-exponent",
        "unary-minus-operands",
        "nil-coalescing-binds-tightest",
        "int-division-gives-float",
        "go-remainder-takes-dividend-sign",
        "float-divide-by-zero-is-inf",
        "negative-divide-by-zero-is-minus-inf",
        "int-literals-hex-octal-binary-underscore-float",
        "ternary-then",
        "ternary-else",
        "ternary-nests-right-in-else",
        "ternary-nests-in-then",
        "and-not-comparison",
        "word-operators",
        "or-short-circuits",
        "nan-is-not-equal-to-itself",
        "coalesce-first-present",
        "coalesce-falls-through-failed-trigger",
        "coalesce-to-literal-when-all-failed",
        "failed-trigger-equals-nil",
        "max-as-keda-docs-show",
        "min-variadic",
        "max-flattens-array",
        "abs",
        "float-builtin",
        "int-truncates",
        "ceil-floor-round-half-away",
        "count-predicate",
        "count-predicate-in-braces",
        "sum-and-len",
        "line-comment",
        "block-comment",
    ],
)
def test_evaluates_as_expr_lang(text: str, values: dict[str, float], expected: float) -> None:
    assert compile_formula(text, NAMES).evaluate(values) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "formula is empty"),
        ("a +", "unexpected end of formula: expected a number, a trigger name"),
        ("(a + b", "unexpected end of formula: expected ')' (1:7)"),
        ("a b", "unexpected 'b': expected an operator or the end of the formula (1:3)"),
        ("a ? 1", "expected ':' (1:6)"),
        ("missing + 1", "unknown name missing (1:1)"),
        ("a +\n  cpu_trigger", "unknown name cpu_trigger (2:3)"),
        ("median([a])", "unknown func median (1:1)"),
        ("a > 1", "invalid argument for float (type bool)"),
        ("nil", "invalid argument for float (type <nil>)"),
        ("a % 2", "invalid operation: % (mismatched types float64 and int) (1:3)"),
        ("a && b", "invalid operation: && (mismatched types float64 and float64)"),
        ("!a", "invalid operation: ! (mismatched type float64) (1:1)"),
        ("-true", "invalid operation: - (mismatched type bool)"),
        ("a == true ? 1 : 0", "invalid operation: == (mismatched types float64 and bool)"),
        ("1 ? 2 : 3", "non-bool expression (type int) used as condition"),
        ("max()", "not enough arguments to call max"),
        ("abs(a, b)", "invalid number of arguments (expected 1, got 2)"),
        ("count(a, # > 1)", "invalid argument for count (type must be an array)"),
        ("count([a], #)", "predicate should return boolean"),
        ("# + 1", "cannot use pointer accessor outside predicate"),
        ("a.b", "member access (.) is not supported"),
        ("a in [1]", "operator in is not supported"),
        ("'x'", "strings (') are not supported"),
        ("1..3", "ranges (..) are not supported"),
        ("a ?: b", "a ?: b is not supported"),
        ("a @ b", "unrecognized character: '@' (1:3)"),
        ("1.2.3", "invalid number literal 1.2.3 (1:1)"),
        ("/* open", "unterminated comment (1:1)"),
        ("1 % (a > 0 ? 1 : a)", "invalid operation: % (mismatched types int and float64)"),
        ("(" * 150 + "a" + ")" * 150, "formula is nested too deeply"),
    ],
    ids=[
        "empty",
        "missing-operand",
        "unclosed-parenthesis",
        "two-operands",
        "ternary-without-else",
        "unknown-trigger-name-at-admission",
        "position-on-second-line",
        "unknown-function",
        "bool-result-is-not-a-number",
        "nil-result-is-not-a-number",
        "remainder-needs-ints-and-triggers-are-float64",
        "logical-and-needs-bools",
        "not-needs-bool",
        "minus-needs-number",
        "compare-float-with-bool",
        "condition-must-be-bool",
        "max-without-arguments",
        "abs-arity",
        "count-needs-array",
        "count-predicate-must-be-bool",
        "pointer-outside-predicate",
        "member-access-unsupported",
        "in-unsupported",
        "strings-unsupported",
        "ranges-unsupported",
        "elvis-unsupported",
        "bad-character",
        "bad-number",
        "unterminated-comment",
        "float-branch-reaches-remainder-in-admission-run",
        "nesting-bounded",
    ],
)
def test_refuses_at_compile_time(text: str, message: str) -> None:
    with pytest.raises(FormulaError) as caught:
        compile_formula(text, NAMES)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("text", "values", "message"),
    [
        ("a + 1", {}, "invalid operation: + (mismatched types <nil> and int) (1:3)"),
        ("a > 1 ? 1 : 0", {}, "invalid operation: > (mismatched types <nil> and int)"),
        ("int(a) % int(b)", {"a": 1, "b": 0.5}, "integer divide by zero"),
        ("a ?? b", {}, "invalid argument for float (type <nil>)"),
    ],
    ids=[
        "failed-trigger-in-arithmetic",
        "failed-trigger-in-comparison",
        "int-modulo-by-zero",
        "all-nil",
    ],
)
def test_fails_at_run_time(text: str, values: dict[str, float], message: str) -> None:
    formula = compile_formula(text, NAMES)
    with pytest.raises(FormulaError, match=None) as caught:
        formula.evaluate(values)
    assert message in str(caught.value)


def test_admission_test_run_refuses_what_fails_with_every_trigger_at_minus_one() -> None:
    # KEDA's webhook test-runs the formula with every trigger at -1: int(a + 1) is then 0.
    with pytest.raises(FormulaError, match="integer divide by zero"):
        compile_formula("int(a) % int(a + 1)", NAMES)


def test_snippet_points_at_the_error() -> None:
    with pytest.raises(FormulaError) as caught:
        compile_formula("a + missing", NAMES)
    assert caught.value.snippet() == " | a + missing\n | ....^"


def test_names_outside_the_formula_are_allowed_and_values_for_other_names_ignored() -> None:
    formula = compile_formula("a * 2", ["a", "unused"])
    assert formula.evaluate({"a": 2, "other": 99}) == 4.0


@dataclass(frozen=True)
class Tree:
    """An arithmetic tree over + - * with its expected value computed in Python."""

    text: str
    value: int


_VALUES = {"a": 3, "b": -2, "c": 5}


def _trees() -> st.SearchStrategy[Tree]:
    leaves = st.one_of(
        st.integers(min_value=0, max_value=1000).map(lambda v: Tree(str(v), v)),
        st.sampled_from(sorted(_VALUES)).map(lambda n: Tree(n, _VALUES[n])),
    )

    def combine(children: st.SearchStrategy[Tree]) -> st.SearchStrategy[Tree]:
        def build(op: str, left: Tree, right: Tree, parens: bool) -> Tree:
            value = (
                left.value + right.value
                if op == "+"
                else left.value - right.value
                if op == "-"
                else left.value * right.value
            )
            # Children are always parenthesized; precedence itself is the chain test's job.
            text = f"({left.text}) {op} ({right.text})"
            text = f"({text})" if parens else text
            return Tree(text, value)

        negated = children.map(lambda t: Tree(f"-({t.text})", -t.value))
        return st.one_of(
            st.builds(build, st.sampled_from("+-*"), children, children, st.booleans()), negated
        )

    return st.recursive(leaves, combine, max_leaves=12)


@given(_trees())
def test_arithmetic_over_plus_minus_times_matches_python(tree: Tree) -> None:
    assert compile_formula(tree.text, NAMES).evaluate(_VALUES) == float(tree.value)


@given(
    st.lists(st.sampled_from("+-*"), min_size=1, max_size=6),
    st.lists(st.integers(0, 50), min_size=7, max_size=7),
)
def test_unparenthesized_chains_follow_python_precedence(
    ops: list[str], numbers: list[int]
) -> None:
    # Python's + - * share expr-lang's precedence and left associativity, so the same text agrees.
    text = (
        " ".join(f"{n} {op}" for n, op in zip(numbers, ops, strict=False)) + f" {numbers[len(ops)]}"
    )
    assert compile_formula(text, NAMES).evaluate({}) == float(_python_arithmetic(text))


def _python_arithmetic(text: str) -> int:
    # A tiny shunting evaluation over ints: the oracle must not be the code under test, nor eval.
    tokens = text.split()
    terms: list[int] = []
    signs: list[int] = []
    product = int(tokens[0])
    for op, number in zip(tokens[1::2], tokens[2::2], strict=True):
        if op == "*":
            product *= int(number)
        else:
            terms.append(product)
            signs.append(1 if op == "+" else -1)
            product = int(number)
    terms.append(product)
    return terms[0] + sum(s * t for s, t in zip(signs, terms[1:], strict=True))
