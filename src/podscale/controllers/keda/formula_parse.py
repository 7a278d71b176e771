"""Pratt parser for KEDA's scaling-modifier formulas (an expr-lang subset): the syntax tree.

``formula_lex`` splits the text into tokens; ``formula.py`` type-checks the tree built here
and ``formula_eval`` evaluates it. The grammar follows expr-lang
(github.com/expr-lang/expr), which KEDA compiles ``advanced.scalingModifiers.formula`` with:
its operator table (precedence and associativity, ``**`` binding tighter than unary minus,
``??`` tighter than every other binary operator) and ternaries parsed only at the lowest
level and nesting to the right. Words of expr-lang a formula over trigger values has no use
for (``in``, ``matches``, ``let`` and the like) are refused with a message naming them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from podscale.controllers.keda.formula_lex import FormulaError, Token, tokenize

# expr-lang's precedences; ``right`` marks right-associative operators.
_BINARY: dict[str, tuple[int, bool]] = {
    "||": (10, False),
    "or": (10, False),
    "&&": (15, False),
    "and": (15, False),
    "==": (20, False),
    "!=": (20, False),
    "<": (20, False),
    ">": (20, False),
    "<=": (20, False),
    ">=": (20, False),
    "+": (30, False),
    "-": (30, False),
    "*": (60, False),
    "/": (60, False),
    "%": (60, False),
    "**": (100, True),
    "^": (100, True),
    "??": (500, False),
}
_UNARY: dict[str, int] = {"!": 50, "not": 50, "-": 90, "+": 90}
_WORD_OPERATORS = frozenset({"and", "or", "not"})
_UNSUPPORTED_WORDS = frozenset(
    {"in", "matches", "contains", "startsWith", "endsWith", "let", "if", "else"}
)
# Bounds recursion so that a pathological formula is an error, not a RecursionError.
MAX_DEPTH = 100


@dataclass(frozen=True)
class Literal:
    value: int | float | bool | None
    offset: int


@dataclass(frozen=True)
class Name:
    name: str
    offset: int


@dataclass(frozen=True)
class Pointer:
    """``#``: the current element inside a ``count`` predicate."""

    offset: int


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node
    offset: int


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node
    offset: int


@dataclass(frozen=True)
class Conditional:
    condition: Node
    then: Node
    otherwise: Node
    offset: int


@dataclass(frozen=True)
class Call:
    function: str
    args: tuple[Node, ...]
    offset: int


@dataclass(frozen=True)
class Array:
    items: tuple[Node, ...]
    offset: int


Node: TypeAlias = Literal | Name | Pointer | Unary | Binary | Conditional | Call | Array


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.depth = 0

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def fail(self, token: Token, expected: str) -> FormulaError:
        found = "end of formula" if token.kind == "eof" else repr(token.text)
        return FormulaError(f"unexpected {found}: expected {expected}", self.text, token.offset)

    def expect(self, op: str) -> None:
        if not self.is_op(op):
            raise self.fail(self.current, repr(op))
        self.advance()

    def is_op(self, op: str) -> bool:
        return self.current.kind == "op" and self.current.text == op

    def operator(self) -> str | None:
        token = self.current
        if token.kind == "op" or (token.kind == "name" and token.text in _WORD_OPERATORS):
            return token.text
        return None

    def expression(self, precedence: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError("formula is nested too deeply", self.text, self.current.offset)
        left = self.primary()
        while (op := self.operator()) in _BINARY and _BINARY[op or ""][0] >= precedence:
            assert op is not None
            token = self.advance()
            level, right_assoc = _BINARY[op]
            right = self.expression(level if right_assoc else level + 1)
            left = Binary(op, left, right, token.offset)
        if self.current.kind == "name" and self.current.text in _UNSUPPORTED_WORDS:
            raise FormulaError(
                f"operator {self.current.text} is not supported in scaling-modifier formulas",
                self.text,
                self.current.offset,
            )
        if precedence == 0:
            left = self.conditional(left)
        self.depth -= 1
        return left

    def conditional(self, condition: Node) -> Node:
        # Ternaries nest to the right: both branches are full expressions.
        while self.is_op("?"):
            token = self.advance()
            if self.is_op(":"):
                raise self.fail(self.current, "an expression after '?' (a ?: b is not supported)")
            then = self.expression(0)
            self.expect(":")
            otherwise = self.expression(0)
            condition = Conditional(condition, then, otherwise, token.offset)
        return condition

    def primary(self) -> Node:
        op = self.operator()
        if op in _UNARY:
            assert op is not None
            token = self.advance()
            return Unary(op, self.expression(_UNARY[op]), token.offset)
        if self.is_op("("):
            self.advance()
            inner = self.expression(0)
            self.expect(")")
            return inner
        return self.operand()

    def operand(self) -> Node:
        token = self.current
        if token.kind == "number":
            self.advance()
            return Literal(token.value, token.offset)
        if token.kind == "name" and token.text not in _WORD_OPERATORS | _UNSUPPORTED_WORDS:
            self.advance()
            constants: dict[str, bool | None] = {"true": True, "false": False, "nil": None}
            if token.text in constants:
                return Literal(constants[token.text], token.offset)
            if self.is_op("("):
                self.advance()
                return Call(token.text, self.arguments(")"), token.offset)
            return Name(token.text, token.offset)
        if self.is_op("["):
            self.advance()
            return Array(self.arguments("]"), token.offset)
        if self.is_op("#"):
            self.advance()
            return Pointer(token.offset)
        if self.is_op("{"):
            # A predicate in braces, as in count(list, {# > 1}).
            self.advance()
            body = self.expression(0)
            self.expect("}")
            return body
        raise self.fail(token, "a number, a trigger name, a function call, '(' or a unary operator")

    def arguments(self, closing: str) -> tuple[Node, ...]:
        args: list[Node] = []
        while not self.is_op(closing):
            args.append(self.expression(0))
            if self.is_op(","):
                self.advance()
            elif not self.is_op(closing):
                raise self.fail(self.current, f"',' or {closing!r}")
        self.advance()
        return tuple(args)


def parse_formula(text: str) -> Node:
    """The syntax tree of ``text``; raises :class:`FormulaError` naming position and expectation."""
    if not text.strip():
        raise FormulaError("formula is empty")
    parser = _Parser(text)
    tree = parser.expression(0)
    if parser.current.kind != "eof":
        raise parser.fail(parser.current, "an operator or the end of the formula")
    return tree
