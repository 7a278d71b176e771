"""Field errors: upstream's ``field.Error`` and its rendering into a ``Status``.

Validation (``podscale.api.validation``) produces these; the API server turns a list of
them into the 422 ``Status`` that kubectl prints. ``str(error)`` reads exactly like
upstream's ``field.Error.Error()``: ``spec.minReplicas: Invalid value: 0: must be greater
than or equal to 1``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "OMIT_VALUE",
    "ErrorType",
    "FieldError",
    "FieldPath",
    "GoSyntax",
    "GoValue",
    "duplicate",
    "forbidden",
    "format_value",
    "internal",
    "invalid",
    "invalid_status",
    "not_found",
    "not_supported",
    "required",
    "too_long",
    "too_many",
]


class ErrorType(enum.Enum):
    """Upstream's ``field.ErrorType``: the value is the text, ``cause`` the Status cause reason."""

    NOT_FOUND = ("Not found", "FieldValueNotFound")
    REQUIRED = ("Required value", "FieldValueRequired")
    DUPLICATE = ("Duplicate value", "FieldValueDuplicate")
    INVALID = ("Invalid value", "FieldValueInvalid")
    NOT_SUPPORTED = ("Unsupported value", "FieldValueNotSupported")
    FORBIDDEN = ("Forbidden", "FieldValueForbidden")
    TOO_LONG = ("Too long", "FieldValueTooLong")
    TOO_MANY = ("Too many", "FieldValueTooMany")
    INTERNAL = ("Internal error", "InternalError")
    TYPE_INVALID = ("Invalid value", "FieldValueTypeInvalid")

    @property
    def text(self) -> str:
        return self.value[0]

    @property
    def cause(self) -> str:
        return self.value[1]


class _Omit:
    """Marker for "no bad value to print" (upstream's ``omitValue``)."""

    def __repr__(self) -> str:
        return "OMIT_VALUE"


OMIT_VALUE: Final = _Omit()


@dataclass(frozen=True, slots=True)
class GoValue:
    """A bad value already printed the way Go's ``%#v`` prints it, shown verbatim.

    Upstream prints composite bad values (maps, slices) with ``%#v``, e.g.
    ``map[string]interface {}{"name":"http"}``; ``podscale.api.schema`` renders those itself.
    """

    text: str


# Types whose body never prints the bad value, as upstream's ErrorBody.
_VALUELESS: Final = frozenset(
    {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}
)


class GoSyntax(str):
    """A bad value printed as is: Go's ``%#v`` of a struct, which no JSON form reproduces."""

    __slots__ = ()


def format_value(value: Any) -> str:
    """Print a bad value the way Go's field errors do.

    Numbers and booleans bare, strings double-quoted (Go ``%q``), ``None`` as ``null``,
    and composite values as compact JSON (what current upstream servers print).
    """
    if isinstance(value, GoValue):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, GoSyntax):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(int(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True, slots=True)
class FieldError:
    """One validation failure at a field path."""

    type: ErrorType
    field: str
    bad_value: Any = OMIT_VALUE
    detail: str = ""

    def body(self) -> str:
        """Everything after ``field: `` (upstream ``ErrorBody``); also a Status cause message."""
        if self.type in _VALUELESS or self.bad_value is OMIT_VALUE:
            text = self.type.text
        else:
            text = f"{self.type.text}: {format_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


class FieldPath:
    """An immutable field path that renders like upstream's ``field.Path``.

    ``FieldPath("spec").child("metrics").index(0).child("type")`` -> ``spec.metrics[0].type``;
    ``.key("a/b")`` -> ``metadata.annotations[a/b]``.
    """

    __slots__ = ("_text",)

    def __init__(self, *names: str) -> None:
        self._text = ".".join(names)

    @classmethod
    def _raw(cls, text: str) -> FieldPath:
        path = cls()
        path._text = text
        return path

    def child(self, name: str, *more: str) -> FieldPath:
        text = f"{self._text}.{name}" if self._text else name
        for part in more:
            text = f"{text}.{part}"
        return FieldPath._raw(text)

    def index(self, i: int) -> FieldPath:
        return FieldPath._raw(f"{self._text}[{i}]")

    def key(self, k: str) -> FieldPath:
        return FieldPath._raw(f"{self._text}[{k}]")

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"FieldPath({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldPath) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)


def _p(path: FieldPath | str) -> str:
    return str(path)


def required(path: FieldPath | str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, _p(path), OMIT_VALUE, detail)


def invalid(path: FieldPath | str, value: Any, detail: str) -> FieldError:
    return FieldError(ErrorType.INVALID, _p(path), value, detail)


def forbidden(path: FieldPath | str, detail: str) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, _p(path), OMIT_VALUE, detail)


def not_found(path: FieldPath | str, value: Any) -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, _p(path), value)


def duplicate(path: FieldPath | str, value: Any) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, _p(path), value)


def internal(path: FieldPath | str, detail: str) -> FieldError:
    return FieldError(ErrorType.INTERNAL, _p(path), OMIT_VALUE, detail)


def not_supported(path: FieldPath | str, value: Any, supported: Iterable[str]) -> FieldError:
    """``Unsupported value: "Foo": supported values: "a", "b"`` (sorted, quoted, as upstream)."""
    quoted = ", ".join(json.dumps(s) for s in sorted(supported))
    detail = f"supported values: {quoted}" if quoted else ""
    return FieldError(ErrorType.NOT_SUPPORTED, _p(path), value, detail)


def too_long(path: FieldPath | str, value: Any, max_length: int) -> FieldError:
    detail = f"may not be more than {max_length} bytes" if max_length >= 0 else "value is too long"
    return FieldError(ErrorType.TOO_LONG, _p(path), value, detail)


def too_many(path: FieldPath | str, actual: int, max_items: int) -> FieldError:
    detail = f"must have at most {max_items} items" if max_items >= 0 else "has too many items"
    return FieldError(ErrorType.TOO_MANY, _p(path), actual, detail)


def invalid_status(
    kind: str, group: str, name: str, errors: Sequence[FieldError]
) -> dict[str, Any]:
    """The 422 ``Status`` upstream returns for a failed validation.

    Message: ``HorizontalPodAutoscaler.autoscaling "web" is invalid: <err>`` for one error,
    ``...: [<err>, <err>]`` for several (as ``NewInvalid`` / ``ErrorList.ToAggregate``).
    """
    qualified = f"{kind}.{group}" if group else kind
    texts = [str(e) for e in errors]
    # The aggregate de-duplicates identical messages, as upstream's ToAggregate does.
    unique = list(dict.fromkeys(texts))
    joined = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
    details: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "causes": [{"reason": e.type.cause, "message": e.body(), "field": e.field} for e in errors],
    }
    if group:
        details["group"] = group
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{qualified} "{name}" is invalid: {joined}',
        "reason": "Invalid",
        "details": details,
        "code": 422,
    }
