"""String formats a CRD schema may declare, checked as kube-apiserver checks them.

Upstream strips every ``format`` that is not in apiextensions-apiserver's supported list
(``pkg/apiserver/validation/formats.go``) before validating, so ``int32``, ``int64``,
``float``, ``double`` and unknown names constrain nothing; the rest are checked by
kube-openapi's ``strfmt`` registry (``govalidator`` underneath). ``supported_format``
normalises a name the way that registry does (dashes dropped: ``date-time`` is
``datetime``); ``check_format`` says whether a string satisfies it. ``value_checks`` uses
both. The network formats lean on ``ipaddress``; the rest are small grammars of our own
that accept what Go's parsers accept.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable
from typing import Final

__all__ = ["SUPPORTED_FORMATS", "check_format", "supported_format"]

_HOSTNAME_RE: Final = re.compile(
    r"^([a-zA-Z0-9]((-?[a-zA-Z0-9]{0,62})?)|([a-zA-Z0-9](([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.)){1,}"
    r"([a-zA-Z0-9])(-?[a-zA-Z0-9]){1,62})$"
)
_UUID_RE: Final = {
    "uuid": re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I),
    "uuid3": re.compile(
        r"^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I
    ),
    "uuid4": re.compile(
        r"^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", re.I
    ),
    "uuid5": re.compile(
        r"^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", re.I
    ),
}
_OCTET: Final = r"(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])"
_RGB_RE: Final = re.compile(rf"^rgb\(\s*{_OCTET}\s*,\s*{_OCTET}\s*,\s*{_OCTET}\s*\)$", re.ASCII)
_HEXCOLOR_RE: Final = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_BASE64_RE: Final = re.compile(
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$"
)
_SSN_RE: Final = re.compile(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$", re.ASCII)
_CREDIT_CARD_RE: Final = re.compile(
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
    r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$",
    re.ASCII,
)
_SPACE_OR_MINUS: Final = re.compile(r"[\s-]+")
_DATE_RE: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$", re.ASCII)
_TIME_RE: Final = re.compile(
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
)
_GO_DURATION_RE: Final = re.compile(
    r"^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$", re.ASCII
)
_LOOSE_DURATION_RE: Final = re.compile(r"(\d+)\s*([A-Za-z\u00b5]+)", re.ASCII)
# strfmt's fallback units: each list's last spelling also matches as a prefix ("hours").
_DURATION_UNITS: Final = (
    ("ns", "nano"),
    ("us", "\u00b5s", "micro"),
    ("ms", "milli"),
    ("s", "sec"),
    ("m", "min"),
    ("h", "hr", "hour"),
    ("d", "day"),
    ("w", "wk", "week"),
)
_MAC_COLON_RE: Final = re.compile(r"^[0-9a-fA-F]{2}(?:([:-])[0-9a-fA-F]{2})+$")
_MAC_DOT_RE: Final = re.compile(r"^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4})+$")
_ATEXT: Final = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_ADDR: Final = rf'(?:{_ATEXT}+(?:\.{_ATEXT}+)*|"[^"\\]*")@(?:{_ATEXT}+(?:\.{_ATEXT}+)*|\[[^\]]*\])'
_EMAIL_RE: Final = re.compile(rf"^(?:{_ADDR}|[^<>]*<{_ADDR}>)$")
_URI_SCHEME_RE: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_BSON_RE: Final = re.compile(r"^[0-9a-fA-F]{24}$")


def _is_hostname(text: str) -> bool:
    # Go's pattern allows Unicode letters and symbols (\p{L}, \p{S}) wherever it allows
    # ASCII letters; fold those to "a" so Python's re can check the rest of the shape.
    folded = "".join("a" if unicodedata.category(ch)[0] in ("L", "S") else ch for ch in text)
    if not _HOSTNAME_RE.match(folded) or len(text.encode()) > 255:
        return False
    return all(len(label.encode()) <= 63 for label in text.split("."))


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if "%" in text:  # Go's net.ParseIP knows no zones
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _is_cidr(text: str) -> bool:
    address, slash, prefix = text.rpartition("/")
    if not slash or not prefix.isascii() or not prefix.isdigit():
        return False
    ip = _parse_ip(address)
    return ip is not None and int(prefix) <= ip.max_prefixlen


def _is_mac(text: str) -> bool:
    if _MAC_COLON_RE.match(text):
        groups = re.split(r"[:-]", text)
        return len(groups) in (6, 8, 20) and len(set(re.findall(r"[:-]", text))) == 1
    if _MAC_DOT_RE.match(text):
        return len(text.split(".")) in (3, 4, 10)
    return False


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _is_date(text: str) -> bool:
    found = _DATE_RE.match(text)
    if not found:
        return False
    year, month, day = (int(g) for g in found.groups())
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def _is_datetime(text: str) -> bool:
    parts = text.lower().split("t")
    if len(text) < 4 or len(parts) < 2 or not _is_date(parts[0]):
        return False
    found = _TIME_RE.match(parts[1])
    if not found:
        return False
    hour, minute, second = found.group(1), found.group(2), found.group(3)
    return hour <= "23" and minute <= "59" and second <= "59"


def _is_duration(text: str) -> bool:
    if text in ("0", "+0", "-0") or _GO_DURATION_RE.match(text):
        return True
    for _, raw_unit in _LOOSE_DURATION_RE.findall(text):
        unit = raw_unit.lower()
        for spellings in _DURATION_UNITS:
            last = len(spellings) - 1
            if any(
                unit == s or (i == last and unit.startswith(s)) for i, s in enumerate(spellings)
            ):
                return True
    return False


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n * 2 > 9 else n * 2
        total += n
    return total % 10 == 0


def _is_credit_card(text: str) -> bool:
    digits = _SPACE_OR_MINUS.sub("", text)
    return bool(_CREDIT_CARD_RE.match(digits)) and _luhn(digits)


def _is_isbn10(text: str) -> bool:
    isbn = _SPACE_OR_MINUS.sub("", text)
    if not re.fullmatch(r"[0-9]{9}X|[0-9]{10}", isbn):
        return False
    total = sum((i + 1) * int(ch) for i, ch in enumerate(isbn[:9]))
    total += 100 if isbn[9] == "X" else 10 * int(isbn[9])
    return total % 11 == 0


def _is_isbn13(text: str) -> bool:
    isbn = _SPACE_OR_MINUS.sub("", text)
    if not re.fullmatch(r"[0-9]{13}", isbn):
        return False
    total = sum((1, 3)[i % 2] * int(ch) for i, ch in enumerate(isbn[:12]))
    return int(isbn[12]) == (10 - total % 10) % 10


def _is_uri(text: str) -> bool:
    # url.ParseRequestURI: an absolute path or an absolute URI, no control characters.
    if not text or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        return False
    if text.startswith("/"):
        return True
    return bool(_URI_SCHEME_RE.match(text))


def _is_ipv4(text: str) -> bool:
    return _parse_ip(text) is not None and "." in text


def _is_ipv6(text: str) -> bool:
    return _parse_ip(text) is not None and ":" in text


_CHECKS: Final[dict[str, Callable[[str], bool]]] = {
    "bsonobjectid": lambda s: bool(_BSON_RE.match(s)),
    "uri": _is_uri,
    "email": lambda s: bool(_EMAIL_RE.match(s)),
    "hostname": _is_hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    "cidr": _is_cidr,
    "mac": _is_mac,
    "uuid": lambda s: bool(_UUID_RE["uuid"].match(s)),
    "uuid3": lambda s: bool(_UUID_RE["uuid3"].match(s)),
    "uuid4": lambda s: bool(_UUID_RE["uuid4"].match(s)),
    "uuid5": lambda s: bool(_UUID_RE["uuid5"].match(s)),
    "isbn": lambda s: _is_isbn10(s) or _is_isbn13(s),
    "isbn10": _is_isbn10,
    "isbn13": _is_isbn13,
    "creditcard": _is_credit_card,
    "ssn": lambda s: len(s) == 11 and bool(_SSN_RE.match(s)),
    "hexcolor": lambda s: bool(_HEXCOLOR_RE.match(s)),
    "rgbcolor": lambda s: bool(_RGB_RE.match(s)),
    "byte": lambda s: bool(_BASE64_RE.match(s)),
    "password": lambda s: True,
    "date": _is_date,
    "duration": _is_duration,
    "datetime": _is_datetime,
}

SUPPORTED_FORMATS: Final = frozenset(_CHECKS)


def supported_format(name: object) -> str:
    """The registry name of a declared format, or "" when upstream ignores it."""
    if not isinstance(name, str):
        return ""
    normalized = name.replace("-", "")
    return normalized if normalized in _CHECKS else ""


def check_format(registry_name: str, text: str) -> bool:
    """Whether ``text`` satisfies ``registry_name`` (a name from ``supported_format``)."""
    check = _CHECKS.get(registry_name)
    return True if check is None else check(text)
