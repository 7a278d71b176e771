"""A JSONPath result as text, the way client-go's ``JSONPath.PrintResults`` writes it.

Objects and lists are written as compact JSON by Go's encoding/json (keys sorted, ``<``, ``>``,
``&`` escaped, floats in Go's shortest form); other values with ``fmt.Fprint``: strings as they
are, ``true``/``false``, integers in decimal, floats in ``%v`` form (``1e+06``, ``0.5``), and a
JSON null as text/template's ``<no value>``. ``customresources.columns`` uses ``print_value`` for
string-typed printer columns; ``go_float`` is the ``%v`` float form. Pure.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any, Final

__all__ = ["NO_VALUE", "go_float", "go_json", "print_value"]

# What text/template prints for a nil interface (a JSON null).
NO_VALUE: Final = "<no value>"

_HTML_ESCAPES: Final = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def print_value(value: Any) -> str:
    """One result as ``PrintResults`` writes it."""
    if isinstance(value, dict | list):
        return go_json(value)
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    return str(value)


def go_json(value: Any) -> str:
    """``json.Marshal`` of decoded JSON: map keys sorted, HTML-safe, Go's float spelling."""
    if isinstance(value, dict):
        items = (f"{_go_string(str(k))}:{go_json(value[k])}" for k in sorted(value))
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, float) and math.isfinite(value):
        return _json_float(value)
    return json.dumps(value)


def _go_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    for raw, escaped in _HTML_ESCAPES:
        encoded = encoded.replace(raw, escaped)
    return encoded


def _digits(value: float) -> tuple[str, int]:
    """The shortest round-trip decimal digits of ``abs(value)`` (non-zero) and the place of
    the decimal point: 1500.0 -> ("15", 4), 0.05 -> ("5", -1)."""
    normalized = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, normalized.digits))
    assert isinstance(normalized.exponent, int)  # finite input
    return digits, len(digits) + normalized.exponent


def _fixed(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def _exponent(digits: str, point: int, min_exponent_digits: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exponent = point - 1
    sign = "-" if exponent < 0 else "+"
    return f"{mantissa}e{sign}{abs(exponent):0{min_exponent_digits}d}"


def go_float(value: float) -> str:
    """``fmt.Sprint`` of a float64: %g with the shortest digits, exponent from 1e+06 / 1e-05."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    digits, point = _digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        # strconv's 'g' with the shortest precision decides as if the precision were 6;
        # the exponent has at least two digits.
        return sign + _exponent(digits, point, 2)
    return sign + _fixed(digits, point)


def _json_float(value: float) -> str:
    """encoding/json's float: fixed, but %e (exponent digits trimmed) below 1e-6 or from 1e21."""
    sign = "-" if value < 0 else ""
    if value == 0:
        return "0" if math.copysign(1.0, value) > 0 else "-0"
    digits, point = _digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        return sign + _exponent(digits, point, 2).replace("e-0", "e-").replace("e+0", "e+")
    return sign + _fixed(digits, point)
