"""Quantity text: upstream ``resource`` scanning, suffixes and canonical printing.

Works on plain ``(unscaled, exponent, format)`` triples so it needs no ``Quantity``:
:func:`scan_quantity` turns a string into the triple (plus the text upstream would echo
back), :func:`format_canonical` turns a triple into upstream's canonical string.
``podscale.api.quantity`` wraps both in the ``Quantity`` value type, caches the parse and
re-exports the public names defined here. :func:`format_milli` is the HPA status hot path
and is cached. Spec: ``staging/.../api/resource`` (quantity.go, suffix.go, amount.go).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Final, Literal

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "MAX_INT64",
    "MIN_INT64",
    "Format",
    "QuantityError",
    "digits_of",
    "format_canonical",
    "format_milli",
    "pow10",
    "scan_quantity",
    "strip_zeros",
]

Format = Literal["DecimalSI", "BinarySI", "DecimalExponent"]
DECIMAL_SI: Final = "DecimalSI"
BINARY_SI: Final = "BinarySI"
DECIMAL_EXPONENT: Final = "DecimalExponent"

_SPLIT_RE_TEXT: Final = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG: Final = f"quantities must match the regular expression '{_SPLIT_RE_TEXT}'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"

_NANO: Final = -9
MAX_INT64: Final = (1 << 63) - 1
MIN_INT64: Final = -(1 << 63)
# CPython refuses int<->str conversions past 4300 digits; beyond this we go via Decimal.
_SAFE_DIGITS: Final = 4000

# Same language as upstream's hand-written scanner: sign, leading zeros, integer digits,
# optional fraction, then suffix letters, an optional sign and digits. Possessive
# quantifiers keep the split greedy exactly like the scanner (no backtracking).
_SCAN: Final = re.compile(r"([+-]?)(0*+)([0-9]*+)(?:\.([0-9]*+))?([eEinumkKMGTP]*+[-+]?[0-9]*+)")

_DECIMAL_SUFFIXES: Final[dict[str, int]] = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES: Final[dict[str, int]] = {
    "Ki": 10,
    "Mi": 20,
    "Gi": 30,
    "Ti": 40,
    "Pi": 50,
    "Ei": 60,
}
_DECIMAL_BY_EXPONENT: Final = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_POWER: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


class QuantityError(ValueError):
    """A string that upstream's ``ParseQuantity`` rejects; the message is upstream's."""


def pow10(n: int) -> int:
    """``10**n`` typed as int (typeshed says Any, since a negative n gives a float)."""
    result: int = 10**n
    return result


_SAFE_BOUND: Final = pow10(_SAFE_DIGITS)


def _int_of(digits: str) -> int:
    if len(digits) <= _SAFE_DIGITS:
        return int(digits)
    return int(Decimal(digits))


def digits_of(value: int) -> str:
    """``str(value)``, also past CPython's int-to-str digit limit."""
    if -_SAFE_BOUND < value < _SAFE_BOUND:
        return str(value)
    return str(Decimal(value))


def strip_zeros(unscaled: int, exponent: int) -> tuple[int, int]:
    """The same value with trailing zeros of ``unscaled`` moved into ``exponent``."""
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled //= 10
        exponent += 1
    return unscaled, exponent


# -- scanning -----------------------------------------------------------------------------


def _wrap_int32(value: int) -> int:
    # Upstream parses the exponent as int64 and then truncates it to int32.
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def _parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if MIN_INT64 <= value <= MAX_INT64 else None


def _interpret_suffix(suffix: str) -> tuple[int, int, Format]:
    """(base, exponent, format) for a suffix, as upstream's suffixer ``interpret``."""
    decimal_exponent = _DECIMAL_SUFFIXES.get(suffix)
    if decimal_exponent is not None:
        return 10, decimal_exponent, "DecimalSI"
    binary_exponent = _BINARY_SUFFIXES.get(suffix)
    if binary_exponent is not None:
        return 2, binary_exponent, "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = _parse_go_int64(suffix[1:])
        if exponent is not None:
            return 10, _wrap_int32(exponent), "DecimalExponent"
    raise QuantityError(ERR_SUFFIX)


def _round_to_nano(digits: str, exponent: int) -> tuple[int, int]:
    """Magnitude ``digits * 10**exponent`` rounded up to a multiple of 10**-9."""
    digits = digits.lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    if not stripped:
        return 0, 0
    if exponent >= _NANO:
        return _int_of(stripped), exponent
    keep = len(stripped) + exponent - _NANO
    if keep <= 0:
        # Non-zero but below a nano: upstream hands out the smallest amount, 1n.
        return 1, _NANO
    # Trailing zeros were stripped, so the dropped tail is never all zeros.
    return _int_of(stripped[:keep]) + 1, _NANO


def _compare_to_int(unscaled: int, exponent: int, bound: int) -> int:
    """-1, 0 or 1 as ``unscaled * 10**exponent`` compares to the integer ``bound``."""
    if exponent >= 0:
        value, other = unscaled * pow10(exponent), bound
    else:
        value, other = unscaled, bound * pow10(-exponent)
    return (value > other) - (value < other)


def scan_quantity(text: str) -> tuple[int, int, Format, str | None]:
    """Upstream ``ParseQuantity`` as ``(unscaled, exponent, format, echoed_text)``.

    ``echoed_text`` is the input when upstream's fast path deems it already canonical
    (``String()`` then prints it verbatim), else None. Raises :class:`QuantityError`.
    """
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return 0, 0, "DecimalSI", "0"
    match = _SCAN.fullmatch(text)
    if match is None:
        raise QuantityError(ERR_FORMAT_WRONG)
    sign, zeros, num, denom, suffix = match.groups(default="")
    negative = sign == "-"
    base, exponent, fmt = _interpret_suffix(suffix)
    num = num or "0"  # upstream's numerator is "0" when only zeros (or nothing) precede
    shifted = num + denom

    if fmt == "BinarySI":
        if not denom and 14 - len(num) - (3 * exponent) // 10 >= 0:
            value = int(num)
            product = value << exponent
            if product <= MAX_INT64:
                # Upstream echoes BinarySI input when the number is not a multiple of 8.
                echoed = text if value & 0x07 else None
                return -product if negative else product, 0, fmt, echoed
    elif 18 - len(shifted) >= 0:
        scale = exponent - len(denom)
        if scale >= _NANO:
            value = int(shifted)
            canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
            return -value if negative else value, scale, fmt, text if canonical else None

    # Upstream's arbitrary-precision path: it re-reads the number including its sign and
    # point, and fails when no digit was given at all ("Ei", "e-12", ".Ei").
    if not (zeros or match.group(3) or denom):
        raise QuantityError(ERR_NUMERIC)
    if base == 10:
        unscaled, scale = _round_to_nano(shifted, exponent - len(denom))
    else:
        unscaled, scale = _round_to_nano(digits_of(_int_of(shifted) << exponent), -len(denom))
        if _compare_to_int(unscaled, scale, MAX_INT64) > 0:
            unscaled, scale = MAX_INT64, 0
        elif unscaled != 0 and _compare_to_int(unscaled, scale, 1) < 0:
            fmt = "DecimalSI"  # a fraction of one is clearer in decimal
    return -unscaled if negative else unscaled, scale, fmt, None


# -- printing -----------------------------------------------------------------------------


def _format_decimal(unscaled: int, exponent: int, fmt: Format) -> str:
    # Lower the exponent to a multiple of three, moving digits into the mantissa.
    extra = exponent % 3
    mantissa = unscaled * pow10(extra) if extra else unscaled
    exponent -= extra
    if fmt == "DecimalSI":
        suffix = _DECIMAL_BY_EXPONENT.get(exponent)
        if suffix is not None:
            return digits_of(mantissa) + suffix
        # No SI suffix this large: upstream (kubernetes#140459) falls back to an exponent.
    if exponent == 0:
        return digits_of(mantissa)
    return f"{digits_of(mantissa)}e{exponent}"


def format_canonical(unscaled: int, exponent: int, fmt: Format) -> str:
    """Upstream ``CanonicalizeBytes`` of ``unscaled * 10**exponent`` printed in ``fmt``."""
    if unscaled == 0:
        return "0"
    if fmt == "BinarySI":
        # Small or fractional binary values print as DecimalSI rather than lose precision.
        if exponent >= 0:
            whole = unscaled * pow10(exponent)
            if not -1024 < whole < 1024:
                power = 0
                while whole % 1024 == 0 and power < len(_BINARY_BY_POWER) - 1:
                    whole //= 1024
                    power += 1
                if whole % 1024 != 0:
                    return digits_of(whole) + _BINARY_BY_POWER[power]
                # Beyond "Ei" there is no suffix: print in decimal instead.
        fmt = "DecimalSI"
    return _format_decimal(unscaled, exponent, fmt)


@lru_cache(maxsize=8192)
def format_milli(milli: int) -> str:
    """``str(Quantity.from_milli(milli))``: "1500m", "2", "0". Cached (HPA status path)."""
    return _format_decimal(*strip_zeros(milli, -3), "DecimalSI") if milli else "0"
