"""Go's `encoding/json` reading one metadata string into a number or a bool.

KEDA's typed trigger config (`scalersconfig.TypedConfig`) reads every non-string field
with `json.Unmarshal`, so a bad `threshold` or `desiredReplicas` is reported in Go's
own words: a syntax error from the scanner (`invalid character 'a' looking for
beginning of value`) or a type error (`json: cannot unmarshal string into Go value of
type float64`). `decode(text, go_type)` gives the value or raises `GoJSONError` with
that text; `podscale.controllers.keda.triggers.typed_config` wraps it as KEDA does.

Covered: numbers, `true`/`false`/`null`, strings, with the scanner's messages for
each. Objects and arrays are recognised by their first character and reported as a
type error when Python's reader accepts them; a malformed one gets a generic message.
"""

from __future__ import annotations

import json
import math
from typing import Literal

GoType = Literal["float64", "int64", "int", "bool"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_EOF = "unexpected end of JSON input"
_ESCAPES = set('"\\/bfnrt')


class GoJSONError(ValueError):
    """`str()` is Go's error text."""


def quote_char(ch: str) -> str:
    """Go's json quoteChar: the offending character in single quotes."""
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    quoted = json.dumps(ch)  # close to strconv.Quote for the characters met here
    return "'" + quoted[1:-1] + "'"


def _bad(ch: str, context: str) -> GoJSONError:
    return GoJSONError(f"invalid character {quote_char(ch)} {context}")


def _scan_number(text: str, i: int) -> int:
    """Index just past the number starting at `i` (Go's scanner states)."""
    n = len(text)
    if text[i] == "-":
        i += 1
        if i == n:
            raise GoJSONError(_EOF)
        if not "0" <= text[i] <= "9":
            raise _bad(text[i], "in numeric literal")
    if text[i] == "0":
        i += 1
    else:
        while i < n and "0" <= text[i] <= "9":
            i += 1
    if i < n and text[i] == ".":
        i += 1
        if i == n:
            raise GoJSONError(_EOF)
        if not "0" <= text[i] <= "9":
            raise _bad(text[i], "after decimal point in numeric literal")
        while i < n and "0" <= text[i] <= "9":
            i += 1
    if i < n and text[i] in "eE":
        i += 1
        if i < n and text[i] in "+-":
            i += 1
        if i == n:
            raise GoJSONError(_EOF)
        if not "0" <= text[i] <= "9":
            raise _bad(text[i], "in exponent of numeric literal")
        while i < n and "0" <= text[i] <= "9":
            i += 1
    return i


def _scan_literal(text: str, word: str) -> int:
    for pos in range(1, len(word)):
        if pos == len(text):
            raise GoJSONError(_EOF)
        if text[pos] != word[pos]:
            raise _bad(text[pos], f"in literal {word} (expecting {quote_char(word[pos])})")
    return len(word)


def _scan_string(text: str) -> int:
    i, n = 1, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            return i + 1
        if ch < " ":
            raise _bad(ch, "in string literal")
        if ch == "\\":
            i += 1
            if i == n:
                break
            if text[i] == "u":
                for k in range(i + 1, i + 5):
                    if k == n:
                        raise GoJSONError(_EOF)
                    if text[k] not in "0123456789abcdefABCDEF":
                        raise _bad(text[k], "in \\u hexadecimal character escape")
                i += 4
            elif text[i] not in _ESCAPES:
                raise _bad(text[i], "in string escape code")
        i += 1
    raise GoJSONError(_EOF)


def _kind(text: str) -> tuple[str, int]:
    """The top-level value's kind and where it ends; raises Go's syntax errors."""
    first = text[0]
    if first == "-" or "0" <= first <= "9":
        return "number", _scan_number(text, 0)
    if first == '"':
        return "string", _scan_string(text)
    for word, kind in (("true", "bool"), ("false", "bool"), ("null", "null")):
        if first == word[0]:
            return kind, _scan_literal(text, word)
    if first in "{[":
        try:
            json.loads(text)
        except ValueError:
            raise GoJSONError(f"invalid JSON input: {text}") from None
        return ("object" if first == "{" else "array"), len(text)
    raise _bad(first, "looking for beginning of value")


def decode(text: str, go_type: GoType) -> float | int | bool:
    """`json.Unmarshal([]byte(text), &v)` for a `v` of `go_type`; null leaves the zero value."""
    if text == "":
        raise GoJSONError(_EOF)
    kind, end = _kind(text)
    rest = text[end:].lstrip(" \t\r\n")
    if rest:
        raise _bad(rest[0], "after top-level value")
    literal = text[:end]
    zero: float | int | bool = False if go_type == "bool" else (0.0 if go_type == "float64" else 0)
    if kind == "null":
        return zero
    if kind == "bool" and go_type == "bool":
        return literal == "true"
    if kind != "number" or go_type == "bool":
        raise GoJSONError(f"json: cannot unmarshal {kind} into Go value of type {go_type}")
    if go_type == "float64":
        value = float(literal)
        if math.isinf(value):
            raise GoJSONError(
                f"json: cannot unmarshal number {literal} into Go value of type {go_type}"
            )
        return value
    if not literal.lstrip("-").isdigit():
        raise GoJSONError(
            f"json: cannot unmarshal number {literal} into Go value of type {go_type}"
        )
    number = int(literal)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise GoJSONError(
            f"json: cannot unmarshal number {literal} into Go value of type {go_type}"
        )
    return number
