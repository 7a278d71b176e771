"""Label selectors: upstream ``labels.Selector``, its string parser and ``LabelSelector``.

The HPA controller converts the scale target's ``status.selector`` string with
:func:`parse_selector` and matches every pod against it on every sync, so requirements are
precompiled at construction. The ``scale`` subresource writes ``status.selector`` with
:func:`label_selector_to_string`; ``kubectl``-style printing uses :func:`format_label_selector`.
Public name validators live in ``podscale.api.validation.names``; the small private ones
here exist only to reproduce ``labels.NewRequirement``'s messages verbatim.

Mirrors ``staging/.../pkg/labels/selector.go`` and ``pkg/apis/meta/v1/helpers.go``:
canonical strings sort requirements by key and multi-value sets by value, ``Nothing()``
prints as ``""`` and matches nothing, and errors carry upstream's exact texts (including
the ``<nil>:`` field path the string parser reports for a bad key).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final, Literal

__all__ = [
    "BINARY_OPERATORS",
    "OPERATORS",
    "Operator",
    "Requirement",
    "Selector",
    "SelectorError",
    "format_label_selector",
    "label_selector_to_string",
    "new_requirement",
    "parse_selector",
    "selector_from_label_selector",
    "selector_from_set",
]

Operator = Literal["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"]
# Upstream's order matters: it is printed in parser errors and "supported values".
BINARY_OPERATORS: Final[tuple[Operator, ...]] = ("in", "notin", "=", "==", "!=", "gt", "lt")
OPERATORS: Final[tuple[Operator, ...]] = (*BINARY_OPERATORS, "exists", "!")

_MIN_INT64: Final = -(1 << 63)
_MAX_INT64: Final = (1 << 63) - 1


class SelectorError(ValueError):
    """A selector upstream refuses; ``str()`` is upstream's error text."""


# -- validation messages (content.IsLabelKey / IsLabelValue / IsDNS1123Subdomain) -----------

_LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_RE: Final = re.compile(_LABEL_KEY_FMT)
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_RE: Final = re.compile(_LABEL_VALUE_FMT)
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_RE: Final = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    shown = "".join(f"{' or ' if i else ''}'{example}', " for i, example in enumerate(examples))
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _byte_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _label_key_errors(key: str) -> list[str]:
    errors: list[str] = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            if _byte_len(prefix) > 253:
                errors.append("prefix part " + _max_len_error(253))
            if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
                errors.append(
                    "prefix part "
                    + _regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
                )
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif _byte_len(name) > 63:
        errors.append("name part " + _max_len_error(63))
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append(
            "name part "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def _label_value_errors(value: str) -> list[str]:
    errors: list[str] = []
    if _byte_len(value) > 63:
        errors.append(_max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def _go_quote(text: str) -> str:
    # Go's %q for the label texts we meet; JSON escaping agrees on everything printable.
    out = ['"']
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, f"\\u{ord(ch):04x}"))
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _go_string_slice(values: Sequence[str] | None) -> str:
    """Go's ``%#v`` of a ``[]string``, which is how upstream field errors print value lists."""
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


def _parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``, or None where Go reports an error."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if _MIN_INT64 <= value <= _MAX_INT64 else None


def _aggregate(messages: list[str]) -> str:
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# -- requirements ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requirement:
    """One ``key op values`` clause. Unvalidated; build checked ones with ``new_requirement``."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()
    _match: Callable[[Mapping[str, str]], bool] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_match", _compile(self))

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self._match(labels)

    def __str__(self) -> str:
        if self.operator == "!":
            return "!" + self.key
        if self.operator == "exists":
            return self.key
        symbol = _OPERATOR_TEXT[self.operator]
        joined = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if self.operator in ("in", "notin"):
            return f"{self.key}{symbol}({joined})"
        return f"{self.key}{symbol}{joined}"


_OPERATOR_TEXT: Final[dict[str, str]] = {
    "=": "=",
    "==": "==",
    "!=": "!=",
    "in": " in ",
    "notin": " notin ",
    "gt": ">",
    "lt": "<",
}


def _compile(req: Requirement) -> Callable[[Mapping[str, str]], bool]:
    key, op, values = req.key, req.operator, req.values
    if op in ("=", "==", "in"):
        if len(values) == 1:
            only = values[0]
            return lambda labels: key in labels and labels[key] == only
        accepted = frozenset(values)
        return lambda labels: key in labels and labels[key] in accepted
    if op in ("!=", "notin"):
        rejected = frozenset(values)
        return lambda labels: key not in labels or labels[key] not in rejected
    if op == "exists":
        return lambda labels: key in labels
    if op == "!":
        return lambda labels: key not in labels
    if op in ("gt", "lt"):
        bound = _parse_go_int64(values[0]) if len(values) == 1 else None
        if bound is None:
            return lambda labels: False
        greater = op == "gt"

        def compare(labels: Mapping[str, str]) -> bool:
            if key not in labels:
                return False
            actual = _parse_go_int64(labels[key])
            if actual is None:
                return False
            return actual > bound if greater else actual < bound

        return compare
    return lambda labels: False


def new_requirement(
    key: str, operator: str, values: Sequence[str] | None, path: str | None = None
) -> Requirement:
    """Upstream ``labels.NewRequirement``: validate, then build.

    ``values=None`` stands for Go's nil slice (it only changes how errors print). ``path``
    prefixes the error field paths, as ``field.WithPath``; upstream defaults to none.
    """
    errors: list[str] = []
    key_errors = _label_key_errors(key)
    prefix = f"{path}." if path else ""
    if key_errors:
        errors.append(f"{prefix}key: Invalid value: {_go_quote(key)}: {'; '.join(key_errors)}")
    vals = list(values) if values is not None else []
    shown = _go_string_slice(values)
    values_path = f"{prefix}values"
    if operator in ("in", "notin"):
        if not vals:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "for 'in', 'notin' operators, values set can't be empty"
            )
    elif operator in ("=", "==", "!="):
        if len(vals) != 1:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "exact-match compatibility requires one single value"
            )
    elif operator in ("exists", "!"):
        if vals:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "values set must be empty for exists and does not exist"
            )
    elif operator in ("gt", "lt"):
        if len(vals) != 1:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "for 'Gt', 'Lt' operators, exactly one value is required"
            )
        for i, value in enumerate(vals):
            if _parse_go_int64(value) is None:
                errors.append(
                    f"{values_path}[{i}]: Invalid value: {_go_quote(value)}: "
                    "for 'Gt', 'Lt' operators, the value must be an integer"
                )
    else:
        supported = ", ".join(_go_quote(op) for op in OPERATORS)
        errors.append(
            f"{prefix}operator: Unsupported value: {_go_quote(operator)}: "
            f"supported values: {supported}"
        )
    for i, value in enumerate(vals):
        value_errors = _label_value_errors(value)
        if value_errors:
            errors.append(
                f"{values_path}[{i}][{key}]: Invalid value: {_go_quote(value)}: "
                + "; ".join(value_errors)
            )
    if errors:
        raise SelectorError(_aggregate(errors))
    return Requirement(key, operator, tuple(vals))  # type: ignore[arg-type]


# -- selectors ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selector:
    """A conjunction of requirements, kept sorted by key (upstream ``internalSelector``).

    ``matches_nothing`` marks upstream's ``Nothing()``: it matches no labels, is not
    ``empty()`` and prints as ``""``.
    """

    requirements: tuple[Requirement, ...] = ()
    matches_nothing: bool = False
    _matchers: tuple[Callable[[Mapping[str, str]], bool], ...] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matchers", tuple(r._match for r in self.requirements))

    @staticmethod
    def everything() -> Selector:
        return _EVERYTHING

    @staticmethod
    def nothing() -> Selector:
        return _NOTHING

    def add(self, *requirements: Requirement) -> Selector:
        """A new selector with more requirements, re-sorted by key (stable)."""
        if self.matches_nothing:
            return self
        merged = sorted((*self.requirements, *requirements), key=lambda r: r.key)
        return Selector(tuple(merged))

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.matches_nothing:
            return False
        # A plain loop: this runs for every pod on every sync, and all() over a generator
        # costs noticeably more for the usual one or two requirements.
        for match in self._matchers:  # noqa: SIM110
            if not match(labels):
                return False
        return True

    def empty(self) -> bool:
        return not self.matches_nothing and not self.requirements

    def requires_exact_match(self, label: str) -> str | None:
        """Upstream ``RequiresExactMatch``: the single value ``label`` must have, if any."""
        for requirement in self.requirements:
            if requirement.key == label:
                if requirement.operator in ("=", "==", "in") and len(requirement.values) == 1:
                    return requirement.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


_EVERYTHING: Final = Selector()
_NOTHING: Final = Selector(matches_nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Upstream ``SelectorFromSet``: equality on every pair, no validation."""
    if not labels:
        return _EVERYTHING
    return Selector(tuple(Requirement(k, "=", (v,)) for k, v in sorted(labels.items())))


_LABEL_SELECTOR_OPERATORS: Final[dict[str, Operator]] = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!",
}


def selector_from_label_selector(label_selector: Mapping[str, Any] | None) -> Selector:
    """Upstream ``metav1.LabelSelectorAsSelector`` over a JSON ``LabelSelector``.

    ``None`` selects nothing, ``{}`` everything. matchLabels become ``key=value``;
    matchExpressions map In/NotIn/Exists/DoesNotExist; errors read as upstream's.
    """
    if label_selector is None:
        return _NOTHING
    match_labels: Mapping[str, str] = label_selector.get("matchLabels") or {}
    expressions: Iterable[Mapping[str, Any]] = label_selector.get("matchExpressions") or []
    expressions = list(expressions)
    if not match_labels and not expressions:
        return _EVERYTHING
    requirements = [new_requirement(k, "=", [v]) for k, v in match_labels.items()]
    for expression in expressions:
        operator_name = expression.get("operator", "")
        operator = _LABEL_SELECTOR_OPERATORS.get(operator_name)
        if operator is None:
            raise SelectorError(
                f"{_go_quote(str(operator_name))} is not a valid label selector operator"
            )
        values = expression.get("values")
        requirements.append(
            new_requirement(expression.get("key", ""), operator, list(values) if values else None)
        )
    return _EVERYTHING.add(*requirements)


def label_selector_to_string(label_selector: Mapping[str, Any] | None) -> str:
    """Canonical string of a ``LabelSelector`` (what ``scale`` puts in ``status.selector``)."""
    return str(selector_from_label_selector(label_selector))


def format_label_selector(label_selector: Mapping[str, Any] | None) -> str:
    """Upstream ``metav1.FormatLabelSelector``: ``<none>`` when empty, ``<error>`` if invalid."""
    try:
        text = label_selector_to_string(label_selector)
    except SelectorError:
        return "<error>"
    return text or "<none>"


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
        key_errors = _label_key_errors(literal)
        if key_errors:
            # Upstream reports this one against a nil field path.
            raise SelectorError(
                f"<nil>: Invalid value: {_go_quote(literal)}: {'; '.join(key_errors)}"
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
