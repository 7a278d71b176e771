"""The small part of Go's ``text/template`` that prometheus-adapter rules use, with ``<< >>``.

Rule templates (``metricsQuery`` and ``resources.template``) only ever print fields of one
argument struct: ``<<.Series>>``, ``<<.LabelMatchers>>``, ``<<.GroupBy>>``,
``<<.LabelValuesByName.pod>>``, ``<<.Group>>``... This module parses exactly that (plus
Go's ``<<-`` / ``->>`` whitespace trimming) at config load time, so a typo such as
``<<.Serie>>`` fails when the rules are loaded, not on the first HPA sync. Any other action
(pipelines, ``if``, functions) is refused with a clear message rather than half-supported.

Printing follows Go: a list prints as ``[a b]``, a map as ``map[k:v]`` with sorted keys.
A missing map key is an error here (Go would print ``<no value>`` into the query).
Neighbours: ``config`` parses templates, ``queries`` and ``resources`` render them.
Hand-written on purpose: Python's template engines (Jinja2, ``string.Template``) have
neither Go's syntax nor its printing of values, and this subset is all the rules use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["GoTemplate", "TemplateError", "TemplateValue", "parse_template"]

TemplateValue = str | Sequence[str] | Mapping[str, str]

_ACTION: Final = re.compile(r"<<(-\s)?\s*(.*?)\s*(\s-)?>>", re.DOTALL)
_FIELD_CHAIN: Final = re.compile(r"((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


class TemplateError(ValueError):
    """A template that does not parse, or cannot be rendered with the values given."""


@dataclass(frozen=True, slots=True)
class _Field:
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GoTemplate:
    """A parsed template: literal text and field references, in order."""

    source: str
    parts: tuple[str | _Field, ...]

    @property
    def fields(self) -> frozenset[str]:
        """The top-level fields referenced (``Series``, ``Group``...)."""
        return frozenset(part.path[0] for part in self.parts if isinstance(part, _Field))

    def render(self, values: Mapping[str, TemplateValue]) -> str:
        out: list[str] = []
        for part in self.parts:
            out.append(part if isinstance(part, str) else _print(_lookup(values, part.path)))
        return "".join(out)

    def to_regex(self, captures: Mapping[str, str]) -> re.Pattern[str]:
        """A full-match regex for this template's output, each field a lazy (maybe empty) group.

        Used to read a group-resource back out of a label name built by the template;
        ``captures`` maps a field name to its group name.
        """
        pieces: list[str] = []
        seen: set[str] = set()
        for part in self.parts:
            if isinstance(part, str):
                pieces.append(re.escape(part))
                continue
            name = captures[part.path[0]]
            pieces.append(f"(?P={name})" if name in seen else f"(?P<{name}>.*?)")
            seen.add(name)
        return re.compile("".join(pieces))


def parse_template(source: str, allowed_fields: frozenset[str]) -> GoTemplate:
    """Parse ``source``; only ``.Field`` chains rooted in ``allowed_fields`` are accepted."""
    parts: list[str | _Field] = []
    position = 0
    for match in _ACTION.finditer(source):
        literal = source[position : match.start()]
        if match.group(1):
            literal = literal.rstrip()
        if literal:
            parts.append(literal)
        parts.append(_parse_action(match.group(2), allowed_fields))
        position = match.end()
        if match.group(3):
            while position < len(source) and source[position].isspace():
                position += 1
    tail = source[position:]
    if "<<" in tail:
        raise TemplateError(f"unclosed action in template {source!r}")
    if tail:
        parts.append(tail)
    return GoTemplate(source, tuple(parts))


def _parse_action(action: str, allowed_fields: frozenset[str]) -> _Field:
    if _FIELD_CHAIN.fullmatch(action) is None:
        raise TemplateError(
            f"unsupported action <<{action}>>: only field references like <<.Series>> are allowed"
        )
    path = tuple(action.split(".")[1:])
    if path[0] not in allowed_fields:
        known = ", ".join(f".{name}" for name in sorted(allowed_fields))
        raise TemplateError(f"unknown field .{path[0]} in <<{action}>> (known: {known})")
    return _Field(path)


def _lookup(values: Mapping[str, TemplateValue], path: tuple[str, ...]) -> TemplateValue:
    value: TemplateValue = values[path[0]]
    for key in path[1:]:
        if not isinstance(value, Mapping):
            raise TemplateError(f"can't evaluate field {key} in <<.{'.'.join(path)}>>")
        if key not in value:
            raise TemplateError(f"map has no entry for key {key!r} in <<.{'.'.join(path)}>>")
        value = value[key]
    return value


def _print(value: TemplateValue) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{k}:{value[k]}" for k in sorted(value)) + "]"
    return "[" + " ".join(value) + "]"
