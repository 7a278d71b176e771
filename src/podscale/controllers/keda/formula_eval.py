"""Running a compiled KEDA scaling-modifier formula with Go's arithmetic, as expr-lang does.

``formula.Formula.evaluate`` walks the tree ``formula_parse`` built (and ``formula``'s
checker accepted) with an ``Evaluator`` over the trigger values: ``/`` always gives a float,
``%`` is integer-only and truncates toward zero, division by zero gives an infinity (IEEE, as
Go computes it), ``**`` overflows to an infinity, ``round`` rounds half away from zero, and a
nil value (a trigger absent from the values) fails wherever expr-lang fails unless ``??``
replaces it. The static type names (``INT``, ``FLOAT``, ...: Go's, as expr-lang's messages
name them), ``type_of`` a run-time value, the operator sets and the function names
(``FUNCTIONS``) are shared with the checker in ``formula``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TypeAlias

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
)

__all__ = [
    "ANY",
    "ARRAY",
    "BOOL",
    "FLOAT",
    "FUNCTIONS",
    "INT",
    "LOGICAL",
    "NIL",
    "ORDERING",
    "Evaluator",
    "Value",
    "type_of",
]

Value: TypeAlias = "int | float | bool | tuple[Value, ...] | None"

# Static types, named as expr-lang names Go's types in its messages; "any" is unknown until run.
INT, FLOAT, BOOL, NIL, ARRAY, ANY = "int", "float64", "bool", "<nil>", "[]interface {}", "any"
ORDERING = frozenset({"<", "<=", ">", ">="})
LOGICAL = frozenset({"&&", "||", "and", "or"})


def type_of(value: Value) -> str:
    if value is None:
        return NIL
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    return ARRAY


class Evaluator:
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
            raise self.error(f"invalid operation: {op} (mismatched type {type_of(value)})", node)
        return value

    def number(self, value: Value, op: str, node: Node) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(f"invalid operation: {op} (mismatched type {type_of(value)})", node)
        return value

    def binary(self, node: Binary) -> Value:
        op = node.op
        left = self.run(node.left)
        if op == "??":
            return self.run(node.right) if left is None else left
        if op in LOGICAL:
            # Short-circuit like expr-lang: the right side is not evaluated once decided.
            decided = self.boolean(left, op, node)
            if decided == (op in {"||", "or"}):
                return decided
            return self.boolean(self.run(node.right), op, node)
        right = self.run(node.right)
        if op in {"==", "!="}:
            return _equal(left, right) == (op == "==")
        mismatch = (
            f"invalid operation: {op} (mismatched types {type_of(left)} and {type_of(right)})"
        )
        if not (_is_number(left) and _is_number(right)):
            raise self.error(mismatch, node)
        assert isinstance(left, int | float)
        assert isinstance(right, int | float)
        if op in ORDERING:
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
                raise self.error(f"cannot count over {type_of(items)}", node)
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
                raise self.error(f"invalid argument for len (type {type_of(value)})", node)
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
FUNCTIONS = frozenset(_NUMBER_FUNCTIONS) | {"count", "max", "min", "sum", "len"}
