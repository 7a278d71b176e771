"""Quantities: parsing, canonical printing, rounding and arithmetic as upstream ``resource``.

Expected strings are worked out from upstream's rules (quantity.go, suffix.go, amount.go):
the parse-time echo of "already canonical" input, nano rounding away from zero, BinarySI
capping and its DecimalSI fallback, and exponents lowered to multiples of three.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Format,
    Quantity,
    QuantityError,
    format_milli,
    parse_quantity,
)

MAX_INT64 = (1 << 63) - 1

# (input, str(), format_canonical(), format)
CANONICAL = [
    ("0", "0", "0", "DecimalSI"),
    ("100m", "100m", "100m", "DecimalSI"),
    ("1m", "1m", "1m", "DecimalSI"),
    ("1.5", "1500m", "1500m", "DecimalSI"),
    ("0.5", "500m", "500m", "DecimalSI"),
    (".5", "500m", "500m", "DecimalSI"),
    ("1000m", "1", "1", "DecimalSI"),
    ("-1000m", "-1", "-1", "DecimalSI"),
    ("0.1m", "100u", "100u", "DecimalSI"),
    ("1000u", "1m", "1m", "DecimalSI"),
    ("1000000n", "1m", "1m", "DecimalSI"),
    ("1k", "1k", "1k", "DecimalSI"),
    ("1000k", "1M", "1M", "DecimalSI"),
    ("1500k", "1500k", "1500k", "DecimalSI"),
    ("1025", "1025", "1025", "DecimalSI"),
    ("-5", "-5", "-5", "DecimalSI"),
    ("100000000000000000000", "100E", "100E", "DecimalSI"),
    ("1234567890123456789", "1234567890123456789", "1234567890123456789", "DecimalSI"),
    ("1000E", "1e21", "1e21", "DecimalSI"),
    ("0.0000000001", "1n", "1n", "DecimalSI"),
    ("-0.0000000001", "-1n", "-1n", "DecimalSI"),
    ("1.0000000001", "1000000001n", "1000000001n", "DecimalSI"),
    ("999999999.9999999999", "1G", "1G", "DecimalSI"),
    (".", "0", "0", "DecimalSI"),
    ("-", "0", "0", "DecimalSI"),
    # Upstream echoes input its fast path judges canonical, even when it is not.
    ("+1", "+1", "1", "DecimalSI"),
    ("01", "01", "1", "DecimalSI"),
    ("5.", "5.", "5", "DecimalSI"),
    ("1.100", "1.100", "1100m", "DecimalSI"),
    ("1E3", "1E3", "1e3", "DecimalExponent"),
    ("1e3", "1e3", "1e3", "DecimalExponent"),
    ("12e6", "12e6", "12e6", "DecimalExponent"),
    ("1e4", "10e3", "10e3", "DecimalExponent"),
    ("1.5e3", "1500", "1500", "DecimalExponent"),
    ("1e-3", "1e-3", "1e-3", "DecimalExponent"),
    ("1e-20", "1e-9", "1e-9", "DecimalExponent"),
    ("2Gi", "2Gi", "2Gi", "BinarySI"),
    ("12Ki", "12Ki", "12Ki", "BinarySI"),
    ("1024Mi", "1Gi", "1Gi", "BinarySI"),
    ("1024Ki", "1Mi", "1Mi", "BinarySI"),
    ("3072Ki", "3Mi", "3Mi", "BinarySI"),
    ("1536Ki", "1536Ki", "1536Ki", "BinarySI"),
    ("2000Mi", "2000Mi", "2000Mi", "BinarySI"),
    ("1.5Gi", "1536Mi", "1536Mi", "BinarySI"),
    ("-1.5Gi", "-1536Mi", "-1536Mi", "BinarySI"),
    ("1Pi", "1Pi", "1Pi", "BinarySI"),
    ("1Ei", "1Ei", "1Ei", "BinarySI"),
    ("8Ei", "9223372036854775807", "9223372036854775807", "BinarySI"),
    ("0.5Ki", "512", "512", "BinarySI"),
    ("0.1Ki", "102400m", "102400m", "BinarySI"),
    ("0.001Ki", "1024m", "1024m", "BinarySI"),
    ("0.0001Ki", "102400u", "102400u", "DecimalSI"),
    ("Ki", "0", "0", "BinarySI"),
    ("0Ki", "0", "0", "BinarySI"),
]


@pytest.mark.parametrize(
    ("text", "printed", "canonical", "fmt"), CANONICAL, ids=[c[0] for c in CANONICAL]
)
def test_parse_prints_like_upstream(text: str, printed: str, canonical: str, fmt: str) -> None:
    quantity = Quantity.parse(text)
    assert str(quantity) == printed
    assert quantity.format_canonical() == canonical
    assert quantity.format == fmt


ERRORS = [
    ("", ERR_FORMAT_WRONG),
    ("abc", ERR_FORMAT_WRONG),
    ("1.5.5", ERR_FORMAT_WRONG),
    ("1 ", ERR_FORMAT_WRONG),
    (" 1", ERR_FORMAT_WRONG),
    ("1e3.5", ERR_FORMAT_WRONG),
    ("1t", ERR_FORMAT_WRONG),
    ("1i", ERR_SUFFIX),
    ("1K", ERR_SUFFIX),
    ("1e", ERR_SUFFIX),
    ("1ee3", ERR_SUFFIX),
    ("1e+", ERR_SUFFIX),
    ("1-5", ERR_SUFFIX),
    ("1Ki5", ERR_SUFFIX),
    ("1e99999999999999999999", ERR_SUFFIX),
    ("Ei", ERR_NUMERIC),
    (".Ei", ERR_NUMERIC),
    ("e-20", ERR_NUMERIC),
]


@pytest.mark.parametrize(("text", "message"), ERRORS, ids=[repr(e[0]) for e in ERRORS])
def test_parse_errors_carry_upstream_messages(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as caught:
        Quantity.parse(text)
    assert str(caught.value) == message


def test_format_error_quotes_upstream_regex() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert isinstance(QuantityError(ERR_SUFFIX), ValueError)


JSON_VALUES: list[tuple[str | int | float, str]] = [
    (" 100m ", "100m"),
    ("\t2Gi\n", "2Gi"),
    (1, "1"),
    (1500, "1500"),
    (1.5, "1500m"),
    (0.1, "100m"),
    (2.0, "2"),
    (1e-05, "10e-6"),
]


@pytest.mark.parametrize(("value", "printed"), JSON_VALUES, ids=[repr(v[0]) for v in JSON_VALUES])
def test_parse_quantity_reads_json_values(value: str | int | float, printed: str) -> None:
    assert str(parse_quantity(value)) == printed


@pytest.mark.parametrize("value", [True, float("nan"), float("inf"), ""], ids=str)
def test_parse_quantity_rejects_non_quantities(value: str | float) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)


ROUNDING = [
    ("100m", 100, 1),
    ("1.5", 1500, 2),
    ("-1.5", -1500, -2),
    ("0.0001", 1, 1),
    ("1n", 1, 1),
    ("-1n", -1, -1),
    ("1.0001", 1001, 2),
    ("0", 0, 0),
    ("2Gi", 2147483648000, 2147483648),
    ("1e3", 1000000, 1000),
    ("1Ei", MAX_INT64, 1 << 60),
    ("1e30", MAX_INT64, MAX_INT64),
    ("-1e30", -(1 << 63), -(1 << 63)),
]


@pytest.mark.parametrize(("text", "milli", "whole"), ROUNDING, ids=[r[0] for r in ROUNDING])
def test_values_round_away_from_zero(text: str, milli: int, whole: int) -> None:
    quantity = Quantity.parse(text)
    assert quantity.milli_value() == milli
    assert quantity.value() == whole
    assert quantity.scaled_value(-3) == milli


FROM_MILLI: list[tuple[int, Format, str]] = [
    (1500, "DecimalSI", "1500m"),
    (2000, "DecimalSI", "2"),
    (0, "DecimalSI", "0"),
    (1, "DecimalSI", "1m"),
    (-1, "DecimalSI", "-1m"),
    (1000000, "DecimalSI", "1k"),
    (1234567, "DecimalSI", "1234567m"),
    (10**22, "DecimalSI", "10E"),
    (10**24, "DecimalSI", "1e21"),
    (1500, "BinarySI", "1500m"),
    (512000, "BinarySI", "512"),
    (2048000, "BinarySI", "2Ki"),
    (1500, "DecimalExponent", "1500e-3"),
]


@pytest.mark.parametrize(
    ("milli", "fmt", "printed"), FROM_MILLI, ids=[f"{m}-{f}" for m, f, _ in FROM_MILLI]
)
def test_from_milli_prints_canonically(milli: int, fmt: Format, printed: str) -> None:
    quantity = Quantity.from_milli(milli, fmt)
    assert str(quantity) == printed
    assert quantity.milli_value() == min(milli, MAX_INT64)  # upstream saturates at int64
    if fmt == "DecimalSI":
        assert format_milli(milli) == printed


@pytest.mark.parametrize(
    ("value", "fmt", "printed"),
    [
        (0, "DecimalSI", "0"),
        (1024, "BinarySI", "1Ki"),
        (1000, "DecimalSI", "1k"),
        (5, "BinarySI", "5"),
    ],
    ids=["zero", "binary", "decimal", "small-binary"],
)
def test_from_int(value: int, fmt: Format, printed: str) -> None:
    assert str(Quantity.from_int(value, fmt)) == printed
    assert Quantity.from_int(value, fmt).value() == value


ARITHMETIC = [
    ("1", "+", "500m", "1500m", "DecimalSI"),
    ("0Ki", "+", "2Ki", "2Ki", "BinarySI"),
    ("2Ki", "+", "0", "2Ki", "BinarySI"),
    ("1Ki", "-", "1Ki", "0", "BinarySI"),
    ("100m", "-", "1", "-900m", "DecimalSI"),
    ("0", "-", "1Ki", "-1Ki", "BinarySI"),
    ("1e3", "+", "1", "1001", "DecimalExponent"),
    ("1.5Gi", "+", "512Mi", "2Gi", "BinarySI"),
]


@pytest.mark.parametrize(
    ("left", "op", "right", "printed", "fmt"),
    ARITHMETIC,
    ids=[f"{a}{o}{b}" for a, o, b, _, _ in ARITHMETIC],
)
def test_arithmetic_keeps_upstream_formats(
    left: str, op: str, right: str, printed: str, fmt: str
) -> None:
    a, b = Quantity.parse(left), Quantity.parse(right)
    result = a + b if op == "+" else a - b
    assert str(result) == printed
    assert result.format == fmt
    expected = a.milli_value() + b.milli_value() if op == "+" else a.milli_value() - b.milli_value()
    assert result.milli_value() == expected


def test_negation_and_sign() -> None:
    q = Quantity.parse("1.5")
    assert str(-q) == "-1500m"
    assert (-q).sign() == -1
    assert Quantity.parse("0").sign() == 0
    assert Quantity.parse("0").is_zero()
    negated = -q
    assert -negated == q


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [
        ("1k", "1Ki"),
        ("999m", "1"),
        ("-1e2000", "1n"),
        ("1n", "1e2000"),
        ("1e2000", "1e2001"),
        ("-2", "-1"),
        ("1Ki", "1025"),
    ],
    ids=lambda v: v,
)
def test_ordering_is_by_value(smaller: str, larger: str) -> None:
    a, b = Quantity.parse(smaller), Quantity.parse(larger)
    assert a < b
    assert a <= b
    assert b > a
    assert b >= a
    assert a != b
    assert a.compare(b) == -1
    assert b.compare(a) == 1


@pytest.mark.parametrize(
    ("left", "right"),
    [("1", "1000m"), ("1Ki", "1024"), ("+1", "1"), ("1e3", "1k"), ("0Ki", "0")],
    ids=lambda v: v,
)
def test_equality_ignores_format_and_spelling(left: str, right: str) -> None:
    a, b = Quantity.parse(left), Quantity.parse(right)
    assert a == b
    assert hash(a) == hash(b)
    assert a.compare(b) == 0
    assert len({a, b}) == 1


def test_comparison_with_other_types_is_not_supported() -> None:
    assert Quantity.parse("1") != 1
    with pytest.raises(TypeError):
        _ = Quantity.parse("1") < 1  # type: ignore[operator]


def test_construction_normalises_and_parse_is_cached() -> None:
    assert Quantity(1500, -3) == Quantity(15, -1)
    assert Quantity(1500, -3).exponent == -1
    assert Quantity(0, 7).exponent == 0
    assert Quantity.parse("100m") is Quantity.parse("100m")
    assert repr(Quantity.parse("1.5")) == "Quantity('1500m')"
    assert Quantity.parse("1.5").as_fraction() == Fraction(3, 2)
    assert Quantity.parse("250m").as_approximate_float() == 0.25
    assert str(Quantity.from_scaled(15, 8)) == "1500M"


# -- properties -------------------------------------------------------------------------------

FORMATS: list[Format] = ["DecimalSI", "BinarySI", "DecimalExponent"]


@st.composite
def quantities(draw: st.DrawFn) -> Quantity:
    fmt = draw(st.sampled_from(FORMATS))
    unscaled = draw(st.integers(min_value=-(10**20), max_value=10**20))
    exponent = draw(st.integers(min_value=-9, max_value=25))
    quantity = Quantity(unscaled, exponent, fmt)
    if fmt == "BinarySI" and abs(quantity.as_fraction()) > MAX_INT64:
        quantity = Quantity(unscaled % MAX_INT64, 0, fmt)  # parsing caps binary values
    return quantity


@given(quantities())
def test_printed_quantities_parse_back_to_the_same_value(quantity: Quantity) -> None:
    assert Quantity.parse(str(quantity)) == quantity
    assert Quantity.parse(quantity.format_canonical()) == quantity


@given(quantities())
def test_canonical_text_is_a_fixed_point(quantity: Quantity) -> None:
    canonical = quantity.format_canonical()
    reparsed = Quantity.parse(canonical)
    if quantity.format != "BinarySI":
        assert str(reparsed) == canonical
        assert reparsed.format_canonical() == canonical
    # A binary value printed without a suffix ("10000") reads back as DecimalSI ("10k"),
    # as upstream; after that one step printing is stable.
    once = str(reparsed)
    assert str(Quantity.parse(once)) == once


def test_binary_without_suffix_reads_back_as_decimal() -> None:
    binary = Quantity(10000, 0, "BinarySI")
    assert str(binary) == "10000"
    assert str(Quantity.parse(str(binary))) == "10k"


SUFFIX_VALUES = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "k": Fraction(1000),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
    "e-12": Fraction(1, 10**12),
    "e-4": Fraction(1, 10**4),
    "e2": Fraction(100),
    "E+7": Fraction(10**7),
}


def _oracle(sign: str, whole: str, fraction: str, suffix: str) -> Fraction:
    """Independent reading: exact value, ceil-away-from-zero to nano, binary cap."""
    magnitude = Fraction(int(whole or "0")) + Fraction(int(fraction or "0"), 10 ** len(fraction))
    magnitude *= SUFFIX_VALUES[suffix]
    nanos = magnitude * 10**9
    magnitude = Fraction(-(-nanos.numerator // nanos.denominator), 10**9)
    if suffix.endswith("i"):
        magnitude = min(magnitude, Fraction(MAX_INT64))
    return -magnitude if sign == "-" else magnitude


@given(
    st.sampled_from(["", "+", "-"]),
    st.text("0123456789", min_size=1, max_size=22),
    st.one_of(st.none(), st.text("0123456789", max_size=14)),
    st.sampled_from(sorted(SUFFIX_VALUES)),
)
def test_parsed_value_matches_exact_arithmetic(
    sign: str, whole: str, fraction: str | None, suffix: str
) -> None:
    text = sign + whole + ("" if fraction is None else "." + fraction) + suffix
    quantity = Quantity.parse(text)
    assert quantity.as_fraction() == _oracle(sign, whole, fraction or "", suffix)
    millis = quantity.as_fraction() * 1000
    ceil_away = -(-abs(millis.numerator) // millis.denominator)
    expected = ceil_away if millis >= 0 else -ceil_away
    assert quantity.milli_value() == max(min(expected, MAX_INT64), -MAX_INT64 - 1)


@given(st.text("0123456789.+-eEinumkKMGTP", max_size=12))
def test_arbitrary_text_either_fails_cleanly_or_round_trips(text: str) -> None:
    message = None
    try:
        quantity = Quantity.parse(text)
    except QuantityError as err:
        message = str(err)
    if message is not None:
        assert message in (ERR_FORMAT_WRONG, ERR_SUFFIX, ERR_NUMERIC)
    else:
        assert Quantity.parse(quantity.format_canonical()) == quantity


@given(quantities(), quantities())
def test_arithmetic_and_ordering_agree_with_fractions(a: Quantity, b: Quantity) -> None:
    assert (a + b).as_fraction() == a.as_fraction() + b.as_fraction()
    assert (a - b).as_fraction() == a.as_fraction() - b.as_fraction()
    assert (a < b) == (a.as_fraction() < b.as_fraction())
    assert (a == b) == (a.as_fraction() == b.as_fraction())


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_format_milli_agrees_with_from_milli(milli: int) -> None:
    assert format_milli(milli) == str(Quantity.from_milli(milli))
    assert Quantity.parse(format_milli(milli)).milli_value() == milli


# Boundaries of the BinarySI slow path: capped above 2**63-1, decimal below exactly one.
BINARY_SLOW_PATH = [
    ("0.0009765625Ki", "1", "BinarySI"),  # exactly one: stays binary
    ("0.00097656249Ki", "999999990n", "DecimalSI"),  # just below one
    ("0.0009765626Ki", "1000000103n", "BinarySI"),  # just above one
    ("8191.999999999999999Pi", "9223372036854775806874100094n", "BinarySI"),  # under the cap
    ("7.99999999999999999999Ei", "9223372036854775807", "BinarySI"),  # rounds past it
    ("8.0000000000000000001Ei", "9223372036854775807", "BinarySI"),  # over it
]


@pytest.mark.parametrize(
    ("text", "printed", "fmt"), BINARY_SLOW_PATH, ids=[t for t, _, _ in BINARY_SLOW_PATH]
)
def test_binary_slow_path_boundaries(text: str, printed: str, fmt: str) -> None:
    quantity = parse_quantity(text)
    assert str(quantity) == printed
    assert quantity.format == fmt


_FORMAT_NAMES = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Format",
    "QuantityError",
    "format_milli",
]


@pytest.mark.parametrize("name", _FORMAT_NAMES, ids=_FORMAT_NAMES)
def test_text_side_names_are_reexported(name: str) -> None:
    import podscale.api.quantity as quantity
    import podscale.api.quantity_format as quantity_format

    assert name in quantity.__all__
    assert getattr(quantity, name) is getattr(quantity_format, name)


@pytest.mark.parametrize(
    ("text", "triple"),
    [("1500m", (1500, -3, "DecimalSI", "1500m")), ("12Ki", (12288, 0, "BinarySI", "12Ki"))],
    ids=["decimal", "binary-echoed"],
)
def test_scan_quantity_needs_no_quantity_type(
    text: str, triple: tuple[int, int, str, str | None]
) -> None:
    from podscale.api.quantity_format import scan_quantity

    assert scan_quantity(text) == triple
