"""Evaluating ``x-kubernetes-validations`` against a custom resource on create and update.

``evaluate(obj, old, schema)`` walks the object with its structural schema (properties,
``additionalProperties``, ``items``, and ``allOf`` entries' rules applied to the same node)
and runs every rule with ``self`` bound to the node's value (``podscale.api.cel.values``).
As kube-apiserver: null values are not validated; a transition rule (one that reads
``oldSelf``) runs only on update where the node correlates with an old value (object fields
by name, ``x-kubernetes-list-type: map`` items by their keys, never other list items); a
false rule reports ``message`` (default ``failed rule: <rule>``) or the string its
``messageExpression`` yields (falling back to the message when that expression fails),
typed by ``reason`` at the node's path plus ``fieldPath``, with the schema type as the bad
value (``spec: Invalid value: "object": ...``); evaluation errors read ``<error> evaluating
rule: <rule>``. Ratcheting (CRDValidationRatcheting, on since 1.30): a non-transition rule
failing on a node equal to its old value becomes a warning instead of an error.
The resource root's path prints as ``<nil>`` (upstream validates from a nil field path).
``validate`` returns the errors alone. Neighbours: ``podscale.api.cel.engine`` runs
programs; ``podscale.api.cel.compile`` checks rules at CRD time. Pure.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.cel.engine import (
    OLD_SELF,
    SELF,
    CelCompileError,
    CelEvalError,
    compile_expression,
)
from podscale.api.cel.engine import evaluate as run
from podscale.api.cel.rules import FieldPathError, Rule, field_path, rules_of
from podscale.api.cel.values import to_cel
from podscale.api.field_errors import FieldError, duplicate, forbidden, invalid, required
from podscale.api.schema.facts import facts

__all__ = ["ROOT_PATH", "Outcome", "evaluate", "validate"]

ROOT_PATH: Final = "<nil>"
_MAX_MESSAGE_BYTES: Final = 5 * 1024
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Outcome:
    errors: tuple[FieldError, ...]
    warnings: tuple[str, ...]


def _child(path: str, name: str) -> str:
    return name if path == ROOT_PATH else f"{path}.{name}"


def _error_for(reason: str | None, path: str, kind: Any, detail: str) -> FieldError:
    if reason == "FieldValueForbidden":
        return forbidden(path, detail)
    if reason == "FieldValueRequired":
        return required(path, detail)
    if reason == "FieldValueDuplicate":
        return duplicate(path, kind)
    return invalid(path, kind, detail)


def _message(rule: Rule, activation: dict[str, Any]) -> str:
    if rule.message_expression.strip():
        try:
            value = run(compile_expression(rule.message_expression), activation)
        except (CelCompileError, CelEvalError):
            value = None
        if isinstance(value, str):
            text = value.strip()
            if text and "\n" not in text and len(text.encode()) <= _MAX_MESSAGE_BYTES:
                return text
    return rule.default_message()


class _Walker:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.warnings: list[str] = []

    def rules(
        self,
        vs: dict[str, Any],
        ns: dict[str, Any],
        value: Any,
        old: Any,
        path: str,
        ratchet: bool,
        root: bool,
    ) -> None:
        kind = ns.get("type") or "object"
        activation: dict[str, Any] | None = None
        for rule in rules_of(vs):
            if not rule.rule.strip():
                continue
            try:
                compiled = compile_expression(rule.rule)
            except CelCompileError as error:
                self.errors.append(invalid(path, kind, f"rule compile error: {error}"))
                continue
            if compiled.uses_old_self and old is _MISSING:
                continue
            if activation is None:
                activation = {SELF: to_cel(value, ns, resource_root=root)}
            if compiled.uses_old_self and OLD_SELF not in activation:
                activation[OLD_SELF] = to_cel(old, ns, resource_root=root)
            try:
                result = run(compiled, activation)
            except CelEvalError as error:
                text = str(error)
                if text.startswith("no such overload"):
                    detail = (
                        f"'{text}': call arguments did not match a supported operator, "
                        f"function or macro signature for rule: {rule.error_text()}"
                    )
                else:
                    detail = f"{text} evaluating rule: {rule.error_text()}"
                self.errors.append(invalid(path, kind, detail))
                continue
            if result is True:
                continue
            at = path
            if rule.field_path:
                # An invalid fieldPath was refused at CRD time; report at the node then.
                with contextlib.suppress(FieldPathError):
                    at = _child(path, field_path(rule.field_path, ns))
            failure = _error_for(rule.reason, at, kind, _message(rule, activation))
            if not compiled.uses_old_self and ratchet:
                self.warnings.append(str(failure))
            else:
                self.errors.append(failure)

    def walk(
        self,
        vs: dict[str, Any],
        ns: dict[str, Any],
        value: Any,
        old: Any,
        path: str,
        ratchet: bool,
        root: bool,
    ) -> None:
        if value is None or not facts(vs).rules:
            return
        self.rules(vs, ns, value, old, path, ratchet, root)
        for sub in vs.get("allOf") or []:
            if isinstance(sub, dict):
                self.walk(sub, ns, value, old, path, ratchet, root)
        if isinstance(value, dict):
            self.walk_map(vs, ns, value, old if isinstance(old, dict) else None, path, ratchet)
        elif isinstance(value, list):
            self.walk_list(vs, ns, value, old if isinstance(old, list) else None, path, ratchet)

    def walk_map(
        self,
        vs: dict[str, Any],
        ns: dict[str, Any],
        value: dict[str, Any],
        old: dict[str, Any] | None,
        path: str,
        ratchet: bool,
    ) -> None:
        vprops, nprops = vs.get("properties") or {}, ns.get("properties") or {}
        vextra, nextra = vs.get("additionalProperties"), ns.get("additionalProperties")
        for key, item in value.items():
            before = old.get(key, _MISSING) if old is not None else _MISSING
            # An absent old value falls back to the parent's equality, as upstream's correlation.
            child_ratchet = (before == item) if before is not _MISSING else ratchet
            if key in vprops and key in nprops:
                sub_v, sub_n, at = vprops[key], nprops[key], _child(path, key)
            elif isinstance(vextra, dict) and isinstance(nextra, dict):
                sub_v, sub_n, at = vextra, nextra, f"{path}[{key}]"
            else:
                continue
            embedded = bool(sub_n.get("x-kubernetes-embedded-resource"))
            self.walk(sub_v, sub_n, item, before, at, child_ratchet, embedded)

    def walk_list(
        self,
        vs: dict[str, Any],
        ns: dict[str, Any],
        value: list[Any],
        old: list[Any] | None,
        path: str,
        ratchet: bool,
    ) -> None:
        vitems, nitems = vs.get("items"), ns.get("items")
        if not isinstance(vitems, dict) or not isinstance(nitems, dict):
            return
        keys = ns.get("x-kubernetes-list-map-keys") or []
        by_key: dict[tuple[Any, ...], Any] = {}
        if old is not None and ns.get("x-kubernetes-list-type") == "map" and keys:
            for entry in old:
                if isinstance(entry, dict):
                    by_key.setdefault(tuple(entry.get(k) for k in keys), entry)
        embedded = bool(nitems.get("x-kubernetes-embedded-resource"))
        for i, item in enumerate(value):
            before: Any = _MISSING
            if by_key and isinstance(item, dict):
                before = by_key.get(tuple(item.get(k) for k in keys), _MISSING)
            child_ratchet = (before == item) if before is not _MISSING else ratchet
            self.walk(vitems, nitems, item, before, f"{path}[{i}]", child_ratchet, embedded)


def evaluate(obj: Any, old: Any, schema: dict[str, Any]) -> Outcome:
    """Errors and ratcheting warnings of the rules in ``schema`` (``old`` None on create)."""
    walker = _Walker()
    before = _MISSING if old is None else old
    walker.walk(
        schema, schema, obj, before, ROOT_PATH, before is not _MISSING and before == obj, True
    )
    return Outcome(tuple(walker.errors), tuple(walker.warnings))


def validate(obj: Any, old: Any, schema: dict[str, Any]) -> list[FieldError]:
    """The field errors of every ``x-kubernetes-validations`` rule (``old`` is None on create)."""
    return list(evaluate(obj, old, schema).errors)
