"""Pure string checks for names, label keys and label values (no field paths).

The ``is_*`` predicates return upstream's detail strings (an empty list when the value is
fine); the ``validate_*_name`` functions are upstream's ``ValidateNameFunc`` family. They
live apart from ``podscale.api.validation.names`` (which wraps them into ``FieldError``
lists) so that ``podscale.api.selectors`` can reuse them without importing the validation
package, whose ``apps`` module imports selectors. This module imports nothing from
podscale. Spec: apimachinery ``pkg/api/validate/content`` (``dns.go``, ``kube.go``),
``pkg/util/validation/validation.go`` and ``pkg/api/validation/path/name.go``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = [
    "DNS1035_LABEL_MAX_LENGTH",
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_KEY_NAME_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "TOTAL_ANNOTATION_SIZE_LIMIT_BYTES",
    "NameValidator",
    "annotations_size",
    "byte_len",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "max_len_error",
    "regex_error",
    "validate_dns1035_label_name",
    "validate_dns1123_label_name",
    "validate_dns1123_subdomain_name",
    "validate_namespace_name",
    "validate_path_segment_name",
]

#: ``(name, prefix) -> details``: upstream's ``ValidateNameFunc``; ``prefix`` is true for a
#: ``generateName`` that will get a random suffix appended.
NameValidator = Callable[[str, bool], list[str]]

DNS1123_LABEL_MAX_LENGTH: Final = 63
DNS1123_SUBDOMAIN_MAX_LENGTH: Final = 253
DNS1035_LABEL_MAX_LENGTH: Final = 63
LABEL_KEY_NAME_MAX_LENGTH: Final = 63
LABEL_VALUE_MAX_LENGTH: Final = 63
TOTAL_ANNOTATION_SIZE_LIMIT_BYTES: Final = 256 * 1024

_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT: Final = "(" + _LABEL_KEY_FMT + ")?"

# Go's regexp anchors ``^...$`` match the whole text only; ``fullmatch`` is the equivalent
# (Python's ``$`` would also accept a trailing newline).
_DNS1123_LABEL_RE: Final = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE: Final = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE: Final = re.compile(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE: Final = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE: Final = re.compile(_LABEL_VALUE_FMT)

_DNS1123_LABEL_MSG: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG: Final = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """Upstream ``RegexError``: the rule, optional examples, then the regex itself."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def byte_len(value: str) -> int:
    """Go's ``len()``: UTF-8 bytes, the unit the limits are stated in.

    ``surrogatepass`` keeps a lone surrogate (which JSON can carry) countable instead of
    raising; such text then simply fails the regex check.
    """
    return len(value.encode("utf-8", "surrogatepass"))


def is_dns1123_label(value: str) -> list[str]:
    errors: list[str] = []
    if byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            # A valid subdomain that is not a label can only be failing on its dots.
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    errors: list[str] = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_dns1035_label(value: str) -> list[str]:
    errors: list[str] = []
    if byte_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errors.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    """A label key: an optional DNS-subdomain prefix and ``/``, then a 63-character name."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errors: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    if not name:
        errors.append("name part must be non-empty")
    elif byte_len(name) > LABEL_KEY_NAME_MAX_LENGTH:
        errors.append("name part " + max_len_error(LABEL_KEY_NAME_MAX_LENGTH))
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append(
            "name part "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors: list[str] = []
    if byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errors.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """Names that become URL path segments: never ``.``/``..`` and never ``/`` or ``%``.

    With ``prefix`` (a ``generateName``) the exact-name rule is skipped, because the
    random suffix makes ``.`` harmless.
    """
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in name]


def _mask_trailing_dash(name: str) -> str:
    # Upstream's maskTrailingDash swaps the last *two* characters for "a"; kept as is so
    # generateName lengths are judged exactly like a real server does.
    if name.endswith("-"):
        return name[:-2] + "a" if len(name) >= 2 else "a"
    return name


def validate_dns1123_subdomain_name(name: str, prefix: bool) -> list[str]:
    """Upstream ``NameIsDNSSubdomain``: the name rule of most kinds (Pod, Deployment, HPA)."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def validate_dns1123_label_name(name: str, prefix: bool) -> list[str]:
    """Upstream ``NameIsDNSLabel``: namespaces (and Services) use this stricter rule."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def validate_dns1035_label_name(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


validate_namespace_name: Final[NameValidator] = validate_dns1123_label_name


def annotations_size(annotations: Mapping[str, Any]) -> int:
    """Bytes of every key plus every value, as upstream totals them against the limit."""
    return sum(byte_len(key) + byte_len(str(value)) for key, value in annotations.items())
