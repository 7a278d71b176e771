"""The formats a CRD schema may use, and Go's printing of numbers and values."""

from __future__ import annotations

import pytest

from podscale.api.schema.formats import SUPPORTED_FORMATS, check_format, supported_format
from podscale.api.schema.gofmt import go_float, go_json, go_syntax

FORMATS = [
    ("bsonobjectid", "507f1f77bcf86cd799439011", "507f1f77bcf86cd79943901"),
    ("uri", "https://example.com/a?b=c", "example.com"),
    ("email", "ops@example.com", "ops.example.com"),
    ("hostname", "api.example.com", "-bad-.example.com"),
    ("ipv4", "10.0.0.1", "10.0.0.256"),
    ("ipv6", "fd00::1", "10.0.0.1"),
    ("cidr", "10.0.0.0/8", "10.0.0.0/33"),
    ("mac", "00:00:5e:00:53:01", "00:00:5e:00:53"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
    ("uuid3", "a3bb189e-8bf9-3888-9912-ace4e6543002", "a3bb189e-8bf9-4888-9912-ace4e6543002"),
    ("uuid4", "9b2f8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "9b2f8a4e-1c2d-3e5f-8a9b-0c1d2e3f4a5b"),
    ("uuid5", "9b2f8a4e-1c2d-5e5f-8a9b-0c1d2e3f4a5b", "9b2f8a4e-1c2d-5e5f-7a9b-0c1d2e3f4a5b"),
    ("isbn10", "0321751043", "0321751044"),
    ("isbn13", "978-0321751041", "978-0321751042"),
    ("isbn", "0321751043", "12345"),
    ("creditcard", "4111 1111 1111 1111", "4111 1111 1111 1112"),
    ("ssn", "123-45-6789", "123456789"),
    ("hexcolor", "#FFAA00", "#FFAA0"),
    ("rgbcolor", "rgb(255, 0, 10)", "rgb(256,0,0)"),
    ("byte", "aGVsbG8=", "aGVsbG8"),
    ("date", "2024-02-29", "2023-02-29"),
    ("datetime", "2024-03-20T14:30:00Z", "2024-03-20 14:30:00"),
    ("duration", "1h30m", "soon"),
]


@pytest.mark.parametrize(("name", "good", "bad"), FORMATS, ids=[f[0] for f in FORMATS])
def test_format_accepts_and_rejects(name: str, good: str, bad: str) -> None:
    assert check_format(name, good)
    assert not check_format(name, bad)


def test_every_supported_format_has_a_case() -> None:
    assert SUPPORTED_FORMATS - {f[0] for f in FORMATS} == {"password"}


@pytest.mark.parametrize(
    ("declared", "registry"),
    [
        ("date-time", "datetime"),
        ("int32", ""),
        ("int64", ""),
        ("double", ""),
        ("Email", ""),
        (None, ""),
    ],
    ids=["dash-dropped", "int32", "int64", "double", "case-sensitive", "absent"],
)
def test_supported_format_names(declared: object, registry: str) -> None:
    assert supported_format(declared) == registry


def test_duration_accepts_the_loose_strfmt_spellings() -> None:
    assert check_format("duration", "3 days")
    assert check_format("duration", "22 ns")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.5, "0.5"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
        (1e21, "1e+21"),
    ],
    ids=["one", "half", "1e5", "1e6", "7-digits", "1e-4", "1e-5", "negative", "1e21"],
)
def test_go_float_is_percent_v(value: float, text: str) -> None:
    assert go_float(value) == text


def test_go_json_and_go_syntax() -> None:
    value = {"b": [1, 2.0, "x<"], "a": None, "c": True}
    assert go_json(value) == '{"a":null,"b":[1,2,"x\\u003c"],"c":true}'
    assert go_syntax(value) == (
        'map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, 2, "x<"}, "c":true}'
    )
