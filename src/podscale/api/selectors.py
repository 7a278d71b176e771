"""Label selectors: the public entry point, and ``LabelSelector`` conversion and printing.

The HPA controller converts the scale target's ``status.selector`` string with
:func:`parse_selector` and matches every pod against it on every sync, so requirements are
precompiled at construction. The ``scale`` subresource writes ``status.selector`` with
:func:`label_selector_to_string`; ``kubectl``-style printing uses :func:`format_label_selector`.

Mirrors ``staging/.../pkg/labels/selector.go`` and ``pkg/apis/meta/v1/helpers.go``:
canonical strings sort requirements by key and multi-value sets by value, ``Nothing()``
prints as ``""`` and matches nothing, and errors carry upstream's exact texts (including
the ``<nil>:`` field path the string parser reports for a bad key).

The model (``Requirement``, ``Selector``, ``new_requirement``) lives in
``podscale.api.selector_model`` and the string parser in ``podscale.api.selector_parser``;
both are re-exported here, so callers import everything from this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

from podscale.api.selector_model import (
    BINARY_OPERATORS,
    OPERATORS,
    Operator,
    Requirement,
    Selector,
    SelectorError,
    go_quote,
    new_requirement,
    selector_from_set,
)
from podscale.api.selector_parser import parse_selector

__all__ = [
    "BINARY_OPERATORS",
    "OPERATORS",
    "Operator",
    "Requirement",
    "Selector",
    "SelectorError",
    "format_label_selector",
    "label_selector_to_string",
    "new_requirement",
    "parse_selector",
    "selector_from_label_selector",
    "selector_from_set",
]

_EVERYTHING: Final = Selector.everything()
_NOTHING: Final = Selector.nothing()

_LABEL_SELECTOR_OPERATORS: Final[dict[str, Operator]] = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!",
}


def selector_from_label_selector(label_selector: Mapping[str, Any] | None) -> Selector:
    """Upstream ``metav1.LabelSelectorAsSelector`` over a JSON ``LabelSelector``.

    ``None`` selects nothing, ``{}`` everything. matchLabels become ``key=value``;
    matchExpressions map In/NotIn/Exists/DoesNotExist; errors read as upstream's.
    """
    if label_selector is None:
        return _NOTHING
    try:
        key = orjson.dumps(label_selector)
    except TypeError:  # not plain JSON: parse it every time
        return _parse_label_selector(label_selector)
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = _parse_label_selector(label_selector)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = parsed
    return parsed


# Parsed selectors by their JSON text (in the given key order, so an error names the same
# requirement first): controllers parse the same few selectors at every sync. Selectors are
# immutable values; an invalid selector raises every time and is never kept.
_PARSED: dict[bytes, Selector] = {}
_PARSED_MAX = 4096


def _parse_label_selector(label_selector: Mapping[str, Any]) -> Selector:
    match_labels: Mapping[str, str] = label_selector.get("matchLabels") or {}
    expressions: Iterable[Mapping[str, Any]] = label_selector.get("matchExpressions") or []
    expressions = list(expressions)
    if not match_labels and not expressions:
        return _EVERYTHING
    requirements = [new_requirement(k, "=", [v]) for k, v in match_labels.items()]
    for expression in expressions:
        operator_name = expression.get("operator", "")
        operator = _LABEL_SELECTOR_OPERATORS.get(operator_name)
        if operator is None:
            raise SelectorError(
                f"{go_quote(str(operator_name))} is not a valid label selector operator"
            )
        values = expression.get("values")
        requirements.append(
            new_requirement(expression.get("key", ""), operator, list(values) if values else None)
        )
    return _EVERYTHING.add(*requirements)


def label_selector_to_string(label_selector: Mapping[str, Any] | None) -> str:
    """Canonical string of a ``LabelSelector`` (what ``scale`` puts in ``status.selector``)."""
    return str(selector_from_label_selector(label_selector))


def format_label_selector(label_selector: Mapping[str, Any] | None) -> str:
    """Upstream ``metav1.FormatLabelSelector``: ``<none>`` when empty, ``<error>`` if invalid."""
    try:
        text = label_selector_to_string(label_selector)
    except SelectorError:
        return "<error>"
    return text or "<none>"
