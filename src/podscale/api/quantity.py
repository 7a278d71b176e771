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

This module holds the ``Quantity`` value type, its arithmetic and the cached parse; the
string side (scanning, suffixes, canonical printing, ``format_milli``, ``QuantityError``)
lives in ``podscale.api.quantity_format`` and is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from podscale.api.quantity_format import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    MAX_INT64,
    MIN_INT64,
    Format,
    QuantityError,
    digits_of,
    format_canonical,
    format_milli,
    pow10,
    scan_quantity,
    strip_zeros,
)

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Format",
    "Quantity",
    "QuantityError",
    "format_milli",
    "parse_quantity",
]


def _adjusted(unscaled: int, exponent: int) -> int:
    """Position of the leading digit: ``len(digits) + exponent`` for non-zero values."""
    return len(digits_of(abs(unscaled))) + exponent


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
    va, vb = ua * pow10(ea - low), ub * pow10(eb - low)
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
            return MIN_INT64 if negative else MAX_INT64
        result = magnitude * pow10(shift)
    elif -shift > len(digits_of(magnitude)):
        result = 1
    else:
        result, remainder = divmod(magnitude, pow10(-shift))
        if remainder:
            result += 1
    if negative:
        return max(-result, MIN_INT64)
    return min(result, MAX_INT64)


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
            unscaled, exponent = strip_zeros(self.unscaled, self.exponent)
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
                result = self.unscaled * pow10(shift)
                if MIN_INT64 <= result <= MAX_INT64:
                    return result
        return _scaled_away_from_zero(self.unscaled, self.exponent, -3)

    def as_fraction(self) -> Fraction:
        if self.exponent >= 0:
            return Fraction(self.unscaled * pow10(self.exponent))
        return Fraction(self.unscaled, pow10(-self.exponent))

    def as_approximate_float(self) -> float:
        """Upstream ``AsApproximateFloat64``; only for display and heuristics."""
        return float(self.as_fraction())

    # -- printing -----------------------------------------------------------------------

    def format_canonical(self) -> str:
        """Upstream ``CanonicalizeBytes``: the canonical text, ignoring any echoed input."""
        return format_canonical(self.unscaled, self.exponent, self.format)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        return format_canonical(self.unscaled, self.exponent, self.format)

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
        total = self.unscaled * pow10(self.exponent - low) + other.unscaled * pow10(
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


def _parse_uncached(text: str) -> Quantity:
    return Quantity(*scan_quantity(text))


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
