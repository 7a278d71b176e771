"""Label selector model: upstream ``labels.Requirement``, ``labels.Selector`` and errors.

Requirements are precompiled into matcher closures at construction, because the HPA
controller matches every pod against the scale target's selector on every sync.
:func:`new_requirement` validates like upstream ``labels.NewRequirement`` (label key and
value checks come from ``podscale.api.names``) and raises :class:`SelectorError` with
upstream's exact text. Neighbours: ``podscale.api.selector_parser`` builds these from
strings, ``podscale.api.selectors`` from ``LabelSelector`` objects and is the public
entry point re-exporting this module. Spec: ``staging/.../pkg/labels/selector.go``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from podscale.api.names import is_qualified_name, is_valid_label_value

__all__ = [
    "BINARY_OPERATORS",
    "OPERATORS",
    "Operator",
    "Requirement",
    "Selector",
    "SelectorError",
    "go_quote",
    "new_requirement",
    "selector_from_set",
]

Operator = Literal["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"]
# Upstream's order matters: it is printed in parser errors and "supported values".
BINARY_OPERATORS: Final[tuple[Operator, ...]] = ("in", "notin", "=", "==", "!=", "gt", "lt")
OPERATORS: Final[tuple[Operator, ...]] = (*BINARY_OPERATORS, "exists", "!")

_MIN_INT64: Final = -(1 << 63)
_MAX_INT64: Final = (1 << 63) - 1


class SelectorError(ValueError):
    """A selector upstream refuses; ``str()`` is upstream's error text."""


def go_quote(text: str) -> str:
    """Go's ``%q`` for the label texts we meet (shared with the parser's error texts)."""
    out = ['"']
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, f"\\u{ord(ch):04x}"))
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _go_string_slice(values: Sequence[str] | None) -> str:
    """Go's ``%#v`` of a ``[]string``, which is how upstream field errors print value lists."""
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def _parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``, or None where Go reports an error."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if _MIN_INT64 <= value <= _MAX_INT64 else None


def _aggregate(messages: list[str]) -> str:
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# -- requirements ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requirement:
    """One ``key op values`` clause. Unvalidated; build checked ones with ``new_requirement``."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()
    _match: Callable[[Mapping[str, str]], bool] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_match", _compile(self))

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self._match(labels)

    def __str__(self) -> str:
        if self.operator == "!":
            return "!" + self.key
        if self.operator == "exists":
            return self.key
        symbol = _OPERATOR_TEXT[self.operator]
        joined = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if self.operator in ("in", "notin"):
            return f"{self.key}{symbol}({joined})"
        return f"{self.key}{symbol}{joined}"


_OPERATOR_TEXT: Final[dict[str, str]] = {
    "=": "=",
    "==": "==",
    "!=": "!=",
    "in": " in ",
    "notin": " notin ",
    "gt": ">",
    "lt": "<",
}


def _compile(req: Requirement) -> Callable[[Mapping[str, str]], bool]:
    key, op, values = req.key, req.operator, req.values
    if op in ("=", "==", "in"):
        if len(values) == 1:
            only = values[0]
            return lambda labels: key in labels and labels[key] == only
        accepted = frozenset(values)
        return lambda labels: key in labels and labels[key] in accepted
    if op in ("!=", "notin"):
        rejected = frozenset(values)
        return lambda labels: key not in labels or labels[key] not in rejected
    if op == "exists":
        return lambda labels: key in labels
    if op == "!":
        return lambda labels: key not in labels
    if op in ("gt", "lt"):
        bound = _parse_go_int64(values[0]) if len(values) == 1 else None
        if bound is None:
            return lambda labels: False
        greater = op == "gt"

        def compare(labels: Mapping[str, str]) -> bool:
            if key not in labels:
                return False
            actual = _parse_go_int64(labels[key])
            if actual is None:
                return False
            return actual > bound if greater else actual < bound

        return compare
    return lambda labels: False


def new_requirement(
    key: str, operator: str, values: Sequence[str] | None, path: str | None = None
) -> Requirement:
    """Upstream ``labels.NewRequirement``: validate, then build.

    ``values=None`` stands for Go's nil slice (it only changes how errors print). ``path``
    prefixes the error field paths, as ``field.WithPath``; upstream defaults to none.
    """
    errors: list[str] = []
    key_errors = is_qualified_name(key)
    prefix = f"{path}." if path else ""
    if key_errors:
        errors.append(f"{prefix}key: Invalid value: {go_quote(key)}: {'; '.join(key_errors)}")
    vals = list(values) if values is not None else []
    shown = _go_string_slice(values)
    values_path = f"{prefix}values"
    if operator in ("in", "notin"):
        if not vals:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "for 'in', 'notin' operators, values set can't be empty"
            )
    elif operator in ("=", "==", "!="):
        if len(vals) != 1:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "exact-match compatibility requires one single value"
            )
    elif operator in ("exists", "!"):
        if vals:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "values set must be empty for exists and does not exist"
            )
    elif operator in ("gt", "lt"):
        if len(vals) != 1:
            errors.append(
                f"{values_path}: Invalid value: {shown}: "
                "for 'Gt', 'Lt' operators, exactly one value is required"
            )
        for i, value in enumerate(vals):
            if _parse_go_int64(value) is None:
                errors.append(
                    f"{values_path}[{i}]: Invalid value: {go_quote(value)}: "
                    "for 'Gt', 'Lt' operators, the value must be an integer"
                )
    else:
        supported = ", ".join(go_quote(op) for op in OPERATORS)
        errors.append(
            f"{prefix}operator: Unsupported value: {go_quote(operator)}: "
            f"supported values: {supported}"
        )
    for i, value in enumerate(vals):
        value_errors = is_valid_label_value(value)
        if value_errors:
            errors.append(
                f"{values_path}[{i}][{key}]: Invalid value: {go_quote(value)}: "
                + "; ".join(value_errors)
            )
    if errors:
        raise SelectorError(_aggregate(errors))
    return Requirement(key, operator, tuple(vals))  # type: ignore[arg-type]


# -- selectors ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selector:
    """A conjunction of requirements, kept sorted by key (upstream ``internalSelector``).

    ``matches_nothing`` marks upstream's ``Nothing()``: it matches no labels, is not
    ``empty()`` and prints as ``""``.
    """

    requirements: tuple[Requirement, ...] = ()
    matches_nothing: bool = False
    _matchers: tuple[Callable[[Mapping[str, str]], bool], ...] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matchers", tuple(r._match for r in self.requirements))

    @staticmethod
    def everything() -> Selector:
        return _EVERYTHING

    @staticmethod
    def nothing() -> Selector:
        return _NOTHING

    def add(self, *requirements: Requirement) -> Selector:
        """A new selector with more requirements, re-sorted by key (stable)."""
        if self.matches_nothing:
            return self
        merged = sorted((*self.requirements, *requirements), key=lambda r: r.key)
        return Selector(tuple(merged))

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.matches_nothing:
            return False
        # A plain loop: this runs for every pod on every sync, and all() over a generator
        # costs noticeably more for the usual one or two requirements.
        for match in self._matchers:  # noqa: SIM110
            if not match(labels):
                return False
        return True

    def empty(self) -> bool:
        return not self.matches_nothing and not self.requirements

    def requires_exact_match(self, label: str) -> str | None:
        """Upstream ``RequiresExactMatch``: the single value ``label`` must have, if any."""
        for requirement in self.requirements:
            if requirement.key == label:
                if requirement.operator in ("=", "==", "in") and len(requirement.values) == 1:
                    return requirement.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


_EVERYTHING: Final = Selector()
_NOTHING: Final = Selector(matches_nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Upstream ``SelectorFromSet``: equality on every pair, no validation."""
    if not labels:
        return _EVERYTHING
    return Selector(tuple(Requirement(k, "=", (v,)) for k, v in sorted(labels.items())))
