"""KEDA's scaling-modifier formulas: compile once against the trigger names, evaluate per poll.

Hand-written because no maintained Python library evaluates expr-lang (PyPI's ``expr-lang`` is an
empty placeholder; ``enchanter-golem`` is a single 0.1.0 release of a bundled Go binary with its
own function allowlist), and ``eval`` is out of the question. ``formula_parse`` builds the tree;
this module checks its types the way expr-lang's checker does with KEDA's environment (every
trigger name is a float64) and evaluates it with Go's arithmetic (``/`` always gives a float,
``%`` is integer-only and truncates, division by zero gives an infinity). KEDA wraps the formula
in ``float(...)`` and runs it once with every trigger at -1 when admitting the ScaledObject;
``compile_formula`` does both, so a formula it accepts is one KEDA admits. At run time a trigger
absent from the values is nil (KEDA's scaling-modifiers fallback drops failing triggers), which
``??`` replaces. The composite metric's consumer (the generated HPA) reads ``evaluate``'s float.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from podscale.controllers.keda.formula_parse import (
    Array,
    Binary,
    Call,
    Conditional,
    FormulaError,
    Literal,
    Name,
    Node,
    Pointer,
    Unary,
    parse_formula,
)

__all__ = ["Formula", "FormulaError", "compile_formula"]

Value: TypeAlias = "int | float | bool | tuple[Value, ...] | None"

# Static types, named as expr-lang names Go's types in its messages; "any" is unknown until run.
_INT, _FLOAT, _BOOL, _NIL, _ARRAY, _ANY = "int", "float64", "bool", "<nil>", "[]interface {}", "any"
_NUMERIC = frozenset({_INT, _FLOAT, _ANY})
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
        return _as_float(_Evaluator(self.text, env).run(self.tree))


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
        raise FormulaError(f"invalid argument for float (type {_type_of(value)})")
    return float(value)


def _type_of(value: Value) -> str:
    if value is None:
        return _NIL
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT
    if isinstance(value, float):
        return _FLOAT
    return _ARRAY


def _join(a: str, b: str) -> str:
    if a == b:
        return a
    if a == _NIL:
        return b
    if b == _NIL:
        return a
    return _ANY


_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "**", "^"})
_ORDERING = frozenset({"<", "<=", ">", ">="})
_LOGICAL = frozenset({"&&", "||", "and", "or"})
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
                return _type_of(value)
            case Name(name=name):
                if name not in self.names:
                    raise self.error(f"unknown name {name}", node)
                return _FLOAT
            case Pointer():
                if not self.elements:
                    raise self.error("cannot use pointer accessor outside predicate", node)
                return self.elements[-1]
            case Array(items=items):
                for item in items:
                    self.infer(item)
                return _ARRAY
            case Unary(op=op, operand=operand):
                kind = self.infer(operand)
                if op in {"!", "not"}:
                    if kind not in {_BOOL, _ANY}:
                        raise self.error(f"invalid operation: {op} (mismatched type {kind})", node)
                    return _BOOL
                if kind not in _NUMERIC:
                    raise self.error(f"invalid operation: {op} (mismatched type {kind})", node)
                return kind
            case Binary():
                return self.binary(node)
            case Conditional(condition=condition, then=then, otherwise=otherwise):
                kind = self.infer(condition)
                if kind not in {_BOOL, _ANY}:
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
            comparable = left == right or {left, right} <= _NUMERIC or _ANY in {left, right}
            if not comparable and _NIL not in {left, right}:
                raise self.error(mismatch, node)
            return _BOOL
        if op in _LOGICAL:
            if not {left, right} <= {_BOOL, _ANY}:
                raise self.error(mismatch, node)
            return _BOOL
        if not {left, right} <= _NUMERIC:
            raise self.error(mismatch, node)
        if op in _ORDERING:
            return _BOOL
        if op == "%":
            if not {left, right} <= {_INT, _ANY}:
                raise self.error(mismatch, node)
            return _INT
        if op in {"/", "**", "^"}:
            return _FLOAT
        return _INT if left == right == _INT else (_ANY if _ANY in {left, right} else _FLOAT)

    def element_type(self, node: Node) -> str:
        if not isinstance(node, Array) or not node.items:
            return _ANY
        kinds = [self.infer(item) for item in node.items]
        joined = kinds[0]
        for kind in kinds[1:]:
            joined = _join(joined, kind)
        return joined

    def call(self, node: Call) -> str:
        name, args = node.function, node.args
        if name not in _FUNCTIONS:
            raise self.error(f"unknown func {name}", node)
        if name == "count":
            if len(args) != 2:
                raise self.error(f"invalid number of arguments (expected 2, got {len(args)})", node)
            if self.infer(args[0]) not in {_ARRAY, _ANY}:
                raise self.error("invalid argument for count (type must be an array)", args[0])
            self.elements.append(self.element_type(args[0]))
            predicate = self.infer(args[1])
            self.elements.pop()
            if predicate not in {_BOOL, _ANY}:
                raise self.error(f"predicate should return boolean (got {predicate})", args[1])
            return _INT
        kinds = [self.infer(arg) for arg in args]
        if name in {"max", "min"}:
            if not kinds:
                raise self.error(f"not enough arguments to call {name}", node)
            for arg, kind in zip(args, kinds, strict=True):
                if kind not in _NUMERIC | {_ARRAY}:
                    raise self.error(f"invalid argument for {name} (type {kind})", arg)
            return _ANY
        if len(args) != 1:
            raise self.error(f"invalid number of arguments (expected 1, got {len(args)})", node)
        kind = kinds[0]
        if name in {"sum", "len"}:
            if kind not in {_ARRAY, _ANY}:
                raise self.error(f"invalid argument for {name} (type {kind})", args[0])
            return _INT if name == "len" else _ANY
        if kind not in _NUMERIC:
            raise self.error(f"invalid argument for {name} (type {kind})", args[0])
        if name in _FLOAT_FUNCTIONS or name == "float":
            return _FLOAT
        return _INT if name == "int" else kind


class _Evaluator:
    """Walks a checked tree with Go's number semantics; nil values fail where expr-lang fails."""

    def __init__(self, text: str, env: Mapping[str, Value]) -> None:
        self.text = text
        self.env = env
        self.element: list[Value] = []  # the ``#`` of each enclosing predicate

    def error(self, message: str, node: Node) -> FormulaError:
        return FormulaError(message, self.text, node.offset)

    def run(self, node: Node) -> Value:
        match node:
            case Literal(value=value):
                return value
            case Name(name=name):
                return self.env[name]
            case Pointer():
                return self.element[-1]
            case Array(items=items):
                return tuple(self.run(item) for item in items)
            case Unary(op=op, operand=operand):
                inner = self.run(operand)
                if op in {"!", "not"}:
                    return not self.boolean(inner, op, node)
                number = self.number(inner, op, node)
                return -number if op == "-" else number
            case Binary():
                return self.binary(node)
            case Conditional(condition=condition, then=then, otherwise=otherwise):
                chosen = self.boolean(self.run(condition), "?", node)
                return self.run(then if chosen else otherwise)
            case Call():
                return self.call(node)
        raise AssertionError(node)  # pragma: no cover - the match is exhaustive

    def boolean(self, value: Value, op: str, node: Node) -> bool:
        if not isinstance(value, bool):
            raise self.error(f"invalid operation: {op} (mismatched type {_type_of(value)})", node)
        return value

    def number(self, value: Value, op: str, node: Node) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(f"invalid operation: {op} (mismatched type {_type_of(value)})", node)
        return value

    def binary(self, node: Binary) -> Value:
        op = node.op
        left = self.run(node.left)
        if op == "??":
            return self.run(node.right) if left is None else left
        if op in _LOGICAL:
            # Short-circuit like expr-lang: the right side is not evaluated once decided.
            decided = self.boolean(left, op, node)
            if decided == (op in {"||", "or"}):
                return decided
            return self.boolean(self.run(node.right), op, node)
        right = self.run(node.right)
        if op in {"==", "!="}:
            return _equal(left, right) == (op == "==")
        mismatch = (
            f"invalid operation: {op} (mismatched types {_type_of(left)} and {_type_of(right)})"
        )
        if not (_is_number(left) and _is_number(right)):
            raise self.error(mismatch, node)
        assert isinstance(left, int | float)
        assert isinstance(right, int | float)
        if op in _ORDERING:
            return _ORDER[op](left, right)
        if op == "%":
            if not (isinstance(left, int) and isinstance(right, int)):
                raise self.error(mismatch, node)
            if right == 0:
                raise self.error("integer divide by zero", node)
            # Go's remainder takes the dividend's sign (math.fmod's rule), unlike Python's %.
            remainder = abs(left) % abs(right)
            return remainder if left >= 0 else -remainder
        if op == "/":
            return _divide(float(left), float(right))
        if op in {"**", "^"}:
            return _power(float(left), float(right))
        return left + right if op == "+" else left - right if op == "-" else left * right

    def call(self, node: Call) -> Value:
        name = node.function
        if name == "count":
            items = self.run(node.args[0])
            if not isinstance(items, tuple):
                raise self.error(f"cannot count over {_type_of(items)}", node)
            total = 0
            for item in items:
                self.element.append(item)
                try:
                    total += self.boolean(self.run(node.args[1]), "count", node.args[1])
                finally:
                    self.element.pop()
            return total
        values = [self.run(arg) for arg in node.args]
        if name in {"max", "min", "sum"}:
            flat = [
                v for value in values for v in (value if isinstance(value, tuple) else (value,))
            ]
            numbers = [self.number(v, name, node) for v in flat]
            if name == "sum":
                return sum(numbers, 0)
            if not numbers:
                raise self.error(f"not enough arguments to call {name}", node)
            return max(numbers) if name == "max" else min(numbers)
        (value,) = values
        if name == "len":
            if not isinstance(value, tuple):
                raise self.error(f"invalid argument for len (type {_type_of(value)})", node)
            return len(value)
        number = self.number(value, name, node)
        return _NUMBER_FUNCTIONS[name](number)


def _is_number(value: Value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(left: Value, right: Value) -> bool:
    if _is_number(left) and _is_number(right):
        return left == right
    return type(left) is type(right) and left == right


def _divide(left: float, right: float) -> float:
    if right != 0:
        return left / right
    if left == 0 or math.isnan(left):
        return math.nan
    # IEEE division by a signed zero, as Go computes it.
    return math.copysign(math.inf, left) * math.copysign(1.0, right)


def _power(base: float, exponent: float) -> float:
    try:
        return math.pow(base, exponent)
    except OverflowError:
        negative = base < 0 and exponent.is_integer() and exponent % 2 == 1
        return -math.inf if negative else math.inf
    except ValueError:
        if base == 0:  # 0 to a negative power: Go's Pow gives an infinity.
            odd = exponent.is_integer() and exponent % 2 == 1
            return math.copysign(math.inf, base) if odd else math.inf
        return math.nan


def _round_half_away(value: int | float) -> float:
    return float(math.copysign(math.floor(abs(value) + 0.5), value))


def _to_int(value: int | float) -> int:
    if isinstance(value, float) and not math.isfinite(value):
        raise FormulaError(f"cannot convert {value} to int")
    return int(value)


_ORDER: dict[str, Callable[[int | float, int | float], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_NUMBER_FUNCTIONS: dict[str, Callable[[int | float], Value]] = {
    "abs": abs,
    "float": float,
    "int": _to_int,
    "ceil": lambda v: float(math.ceil(v)) if math.isfinite(v) else float(v),
    "floor": lambda v: float(math.floor(v)) if math.isfinite(v) else float(v),
    "round": lambda v: _round_half_away(v) if math.isfinite(v) else float(v),
}
_FUNCTIONS = frozenset(_NUMBER_FUNCTIONS) | {"count", "max", "min", "sum", "len"}
