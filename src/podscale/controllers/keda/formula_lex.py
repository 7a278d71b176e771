"""Lexer for KEDA's scaling-modifier formulas (an expr-lang subset), and their error type.

``tokenize`` splits a formula into numbers, names and operators, skipping blanks and
``//`` / ``/* */`` comments, as expr-lang's lexer does: number literals in decimal, hex,
octal and binary (with ``_`` separators and signed exponents), the longest operator first.
Punctuation of expr-lang a formula over trigger values has no use for (strings, member
access, ranges, pipes, assignment) is refused with a message naming it rather than misread.
``FormulaError`` carries the offending offset and prints expr-lang's line:column and caret
snippet. ``formula_parse`` builds the syntax tree from the tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FormulaError", "Token", "tokenize"]

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
