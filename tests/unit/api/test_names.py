"""podscale.api.names: the pure name/label checks, and their re-export by validation.names.

Detail strings follow upstream ``content``/``validation`` helpers (dns.go, kube.go): limits
count UTF-8 bytes like Go's ``len`` while the message says "characters".
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import podscale.api.names as names
import podscale.api.validation.names as validation_names

LABEL_VALUE_HELP = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

BYTE_LENGTHS = [
    ("", 0),
    ("abc", 3),
    ("é", 2),
    ("€", 3),
    ("\U0001f600", 4),
    ("\ud800", 3),  # a lone surrogate, which JSON text can carry
]


@pytest.mark.parametrize(("text", "length"), BYTE_LENGTHS, ids=[repr(t) for t, _ in BYTE_LENGTHS])
def test_byte_len_counts_utf8_like_go(text: str, length: int) -> None:
    assert names.byte_len(text) == length


LABEL_VALUES = [
    ("", []),
    ("v" * 63, []),
    ("v" * 64, ["must be no more than 63 characters"]),
    # 32 two-byte characters are 64 bytes: over the limit, and outside the regex.
    ("é" * 32, ["must be no more than 63 characters", LABEL_VALUE_HELP]),
    ("\ud800", [LABEL_VALUE_HELP]),
]


@pytest.mark.parametrize(
    ("value", "details"), LABEL_VALUES, ids=["empty", "63", "64", "multibyte", "surrogate"]
)
def test_label_values_count_bytes_and_say_characters(value: str, details: list[str]) -> None:
    assert names.is_valid_label_value(value) == details


QUALIFIED_NAMES = [
    ("a", []),
    ("example.com/" + "n" * 63, []),
    ("n" * 64, ["name part must be no more than 63 characters"]),
    ("p" * 254 + "/n", ["prefix part must be no more than 253 characters"]),
    ("/n", ["prefix part must be non-empty"]),
]


@pytest.mark.parametrize(
    ("key", "details"),
    QUALIFIED_NAMES,
    ids=["plain", "prefixed", "long", "long-prefix", "no-prefix"],
)
def test_qualified_names(key: str, details: list[str]) -> None:
    assert names.is_qualified_name(key) == details


ANNOTATIONS = [
    ({}, 0),
    ({"a": "bc"}, 3),
    ({"k": "é", "x/y": 12}, 1 + 2 + 3 + 2),
]


@pytest.mark.parametrize(("annotations", "size"), ANNOTATIONS, ids=["empty", "ascii", "mixed"])
def test_annotations_size_sums_key_and_value_bytes(
    annotations: dict[str, object], size: int
) -> None:
    assert names.annotations_size(annotations) == size


# The exact public surface of validation.names before the split; importers rely on it.
VALIDATION_NAMES_ALL = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "TOTAL_ANNOTATION_SIZE_LIMIT_BYTES",
    "NameValidator",
    "annotations_size",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "max_len_error",
    "regex_error",
    "validate_annotations",
    "validate_dns1035_label_name",
    "validate_dns1123_label_name",
    "validate_dns1123_subdomain_name",
    "validate_label_name",
    "validate_label_selector",
    "validate_labels",
    "validate_namespace_name",
    "validate_path_segment_name",
]


def test_validation_names_keeps_its_public_surface() -> None:
    assert sorted(validation_names.__all__) == sorted(VALIDATION_NAMES_ALL)
    for name in VALIDATION_NAMES_ALL:
        assert hasattr(validation_names, name), name


SHARED = [name for name in VALIDATION_NAMES_ALL if name in names.__all__]


@pytest.mark.parametrize("name", SHARED, ids=SHARED)
def test_validation_names_reexports_the_pure_checks(name: str) -> None:
    assert getattr(validation_names, name) is getattr(names, name)


def test_shared_checks_cover_every_pure_export() -> None:
    # Only the FieldError builders stay in validation.names.
    assert set(VALIDATION_NAMES_ALL) - set(SHARED) == {
        "validate_annotations",
        "validate_label_name",
        "validate_label_selector",
        "validate_labels",
    }


def test_names_module_imports_nothing_from_podscale() -> None:
    spec = importlib.util.find_spec("podscale.api.names")
    assert spec is not None
    assert spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    imported = {
        alias.name if isinstance(node, ast.Import) else (node.module or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not {module for module in imported if module.startswith("podscale")}


def test_validation_wraps_the_same_details_in_field_errors() -> None:
    from podscale.api.field_errors import FieldPath

    errors = validation_names.validate_labels({"k": "é" * 32}, FieldPath("metadata", "labels"))
    assert [e.detail for e in errors] == names.is_valid_label_value("é" * 32)
