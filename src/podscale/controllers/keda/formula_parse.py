"""Lexer and Pratt parser for KEDA's scaling-modifier formulas (an expr-lang subset).

``formula.py`` type-checks and evaluates the syntax tree built here. The grammar follows
expr-lang (github.com/expr-lang/expr), which KEDA compiles ``advanced.scalingModifiers.formula``
with: its operator table (precedence and associativity, ``**`` binding tighter than unary
minus, ``??`` tighter than every other binary operator), ternaries parsed only at the lowest
level and nesting to the right, and number literals in decimal, hex, octal and binary. Parts of
expr-lang a formula over trigger values has no use for (strings, maps, member access, ranges,
pipes, ``let``) are refused with a message naming them rather than misread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

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
# Longest first, so that "**" is not read as two "*".
_PUNCTUATION = (
    "**", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "..",
    "+", "-", "*", "/", "%", "^", "<", ">", "!", "?", ":", "(", ")", ",", "[", "]",
    "{", "}", "#", ".", "|", "=", ";", "'", '"', "`",
)  # fmt: skip
_NOT_SUPPORTED = {
    "?.": "optional chaining",
    "..": "ranges",
    ".": "member access",
    "|": "the pipe operator",
    "=": "assignment",
    ";": "statements",
    "'": "strings",
    '"': "strings",
    "`": "strings",
}
# Bounds recursion so that a pathological formula is an error, not a RecursionError.
MAX_DEPTH = 100


class FormulaError(ValueError):
    """A formula that does not compile or evaluate; ``offset`` is 0-based into the text."""

    def __init__(self, message: str, text: str = "", offset: int | None = None) -> None:
        self.reason = message
        self.offset = offset
        self.text = text
        if offset is None:
            super().__init__(message)
        else:
            line, column = _line_column(text, offset)
            super().__init__(f"{message} ({line}:{column})")

    def snippet(self) -> str:
        """The offending line with a caret under the position, as expr-lang prints it."""
        if self.offset is None:
            return ""
        line, column = _line_column(self.text, self.offset)
        source = self.text.splitlines()[line - 1] if self.text.strip() else ""
        return f" | {source}\n | {'.' * (column - 1)}^"


def _line_column(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    line = before.count("\n") + 1
    return line, offset - (before.rfind("\n") + 1) + 1


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "name", "op", "eof"
    text: str
    offset: int
    value: int | float = 0


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


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, skipping blanks and ``//`` and ``/* */`` comments."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise FormulaError("unterminated comment", text, i)
            i = end + 2
        elif ch.isdigit() or (ch == "." and text[i + 1 : i + 2].isdigit()):
            token = _read_number(text, i)
            tokens.append(token)
            i += len(token.text)
        elif ch.isalpha() or ch in "_$":
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            tokens.append(Token("name", text[i:j], i))
            i = j
        else:
            op = next((p for p in _PUNCTUATION if text.startswith(p, i)), None)
            if op is None:
                raise FormulaError(f"unrecognized character: {ch!r}", text, i)
            if op in _NOT_SUPPORTED:
                verb = "is" if op in {".", "|", "="} else "are"
                message = (
                    f"{_NOT_SUPPORTED[op]} ({op}) {verb} not supported in scaling-modifier formulas"
                )
                raise FormulaError(message, text, i)
            tokens.append(Token("op", op, i))
            i += len(op)
    tokens.append(Token("eof", "", len(text)))
    return tokens


def _read_number(text: str, start: int) -> Token:
    j = start
    while j < len(text) and (text[j].isalnum() or text[j] in "._"):
        # Stop before a range "..", and let "1e-3" keep its signed exponent.
        if text.startswith("..", j):
            break
        j += 1
        if text[j - 1] in "eE" and text[j : j + 1] in {"+", "-"} and not _is_radix(text, start):
            j += 1
    raw = text[start:j]
    digits = raw.replace("_", "")
    try:
        if _is_radix(text, start):
            return Token("number", raw, start, int(digits, 0))
        if any(c in digits for c in ".eE"):
            return Token("number", raw, start, float(digits))
        return Token("number", raw, start, int(digits, 10))
    except ValueError:
        raise FormulaError(f"invalid number literal {raw}", text, start) from None


def _is_radix(text: str, start: int) -> bool:
    return text[start] == "0" and text[start + 1 : start + 2] in {"x", "X", "o", "O", "b", "B"}


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
