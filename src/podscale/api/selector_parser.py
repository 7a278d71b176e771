"""The label selector string parser: upstream ``labels.Parse`` (its Lexer and Parser).

The HPA controller reads the scale target's ``status.selector`` string through
:func:`parse_selector` on every sync, so results are cached (selectors are immutable).
Builds :class:`~podscale.api.selector_model.Requirement` values through
``new_requirement`` so a parsed requirement is validated exactly like a constructed one;
``podscale.api.selectors`` re-exports :func:`parse_selector`. Spec:
``staging/.../pkg/labels/selector.go``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from podscale.api.names import is_qualified_name
from podscale.api.selector_model import (
    BINARY_OPERATORS,
    Operator,
    Requirement,
    Selector,
    SelectorError,
    go_quote,
    new_requirement,
)

__all__ = ["parse_selector"]

# -- the string parser (upstream's Lexer and Parser) ----------------------------------------
#
# Upstream lexes the whole string first, then runs a recursive-descent parser over the
# tokens. Error texts quote the offending token's literal, so the token stream has to be
# the same as upstream's, including its quirks: a NUL byte reads as end of input, "in" and
# "notin" are keywords only where an operator is expected, and "()" is one empty value.

_END, _CLOSE, _COMMA, _NOT, _EQEQ, _EQ, _GT, _IDENT, _IN, _LT, _NEQ, _NOTIN, _OPEN = range(1, 14)
_ERROR: Final = 0
_SYMBOLS: Final[dict[str, int]] = {
    ")": _CLOSE,
    ",": _COMMA,
    "!": _NOT,
    "==": _EQEQ,
    "=": _EQ,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NEQ,
    "notin": _NOTIN,
    "(": _OPEN,
}
_SPECIAL: Final = frozenset("=!(),><")
_WHITESPACE: Final = frozenset(" \t\r\n")
_OPERATOR_TOKENS: Final[dict[int, Operator]] = {
    _IN: "in",
    _EQ: "=",
    _EQEQ: "==",
    _GT: "gt",
    _LT: "lt",
    _NOTIN: "notin",
    _NEQ: "!=",
}


def _lex(text: str) -> list[tuple[int, str]]:
    """All tokens up to and including the first end-of-string token."""
    tokens: list[tuple[int, str]] = []
    pos, end = 0, len(text)

    def read() -> str:
        nonlocal pos
        if pos < end:
            pos += 1
            return text[pos - 1]
        return "\0"

    while True:
        ch = read()
        while ch in _WHITESPACE:
            ch = read()
        if ch == "\0":
            tokens.append((_END, ""))
            return tokens
        pos -= 1
        if ch in _SPECIAL:
            buffer, last = "", (_ERROR, "")
            while True:
                ch = read()
                if ch == "\0":
                    break
                if ch not in _SPECIAL:
                    pos -= 1
                    break
                buffer += ch
                token = _SYMBOLS.get(buffer)
                if token is not None:
                    last = (token, buffer)
                elif last[0] != _ERROR:
                    pos -= 1
                    break
            if last[0] == _ERROR:
                last = (_ERROR, f"error expected: keyword found '{buffer}'")
            tokens.append(last)
        else:
            start = stop = pos
            while True:
                ch = read()
                if ch == "\0":
                    break  # the end, or a NUL that upstream also swallows
                if ch in _SPECIAL or ch in _WHITESPACE:
                    pos -= 1
                    break
                stop = pos
            word = text[start:stop]
            keyword = _SYMBOLS.get(word)
            tokens.append((keyword, word) if keyword is not None else (_IDENT, word))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.position = 0

    def lookahead(self, values: bool) -> tuple[int, str]:
        token, literal = self.tokens[self.position]
        if values and token in (_IN, _NOTIN):
            token = _IDENT
        return token, literal

    def consume(self, values: bool) -> tuple[int, str]:
        result = self.lookahead(values)
        self.position += 1
        return result

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead(True)
            if token in (_IDENT, _NOT):
                try:
                    requirements.append(self.parse_requirement())
                except SelectorError as err:
                    raise SelectorError(f"unable to parse requirement: {err}") from None
                token, literal = self.consume(True)
                if token == _END:
                    return requirements
                if token != _COMMA:
                    raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
                after, after_literal = self.lookahead(True)
                if after not in (_IDENT, _NOT):
                    raise SelectorError(f"found '{after_literal}', expected: identifier after ','")
            elif token == _END:
                return requirements
            else:
                raise SelectorError(
                    f"found '{literal}', expected: !, identifier, or 'end of string'"
                )

    def parse_requirement(self) -> Requirement:
        key, operator = self.parse_key_and_infer_operator()
        if operator is not None:
            return new_requirement(key, operator, [])
        operator = self.parse_operator()
        values = self.parse_values() if operator in ("in", "notin") else self.parse_exact_value()
        return new_requirement(key, operator, sorted(values))

    def parse_key_and_infer_operator(self) -> tuple[str, Operator | None]:
        operator: Operator | None = None
        token, literal = self.consume(True)
        if token == _NOT:
            operator = "!"
            token, literal = self.consume(True)
        if token != _IDENT:
            raise SelectorError(f"found '{literal}', expected: identifier")
        key_errors = is_qualified_name(literal)
        if key_errors:
            # Upstream reports this one against a nil field path.
            raise SelectorError(
                f"<nil>: Invalid value: {go_quote(literal)}: {'; '.join(key_errors)}"
            )
        if operator is None and self.lookahead(True)[0] in (_END, _COMMA):
            operator = "exists"
        return literal, operator

    def parse_operator(self) -> Operator:
        token, literal = self.consume(False)
        operator = _OPERATOR_TOKENS.get(token)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: {', '.join(BINARY_OPERATORS)}")
        return operator

    def parse_values(self) -> set[str]:
        token, literal = self.consume(True)
        if token != _OPEN:
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead(True)
        if token in (_IDENT, _COMMA):
            values = self.parse_identifiers_list()
            if self.consume(True)[0] != _CLOSE:
                # Upstream quotes the token seen before the list, not the offending one.
                raise SelectorError(f"found '{literal}', expected: ')'")
            return values
        if token == _CLOSE:
            self.consume(True)
            return {""}
        raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        values: set[str] = set()
        while True:
            token, literal = self.consume(True)
            if token == _IDENT:
                values.add(literal)
                after, after_literal = self.lookahead(True)
                if after == _COMMA:
                    continue
                if after == _CLOSE:
                    return values
                raise SelectorError(f"found '{after_literal}', expected: ',' or ')'")
            if token == _COMMA:
                # Empty items between commas are the empty value.
                if not values:
                    values.add("")
                after = self.lookahead(True)[0]
                if after == _CLOSE:
                    values.add("")
                    return values
                if after == _COMMA:
                    values.add("")
                continue
            raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        token, _ = self.lookahead(True)
        if token in (_END, _COMMA):
            return {""}
        token, literal = self.consume(True)
        if token == _IDENT:
            return {literal}
        raise SelectorError(f"found '{literal}', expected: identifier")


@lru_cache(maxsize=1024)
def parse_selector(text: str) -> Selector:
    """Upstream ``labels.Parse``: ``a=b,c!=d,e in (x,y),f notin (z),g,!h,x>1``. Cached."""
    requirements = _Parser(text).parse()
    return Selector(tuple(sorted(requirements, key=lambda r: r.key)))
