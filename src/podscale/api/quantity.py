"""Kubernetes resource quantities: upstream ``resource.Quantity`` parsing and printing.

Everything that reads a quantity out of an object (HPA metric targets, pod resource
requests) goes through :func:`parse_quantity`; everything that writes one back (HPA
status ``currentAverageValue`` and friends) goes through :meth:`Quantity.from_milli` or
:func:`format_milli`. The HPA engine (``podscale.hpa``) lives on ``milli_value`` and
``format_milli``, so both are cached.

Contract, mirroring upstream ``staging/.../api/resource`` (quantity.go, suffix.go,
amount.go):

* Values are exact: an integer ``unscaled`` times ``10**exponent``, never a float. Parsing
  rounds anything finer than a nano *away from zero* ("0.1n" -> "1n"), exactly as upstream.
* BinarySI magnitudes are capped at 2**63-1 when parsed; decimal formats are not capped.
* ``str(q)`` is upstream ``String()``: for a parsed quantity that upstream deems already
  canonical (its fast-path heuristic) the original text is echoed back verbatim, warts
  included (``"+1"``, ``"1E3"``, ``"1.100"``); otherwise the canonical form is computed.
  :meth:`Quantity.format_canonical` always computes it.
* Equality, hashing and ordering are by value; the format and the echoed text only
  influence printing (upstream ``Equal`` is ``Cmp == 0``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Final, Literal

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "Format",
    "Quantity",
    "QuantityError",
    "format_milli",
    "parse_quantity",
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
_MAX_INT64: Final = (1 << 63) - 1
_MIN_INT64: Final = -(1 << 63)
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


def _pow10(n: int) -> int:
    # ``10**n`` typed as int (typeshed says Any, since a negative n gives a float).
    result: int = 10**n
    return result


_SAFE_BOUND: Final = _pow10(_SAFE_DIGITS)


def _int_of(digits: str) -> int:
    if len(digits) <= _SAFE_DIGITS:
        return int(digits)
    return int(Decimal(digits))


def _digits_of(value: int) -> str:
    if -_SAFE_BOUND < value < _SAFE_BOUND:
        return str(value)
    return str(Decimal(value))


def _wrap_int32(value: int) -> int:
    # Upstream parses the exponent as int64 and then truncates it to int32.
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def _strip_zeros(unscaled: int, exponent: int) -> tuple[int, int]:
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled //= 10
        exponent += 1
    return unscaled, exponent


def _adjusted(unscaled: int, exponent: int) -> int:
    """Position of the leading digit: ``len(digits) + exponent`` for non-zero values."""
    return len(_digits_of(abs(unscaled))) + exponent


def _compare(a: Quantity, b: Quantity) -> int:
    sign_a, sign_b = a.sign(), b.sign()
    if sign_a != sign_b:
        return -1 if sign_a < sign_b else 1
    if sign_a == 0:
        return 0
    ua, ea, ub, eb = a.unscaled, a.exponent, b.unscaled, b.exponent
    if ea != eb and abs(ea - eb) > 40:
        # Settle far-apart magnitudes without writing out the exponent gap in digits.
        adj_a, adj_b = _adjusted(ua, ea), _adjusted(ub, eb)
        if adj_a != adj_b:
            return sign_a if adj_a > adj_b else -sign_a
    low = min(ea, eb)
    va, vb = ua * _pow10(ea - low), ub * _pow10(eb - low)
    return (va > vb) - (va < vb)


def _scaled_away_from_zero(unscaled: int, exponent: int, scale: int) -> int:
    """``value / 10**scale`` rounded away from zero, saturating at the int64 bounds."""
    if unscaled == 0:
        return 0
    shift = exponent - scale
    negative = unscaled < 0
    magnitude = -unscaled if negative else unscaled
    if shift >= 0:
        if shift >= 19:
            return _MIN_INT64 if negative else _MAX_INT64
        result = magnitude * _pow10(shift)
    elif -shift > len(_digits_of(magnitude)):
        result = 1
    else:
        result, remainder = divmod(magnitude, _pow10(-shift))
        if remainder:
            result += 1
    if negative:
        return max(-result, _MIN_INT64)
    return min(result, _MAX_INT64)


@dataclass(frozen=True, slots=True, eq=False)
class Quantity:
    """An exact quantity ``unscaled * 10**exponent`` with the format it prints in.

    Build through :meth:`parse`, :func:`parse_quantity`, :meth:`from_milli` or
    :meth:`from_int`. ``text`` is upstream's cached string: set only by parsing when
    upstream would echo the input back.
    """

    unscaled: int
    exponent: int = 0
    format: Format = "DecimalSI"
    text: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # Keep (unscaled, exponent) normalised so equality and hashing are structural.
        if self.unscaled == 0:
            if self.exponent != 0:
                object.__setattr__(self, "exponent", 0)
        elif self.unscaled % 10 == 0:
            unscaled, exponent = _strip_zeros(self.unscaled, self.exponent)
            object.__setattr__(self, "unscaled", unscaled)
            object.__setattr__(self, "exponent", exponent)

    # -- construction -------------------------------------------------------------------

    @staticmethod
    def parse(text: str) -> Quantity:
        """Upstream ``ParseQuantity``: strict, no whitespace trimming; cached."""
        return _parse_cached(text)

    @staticmethod
    def from_milli(milli: int, fmt: Format = "DecimalSI") -> Quantity:
        """Upstream ``NewMilliQuantity``: ``milli / 1000`` in ``fmt``."""
        return Quantity(milli, -3, fmt)

    @staticmethod
    def from_int(value: int, fmt: Format = "DecimalSI") -> Quantity:
        """Upstream ``NewQuantity``."""
        return Quantity(value, 0, fmt)

    @staticmethod
    def from_scaled(value: int, scale: int) -> Quantity:
        """Upstream ``NewScaledQuantity``: ``value * 10**scale`` in DecimalSI."""
        return Quantity(value, scale, "DecimalSI")

    # -- reading ------------------------------------------------------------------------

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def is_zero(self) -> bool:
        return self.unscaled == 0

    def compare(self, other: Quantity) -> int:
        """-1, 0 or 1 as upstream ``Cmp``."""
        return _compare(self, other)

    def scaled_value(self, scale: int) -> int:
        """Upstream ``ScaledValue``: ``value / 10**scale`` rounded away from zero.

        Positive values round up (ceil), as upstream documents; results beyond int64
        saturate at its bounds like upstream's int64 fast path.
        """
        return _scaled_away_from_zero(self.unscaled, self.exponent, scale)

    def value(self) -> int:
        """Upstream ``Value``: whole units, rounded away from zero."""
        return _scaled_away_from_zero(self.unscaled, self.exponent, 0)

    def milli_value(self) -> int:
        """Upstream ``MilliValue``: thousandths, rounded away from zero (ceil if positive)."""
        if self.exponent >= -3:
            shift = self.exponent + 3
            if shift < 16:
                result = self.unscaled * _pow10(shift)
                if _MIN_INT64 <= result <= _MAX_INT64:
                    return result
        return _scaled_away_from_zero(self.unscaled, self.exponent, -3)

    def as_fraction(self) -> Fraction:
        if self.exponent >= 0:
            return Fraction(self.unscaled * _pow10(self.exponent))
        return Fraction(self.unscaled, _pow10(-self.exponent))

    def as_approximate_float(self) -> float:
        """Upstream ``AsApproximateFloat64``; only for display and heuristics."""
        return float(self.as_fraction())

    # -- printing -----------------------------------------------------------------------

    def format_canonical(self) -> str:
        """Upstream ``CanonicalizeBytes``: the canonical text, ignoring any echoed input."""
        return _format_canonical(self.unscaled, self.exponent, self.format)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        return _format_canonical(self.unscaled, self.exponent, self.format)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    # -- value semantics ------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.unscaled == other.unscaled and self.exponent == other.exponent

    def __hash__(self) -> int:
        return hash((self.unscaled, self.exponent))

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return _compare(self, other) < 0

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return _compare(self, other) <= 0

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return _compare(self, other) > 0

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return _compare(self, other) >= 0

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        # Upstream Add: a zero receiver takes the other operand's format.
        fmt = other.format if self.unscaled == 0 else self.format
        low = min(self.exponent, other.exponent)
        total = self.unscaled * _pow10(self.exponent - low) + other.unscaled * _pow10(
            other.exponent - low
        )
        return Quantity(total, low, fmt)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self + Quantity(-other.unscaled, other.exponent, other.format)

    def __neg__(self) -> Quantity:
        return Quantity(-self.unscaled, self.exponent, self.format)


# -- parsing ------------------------------------------------------------------------------


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


def _parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if _MIN_INT64 <= value <= _MAX_INT64 else None


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


def _parse_uncached(text: str) -> Quantity:
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(0, 0, "DecimalSI", "0")
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
            if product <= _MAX_INT64:
                # Upstream echoes BinarySI input when the number is not a multiple of 8.
                echoed = text if value & 0x07 else None
                return Quantity(-product if negative else product, 0, fmt, echoed)
    elif 18 - len(shifted) >= 0:
        scale = exponent - len(denom)
        if scale >= _NANO:
            value = int(shifted)
            canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
            return Quantity(-value if negative else value, scale, fmt, text if canonical else None)

    # Upstream's arbitrary-precision path: it re-reads the number including its sign and
    # point, and fails when no digit was given at all ("Ei", "e-12", ".Ei").
    if not (zeros or match.group(3) or denom):
        raise QuantityError(ERR_NUMERIC)
    if base == 10:
        unscaled, scale = _round_to_nano(shifted, exponent - len(denom))
    else:
        unscaled, scale = _round_to_nano(_digits_of(_int_of(shifted) << exponent), -len(denom))
        magnitude = Quantity(unscaled, scale)
        if _compare(magnitude, _MAX_BINARY) > 0:
            unscaled, scale = _MAX_INT64, 0
        elif unscaled != 0 and _compare(magnitude, _ONE) < 0:
            fmt = "DecimalSI"  # a fraction of one is clearer in decimal
    return Quantity(-unscaled if negative else unscaled, scale, fmt)


_ONE: Final = Quantity(1)
_MAX_BINARY: Final = Quantity(_MAX_INT64)
_parse_cached = lru_cache(maxsize=8192)(_parse_uncached)


def parse_quantity(value: str | int | float) -> Quantity:
    """A quantity as it appears in a JSON object: a string, or a bare JSON number.

    Like upstream ``UnmarshalJSON`` the text is trimmed of surrounding whitespace first.
    Python numbers are read back from their shortest decimal spelling.
    """
    if isinstance(value, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(value, str):
        return _parse_cached(value.strip())
    if isinstance(value, int):
        return _parse_cached(str(value))
    return _parse_cached(repr(value))


# -- printing -----------------------------------------------------------------------------


def _format_decimal(unscaled: int, exponent: int, fmt: Format) -> str:
    # Lower the exponent to a multiple of three, moving digits into the mantissa.
    extra = exponent % 3
    mantissa = unscaled * _pow10(extra) if extra else unscaled
    exponent -= extra
    if fmt == "DecimalSI":
        suffix = _DECIMAL_BY_EXPONENT.get(exponent)
        if suffix is not None:
            return _digits_of(mantissa) + suffix
        # No SI suffix this large: upstream (kubernetes#140459) falls back to an exponent.
    if exponent == 0:
        return _digits_of(mantissa)
    return f"{_digits_of(mantissa)}e{exponent}"


def _format_canonical(unscaled: int, exponent: int, fmt: Format) -> str:
    if unscaled == 0:
        return "0"
    if fmt == "BinarySI":
        # Small or fractional binary values print as DecimalSI rather than lose precision.
        if exponent >= 0:
            whole = unscaled * _pow10(exponent)
            if not -1024 < whole < 1024:
                power = 0
                while whole % 1024 == 0 and power < len(_BINARY_BY_POWER) - 1:
                    whole //= 1024
                    power += 1
                if whole % 1024 != 0:
                    return _digits_of(whole) + _BINARY_BY_POWER[power]
                # Beyond "Ei" there is no suffix: print in decimal instead.
        fmt = "DecimalSI"
    return _format_decimal(unscaled, exponent, fmt)


@lru_cache(maxsize=8192)
def format_milli(milli: int) -> str:
    """``str(Quantity.from_milli(milli))``: "1500m", "2", "0". Cached (HPA status path)."""
    return _format_decimal(*_strip_zeros(milli, -3), "DecimalSI") if milli else "0"
