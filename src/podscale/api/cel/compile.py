"""CRD-time checks of every ``x-kubernetes-validations`` entry in an OpenAPI v3 schema.

``check_rules(schema, path)`` walks a CRD version's ``openAPIV3Schema`` (``path`` names it,
e.g. ``spec.versions[0].schema.openAPIV3Schema``) through ``properties[name]``, ``items``,
``additionalProperties`` and ``allOf[i]`` and reports, as kube-apiserver's CRD validation
does: an empty rule (``Required``), bad ``message`` / ``messageExpression`` / ``reason`` /
``fieldPath`` values, rules that do not compile (``compilation failed: ERROR: ...``, with the
rule struct as the bad value, printed as Go does) or do not yield a bool, message expressions
that do not compile, and transition rules (``oldSelf``) under list items that cannot be
correlated with their old value. Cost estimation is not modelled. Neighbours:
``podscale.api.cel.engine`` compiles, ``podscale.api.cel.rules`` parses. Pure.
"""

from __future__ import annotations

import re
from typing import Any, Final

from podscale.api.cel.engine import CelCompileError, compile_expression
from podscale.api.cel.rules import REASONS, FieldPathError, Rule, field_path, rules_of
from podscale.api.field_errors import FieldError, FieldPath, invalid, not_supported, required

__all__ = ["check_rules"]

_NEWLINES: Final = re.compile(r"[\n\r]+")
_MAX_MESSAGE: Final = 2048
_NOT_BOOL: Final = frozenset({"INT", "UINT", "DOUBLE", "STRING", "BYTES", "NULL_TYPE"})


def _entry_errors(rule: Rule, schema: dict[str, Any], at: FieldPath) -> list[FieldError]:
    """Upstream's static checks of one entry (before any compilation)."""
    errors: list[FieldError] = []
    trimmed_message = rule.message.strip()
    if not rule.rule.strip():
        errors.append(required(at.child("rule"), "rule is not specified"))
    elif rule.message and not trimmed_message:
        errors.append(
            invalid(at.child("message"), rule.message, "message must be non-empty if specified")
        )
    elif len(rule.message) > _MAX_MESSAGE:
        errors.append(
            invalid(
                at.child("message"),
                rule.message[:10] + "...",
                f"message must have a maximum length of {_MAX_MESSAGE} characters",
            )
        )
    elif _NEWLINES.search(trimmed_message):
        errors.append(
            invalid(at.child("message"), rule.message, "message must not contain line breaks")
        )
    elif _NEWLINES.search(rule.rule.strip()) and not trimmed_message:
        errors.append(
            required(at.child("message"), "message must be specified if rule contains line breaks")
        )
    if rule.message_expression and not rule.message_expression.strip():
        errors.append(
            required(
                at.child("messageExpression"), "messageExpression must be non-empty if specified"
            )
        )
    if rule.reason is not None and rule.reason not in REASONS:
        errors.append(not_supported(at.child("reason"), rule.reason, REASONS))
    if rule.field_path:
        if not rule.field_path.strip():
            errors.append(
                invalid(
                    at.child("fieldPath"),
                    rule.field_path,
                    "fieldPath must be non-empty if specified",
                )
            )
        if _NEWLINES.search(rule.field_path):
            errors.append(
                invalid(
                    at.child("fieldPath"), rule.field_path, "fieldPath must not contain line breaks"
                )
            )
        try:
            field_path(rule.field_path, schema)
        except FieldPathError as error:
            errors.append(
                invalid(
                    at.child("fieldPath"),
                    rule.field_path,
                    f"fieldPath must be a valid path: {error}",
                )
            )
    return errors


def _compile_errors(rule: Rule, at: FieldPath, uncorrelatable: str | None) -> list[FieldError]:
    errors: list[FieldError] = []
    if rule.rule.strip():
        try:
            compiled = compile_expression(rule.rule)
        except CelCompileError as error:
            errors.append(
                invalid(at.child("rule"), rule.go_syntax(), f"compilation failed: {error}")
            )
        else:
            if compiled.result_type in _NOT_BOOL or compiled.result_type.startswith(
                ("LIST", "MAP")
            ):
                errors.append(
                    invalid(
                        at.child("rule"), rule.go_syntax(), "cel expression must evaluate to a bool"
                    )
                )
            elif compiled.uses_old_self and uncorrelatable is not None:
                detail = (
                    "oldSelf cannot be used on the uncorrelatable portion of the schema "
                    f"within {uncorrelatable}"
                )
                errors.append(invalid(at.child("rule"), rule.rule, detail))
    if rule.message_expression.strip():
        try:
            message = compile_expression(rule.message_expression)
        except CelCompileError as error:
            detail = f"messageExpression compilation failed: {error}"
            errors.append(invalid(at.child("messageExpression"), rule.go_syntax(), detail))
        else:
            if message.result_type not in ("STRING", "DYN"):
                detail = "messageExpression must evaluate to a string"
                errors.append(invalid(at.child("messageExpression"), rule.go_syntax(), detail))
    return errors


def _walk(schema: Any, at: FieldPath, uncorrelatable: str | None, errors: list[FieldError]) -> None:
    if not isinstance(schema, dict):
        return
    rules = rules_of(schema)
    node_errors: list[FieldError] = []
    for i, rule in enumerate(rules):
        node_errors.extend(
            _entry_errors(rule, schema, at.child("x-kubernetes-validations").index(i))
        )
    # Upstream compiles a node's rules only when its schema checks found nothing.
    if not node_errors:
        for i, rule in enumerate(rules):
            entry = at.child("x-kubernetes-validations").index(i)
            node_errors.extend(_compile_errors(rule, entry, uncorrelatable))
    errors.extend(node_errors)
    # A malformed schema (``properties`` not a map, ``allOf`` not a list) is reported by the
    # schema checks; the rules beneath it are not walked.
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            _walk(sub, at.child("properties").key(name), uncorrelatable, errors)
    items = schema.get("items")
    if isinstance(items, dict):
        items_at = at.child("items")
        # Only list-type map items correlate with their old value (by key).
        keeps = schema.get("x-kubernetes-list-type") == "map"
        _walk(
            items, items_at, uncorrelatable if keeps else (uncorrelatable or str(items_at)), errors
        )
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        _walk(extra, at.child("additionalProperties"), uncorrelatable, errors)
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        for i, sub in enumerate(all_of):
            _walk(sub, at.child("allOf").index(i), uncorrelatable, errors)


def check_rules(schema: dict[str, Any], path: FieldPath | str) -> list[FieldError]:
    """Every CRD-time error of the ``x-kubernetes-validations`` in ``schema``, upstream-worded."""
    errors: list[FieldError] = []
    root = path if isinstance(path, FieldPath) else FieldPath(*([path] if path else []))
    _walk(schema, root, None, errors)
    return errors
