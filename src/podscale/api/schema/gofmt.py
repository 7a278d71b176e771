"""How Go prints JSON values in the texts kube-apiserver writes for custom resources.

The schema validator (``validation``, ``value_checks``, ``listtype``) quotes bounds, enum
values and bad values exactly as the Go code behind kube-apiserver prints them:

- ``go_float`` is ``fmt``'s ``%v`` of a ``float64`` (shortest digits, exponent from 1e+06),
- ``go_number`` is ``%v`` of an ``int64`` or ``float64``,
- ``go_json`` is ``encoding/json.Marshal`` (sorted keys, HTML-escaped strings),
- ``go_syntax`` is ``%#v`` of an unstructured value (``map[string]interface {}{...}``),
- ``bad_value`` wraps a composite value for ``FieldError`` so it prints like ``%#v``.

``go_quote`` (``%q``) lives in ``podscale.api.selector_model`` and is re-used here.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from podscale.api.field_errors import GoValue
from podscale.api.selector_model import go_quote

__all__ = ["bad_value", "go_float", "go_json", "go_number", "go_quote", "go_syntax"]


def _digits(value: float) -> tuple[str, int]:
    """Shortest round-tripping decimal digits of ``abs(value)`` and the decimal point position."""
    _sign, digits, exponent = Decimal(repr(abs(value))).as_tuple()
    text = "".join(str(d) for d in digits).rstrip("0") or "0"
    assert isinstance(exponent, int)
    # ``digits`` * 10**exponent; the point sits after len(digits) + exponent digits.
    point = len(digits) + exponent
    return text, point


def go_float(value: float) -> str:
    """``fmt.Sprintf("%v", value)`` for a ``float64``: ``%g`` with the shortest precision."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    digits, point = _digits(value)
    sign = "-" if value < 0 else ""
    exponent = point - 1
    # Go switches to %e when the exponent is < -4 or >= 6 (the shortest-precision rule).
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        esign = "-" if exponent < 0 else "+"
        return f"{sign}{mantissa}e{esign}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def go_number(value: int | float) -> str:
    """``%v`` of a decoded JSON number (``int64`` or ``float64``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return go_float(value)


def _json_float(value: float) -> str:
    """``encoding/json``'s float format: plain decimals, exponent only beyond 1e21 / below 1e-6."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        # encoding/json writes %e here and then shortens "e-07" to "e-7" (but keeps "e+21").
        return go_float(value).replace("e-0", "e-")
    digits, point = _digits(value)
    sign = "-" if value < 0 else ""
    if value == 0:
        return "0"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _json_string(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    # encoding/json escapes HTML-significant characters and the JS line separators.
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def go_json(value: Any) -> str:
    """``json.Marshal`` of an unstructured value, byte for byte as Go writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        items = (f"{_json_string(k)}:{go_json(value[k])}" for k in sorted(value))
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    return _json_string(str(value))


def go_syntax(value: Any) -> str:
    """``fmt.Sprintf("%#v", value)`` for an unstructured (``interface{}``) value."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, dict):
        # Go prints map entries sorted by key.
        items = ", ".join(f"{go_quote(k)}:{go_syntax(value[k])}" for k in sorted(value))
        return "map[string]interface {}{" + items + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_syntax(v) for v in value) + "}"
    return go_quote(str(value))


def bad_value(value: Any) -> Any:
    """A value for ``FieldError.bad_value`` that prints as upstream's ``ErrorBody`` does.

    Scalars print through ``format_value`` already; maps and lists print with ``%#v``.
    """
    if isinstance(value, (dict, list)):
        return GoValue(go_syntax(value))
    return value
