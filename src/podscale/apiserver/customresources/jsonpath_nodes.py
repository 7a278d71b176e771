"""Kubernetes JSONPath templates (client-go ``util/jsonpath``): the syntax tree.

upstream's ``parse.Node`` types as frozen dataclasses: a ``Template`` is text and actions
(one ``{...}`` each), an ``Action`` a sequence of nodes (``Field``, ``Wildcard``,
``Recursive``, ``Slice``, ``Union``, ``Filter``, ``Literal``, ``Identifier``, ``Text``), and
``JsonPathError`` the error of a template that does not parse or evaluate.
``customresources.jsonpath`` builds the tree (``parse``); ``customresources.jsonpath_find``
walks it. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Action",
    "Field",
    "Filter",
    "Identifier",
    "JsonPathError",
    "Literal",
    "Node",
    "Recursive",
    "Slice",
    "Template",
    "Text",
    "Union",
    "Wildcard",
]


class JsonPathError(ValueError):
    """A template that does not parse, or an evaluation error (wrong types, bad index)."""


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Field:
    name: str


@dataclass(frozen=True)
class Wildcard:
    pass


@dataclass(frozen=True)
class Recursive:
    pass


@dataclass(frozen=True)
class Literal:
    """An int, float or bool literal: evaluates to itself once per input value."""

    value: int | float | bool


@dataclass(frozen=True)
class Identifier:
    name: str


@dataclass(frozen=True)
class Slice:
    """``[start:end:cap]``; None for an omitted bound. ``derived`` marks a single index."""

    start: int | None
    end: int | None
    cap: int | None
    derived: bool


@dataclass(frozen=True)
class Union:
    branches: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True)
class Filter:
    left: tuple[Node, ...]
    right: tuple[Node, ...]
    operator: str  # "exists" for a bare [?(@.x)]


@dataclass(frozen=True)
class Action:
    """One ``{...}``: its nodes apply in sequence."""

    nodes: tuple[Node, ...]


Node = Text | Field | Wildcard | Recursive | Literal | Identifier | Slice | Union | Filter | Action


@dataclass(frozen=True)
class Template:
    parts: tuple[Text | Action, ...]
