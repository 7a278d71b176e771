"""One ``x-kubernetes-validations`` entry, and the relative ``fieldPath`` it may name.

``Rule`` is the entry as a frozen value (``rule``, ``message``, ``messageExpression``,
``reason``, ``fieldPath``, ``optionalOldSelf``); ``go_syntax`` prints it as kube-apiserver
prints the internal ``apiextensions.ValidationRule`` struct in a CRD's field errors (Go's
``%#v``; a set pointer field prints a fixed placeholder address, since the real one is a
heap address). ``field_path`` checks a rule's ``fieldPath`` (``.spec.x``, ``.labels['a.b']``)
against the schema the rule sits on and returns it as the field path it names, relative to
the node, with upstream's error texts. Users: ``podscale.api.cel.compile`` and
``podscale.api.cel.validation``. Pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.field_errors import GoSyntax

__all__ = ["REASONS", "FieldPathError", "Rule", "field_path", "rules_of"]

REASONS: Final = (
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
)
_PLACEHOLDER_POINTER: Final = "0xc000a1b2c0"


@dataclass(frozen=True, slots=True)
class Rule:
    rule: str
    message: str = ""
    message_expression: str = ""
    reason: str | None = None
    field_path: str = ""
    optional_old_self: bool | None = None

    @classmethod
    def from_json(cls, entry: Any) -> Rule:
        data = entry if isinstance(entry, dict) else {}
        optional = data.get("optionalOldSelf")
        return cls(
            rule=str(data.get("rule") or ""),
            message=str(data.get("message") or ""),
            message_expression=str(data.get("messageExpression") or ""),
            reason=str(data["reason"]) if data.get("reason") is not None else None,
            field_path=str(data.get("fieldPath") or ""),
            optional_old_self=bool(optional) if optional is not None else None,
        )

    def error_text(self) -> str:
        """The rule as upstream names it in runtime errors: its message, else its source."""
        return self.message.strip() or self.rule.strip()

    def default_message(self) -> str:
        return self.message.strip() if self.message else f"failed rule: {self.error_text()}"

    def go_syntax(self) -> GoSyntax:
        reason = (
            f"(*apiextensions.FieldValueErrorReason)({_PLACEHOLDER_POINTER})"
            if self.reason is not None
            else "(*apiextensions.FieldValueErrorReason)(nil)"
        )
        optional = (
            f"(*bool)({_PLACEHOLDER_POINTER})"
            if self.optional_old_self is not None
            else "(*bool)(nil)"
        )
        return GoSyntax(
            f"apiextensions.ValidationRule{{Rule:{_go_quote(self.rule)}, "
            f"Message:{_go_quote(self.message)}, "
            f"MessageExpression:{_go_quote(self.message_expression)}, "
            f"Reason:{reason}, FieldPath:{_go_quote(self.field_path)}, "
            f"OptionalOldSelf:{optional}}}"
        )


def _go_quote(text: str) -> str:
    # Go's strconv.Quote agrees with JSON for printable text and the common escapes.
    return json.dumps(text, ensure_ascii=False)


def rules_of(schema: dict[str, Any]) -> list[Rule]:
    entries = schema.get("x-kubernetes-validations") or []
    return [Rule.from_json(e) for e in entries] if isinstance(entries, list) else []


class FieldPathError(ValueError):
    """A ``fieldPath`` that names no field of the schema (upstream's wording in ``str``)."""


_TOKENS: Final = re.compile(r"'(?:[^'\\]|\\.)*'|[.\[\]]|[^.\[\]']+")
_UNESCAPES: Final = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "'": "'", "\\": "\\",
}  # fmt: skip


def _unquote(token: str) -> str:
    def replace(match: re.Match[str]) -> str:
        char = match.group(0)[1]
        if char not in _UNESCAPES:
            raise FieldPathError(f"invalid string literal: invalid escape char {match.group(0)}")
        return _UNESCAPES[char]

    return re.sub(r"\\.", replace, token[1:-1])


def _step(schema: dict[str, Any], name: str) -> tuple[dict[str, Any], bool]:
    properties = schema.get("properties")
    if properties:
        if name not in properties:
            raise FieldPathError("does not refer to a valid field")
        return properties[name], True
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        return extra, False
    raise FieldPathError("does not refer to a valid field")


def field_path(json_path: str, schema: dict[str, Any]) -> str:
    """The field path ``json_path`` names below ``schema`` (``spec.labels[a.b]``)."""
    tokens = _TOKENS.findall(json_path)
    parts: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == ".":
            if i + 1 >= len(tokens):
                raise FieldPathError("unexpected end of JSON path")
            name = tokens[i + 1]
            schema, named = _step(schema, name)
            parts.append(("." + name) if named else f"[{name}]")
            i += 2
        elif token == "[":
            if i + 1 >= len(tokens):
                raise FieldPathError("unexpected end of JSON path")
            quoted = tokens[i + 1]
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                raise FieldPathError(f"expected single quoted string but got {quoted}")
            name = _unquote(quoted)
            schema, named = _step(schema, name)
            parts.append(("." + name) if named else f"[{name}]")
            if i + 2 >= len(tokens):
                raise FieldPathError("unexpected end of JSON path")
            if tokens[i + 2] != "]":
                raise FieldPathError(f"expected ] but got {tokens[i + 2]}")
            i += 3
        else:
            raise FieldPathError(f"expected [ or . but got: {token}")
    return "".join(parts).removeprefix(".")
