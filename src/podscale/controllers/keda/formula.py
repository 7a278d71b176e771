"""KEDA's scaling-modifier formulas: compile once against the trigger names, evaluate per poll.

Hand-written because no maintained Python library evaluates expr-lang (PyPI's ``expr-lang`` is an
empty placeholder; ``enchanter-golem`` is a single 0.1.0 release of a bundled Go binary with its
own function allowlist), and ``eval`` is out of the question. ``formula_parse`` builds the tree;
this module checks its types the way expr-lang's checker does with KEDA's environment (every
trigger name is a float64), and ``formula_eval`` evaluates it with Go's arithmetic (``/``
always gives a float, ``%`` is integer-only and truncates, division by zero gives an infinity).
KEDA wraps the formula in ``float(...)`` and runs it once with every trigger at -1 when
admitting the ScaledObject; ``compile_formula`` does both, so a formula it accepts is one KEDA
admits. At run time a trigger absent from the values is nil (KEDA's scaling-modifiers fallback
drops failing triggers), which ``??`` replaces. The composite metric's consumer (the generated
HPA) reads ``evaluate``'s float.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from podscale.controllers.keda.formula_eval import (
    ANY,
    ARRAY,
    BOOL,
    FLOAT,
    FUNCTIONS,
    INT,
    LOGICAL,
    NIL,
    ORDERING,
    Evaluator,
    Value,
    type_of,
)
from podscale.controllers.keda.formula_lex import FormulaError
from podscale.controllers.keda.formula_parse import (
    Array,
    Binary,
    Call,
    Conditional,
    Literal,
    Name,
    Node,
    Pointer,
    Unary,
    parse_formula,
)

__all__ = ["Formula", "FormulaError", "compile_formula"]

_NUMERIC = frozenset({INT, FLOAT, ANY})
_ADMISSION_VALUE = -1.0  # the dummy every trigger holds when KEDA's webhook test-runs a formula


@dataclass(frozen=True)
class Formula:
    """A compiled formula; ``names`` are the trigger names it may read."""

    text: str
    names: frozenset[str]
    tree: Node

    def evaluate(self, values: Mapping[str, float]) -> float:
        """The formula's value; raises :class:`FormulaError` when expr-lang would fail at run."""
        env: dict[str, Value] = {n: values.get(n) for n in self.names}
        return _as_float(Evaluator(self.text, env).run(self.tree))


def compile_formula(text: str, names: Collection[str]) -> Formula:
    """Parse and type-check ``text`` with ``names`` as float variables, then test-run it as KEDA."""
    tree = parse_formula(text)
    checker = _Checker(text, frozenset(names))
    result = checker.infer(tree)
    if result not in _NUMERIC:
        raise FormulaError(f"invalid argument for float (type {result})")
    formula = Formula(text, frozenset(names), tree)
    formula.evaluate(dict.fromkeys(names, _ADMISSION_VALUE))
    return formula


def _as_float(value: Value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormulaError(f"invalid argument for float (type {type_of(value)})")
    return float(value)


def _join(a: str, b: str) -> str:
    if a == b:
        return a
    if a == NIL:
        return b
    if b == NIL:
        return a
    return ANY


_FLOAT_FUNCTIONS = frozenset({"ceil", "floor", "round"})


class _Checker:
    """expr-lang's compile-time checks, over KEDA's environment of float triggers."""

    def __init__(self, text: str, names: frozenset[str]) -> None:
        self.text = text
        self.names = names
        self.elements: list[str] = []  # the type of ``#`` in each enclosing predicate

    def error(self, message: str, node: Node) -> FormulaError:
        return FormulaError(message, self.text, node.offset)

    def infer(self, node: Node) -> str:
        match node:
            case Literal(value=value):
                return type_of(value)
            case Name(name=name):
                if name not in self.names:
                    raise self.error(f"unknown name {name}", node)
                return FLOAT
            case Pointer():
                if not self.elements:
                    raise self.error("cannot use pointer accessor outside predicate", node)
                return self.elements[-1]
            case Array(items=items):
                for item in items:
                    self.infer(item)
                return ARRAY
            case Unary(op=op, operand=operand):
                kind = self.infer(operand)
                if op in {"!", "not"}:
                    if kind not in {BOOL, ANY}:
                        raise self.error(f"invalid operation: {op} (mismatched type {kind})", node)
                    return BOOL
                if kind not in _NUMERIC:
                    raise self.error(f"invalid operation: {op} (mismatched type {kind})", node)
                return kind
            case Binary():
                return self.binary(node)
            case Conditional(condition=condition, then=then, otherwise=otherwise):
                kind = self.infer(condition)
                if kind not in {BOOL, ANY}:
                    raise self.error(f"non-bool expression (type {kind}) used as condition", node)
                return _join(self.infer(then), self.infer(otherwise))
            case Call():
                return self.call(node)
        raise AssertionError(node)  # pragma: no cover - the match is exhaustive

    def binary(self, node: Binary) -> str:
        left = self.infer(node.left)
        right = self.infer(node.right)
        op = node.op
        mismatch = f"invalid operation: {op} (mismatched types {left} and {right})"
        if op == "??":
            return _join(left, right)
        if op in {"==", "!="}:
            comparable = left == right or {left, right} <= _NUMERIC or ANY in {left, right}
            if not comparable and NIL not in {left, right}:
                raise self.error(mismatch, node)
            return BOOL
        if op in LOGICAL:
            if not {left, right} <= {BOOL, ANY}:
                raise self.error(mismatch, node)
            return BOOL
        if not {left, right} <= _NUMERIC:
            raise self.error(mismatch, node)
        if op in ORDERING:
            return BOOL
        if op == "%":
            if not {left, right} <= {INT, ANY}:
                raise self.error(mismatch, node)
            return INT
        if op in {"/", "**", "^"}:
            return FLOAT
        return INT if left == right == INT else (ANY if ANY in {left, right} else FLOAT)

    def element_type(self, node: Node) -> str:
        if not isinstance(node, Array) or not node.items:
            return ANY
        kinds = [self.infer(item) for item in node.items]
        joined = kinds[0]
        for kind in kinds[1:]:
            joined = _join(joined, kind)
        return joined

    def call(self, node: Call) -> str:
        name, args = node.function, node.args
        if name not in FUNCTIONS:
            raise self.error(f"unknown func {name}", node)
        if name == "count":
            if len(args) != 2:
                raise self.error(f"invalid number of arguments (expected 2, got {len(args)})", node)
            if self.infer(args[0]) not in {ARRAY, ANY}:
                raise self.error("invalid argument for count (type must be an array)", args[0])
            self.elements.append(self.element_type(args[0]))
            predicate = self.infer(args[1])
            self.elements.pop()
            if predicate not in {BOOL, ANY}:
                raise self.error(f"predicate should return boolean (got {predicate})", args[1])
            return INT
        kinds = [self.infer(arg) for arg in args]
        if name in {"max", "min"}:
            if not kinds:
                raise self.error(f"not enough arguments to call {name}", node)
            for arg, kind in zip(args, kinds, strict=True):
                if kind not in _NUMERIC | {ARRAY}:
                    raise self.error(f"invalid argument for {name} (type {kind})", arg)
            return ANY
        if len(args) != 1:
            raise self.error(f"invalid number of arguments (expected 1, got {len(args)})", node)
        kind = kinds[0]
        if name in {"sum", "len"}:
            if kind not in {ARRAY, ANY}:
                raise self.error(f"invalid argument for {name} (type {kind})", args[0])
            return INT if name == "len" else ANY
        if kind not in _NUMERIC:
            raise self.error(f"invalid argument for {name} (type {kind})", args[0])
        if name in _FLOAT_FUNCTIONS or name == "float":
            return FLOAT
        return INT if name == "int" else kind
