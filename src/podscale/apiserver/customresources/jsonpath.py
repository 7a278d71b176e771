"""Kubernetes JSONPath templates (client-go ``util/jsonpath``): the parser.

The language kube-apiserver evaluates a CRD's ``additionalPrinterColumns[].jsonPath`` in
(wrapped as ``{<path>}``) and ``kubectl -o jsonpath`` prints with: text outside ``{...}``,
``.field`` (``\\.`` escapes a dot), ``..`` recursive descent, ``*`` / ``[*]``, ``[i]`` (negative
counts from the end), ``[a:b]``, unions ``[0,2]`` / ``['a','b']``, ``['key']``, filters
``[?(@.type=="Ready")]`` with ``== != < > <= >=`` or bare existence, quoted text and number /
boolean literals. Missing keys give no result rather than an error (``AllowMissingKeys``, as the
table convertor sets it). ``range``/``end`` loops are parsed but not evaluated (a column reads
only the first result). No Python JSONPath library fits: jsonpath-ng speaks Goessner's
``$``-rooted dialect, with other filter syntax, no templates and other missing-key rules.

``parse`` builds the syntax tree of ``customresources.jsonpath_nodes`` (whose
``JsonPathError`` it raises). ``customresources.columns`` compiles each column with ``parse``
and reads cells with ``customresources.jsonpath_find.find_results``;
``customresources.jsonpath_text`` renders a result as Go prints it. Values are plain decoded
JSON (dicts, lists, str, int, float, bool, None). Pure.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from podscale.apiserver.customresources.jsonpath_nodes import (
    Action,
    Field,
    Filter,
    Identifier,
    JsonPathError,
    Literal,
    Node,
    Recursive,
    Slice,
    Template,
    Text,
    Union,
    Wildcard,
)

__all__ = ["parse"]


_DICT_KEY: Final = re.compile(r"'([^']*)'")
_SLICE: Final = re.compile(r"(-?\d*)(:-?\d*)?(:-?\d*)?")
_COMPARISON: Final = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)")
_TERMINATORS: Final = frozenset(" \t\r\n.,[]$@{}")


@lru_cache(maxsize=512)
def parse(text: str) -> Template:
    """Parse a template such as ``{.status.replicas}``; JsonPathError if it is malformed."""
    parts: list[Text | Action] = []
    pos = 0
    while pos < len(text):
        brace = text.find("{", pos)
        if brace < 0:
            parts.append(Text(text[pos:]))
            break
        if brace > pos:
            parts.append(Text(text[pos:brace]))
        nodes, pos = _Parser(text, brace + 1).action()
        parts.append(Action(tuple(nodes)))
    return Template(tuple(parts))


def _sub_action(text: str) -> list[Node]:
    """upstream's parseAction: the nodes of ``{text}`` (its first action)."""
    template = parse("{" + text + "}")
    first = template.parts[0]
    return list(first.nodes) if isinstance(first, Action) else []


class _Parser:
    """Scans the inside of one action, from just after ``{`` to its ``}``."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos

    def action(self) -> tuple[list[Node], int]:
        nodes: list[Node] = []
        text = self.text
        while True:
            rest = text[self.pos :]
            if rest.startswith("}"):
                return nodes, self.pos + 1
            if rest.startswith("[?("):
                nodes.append(self._filter())
                continue
            if rest.startswith(".."):
                if nodes and isinstance(nodes[-1], Recursive):
                    raise JsonPathError("invalid multiple recursive descent")
                self.pos += 2
                nodes.append(Recursive())
                if self.pos < len(text) and _alphanumeric(text[self.pos]):
                    nodes.append(self._field())
                continue
            if not rest or rest[0] in "\r\n":
                raise JsonPathError("unclosed action")
            char = rest[0]
            if char in " @$":
                self.pos += 1
            elif char == "[":
                nodes.extend(self._array())
            elif char in "\"'":
                nodes.append(self._quote(char))
            elif char == ".":
                self.pos += 1
                nodes.append(self._field())
            elif char in "+-" or char.isdigit():
                nodes.append(self._number())
            elif _alphanumeric(char):
                nodes.append(self._identifier())
            else:
                raise JsonPathError(f"unrecognized character in action: {char!r}")

    def _field(self) -> Node:
        start = self.pos
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.pos += 2
            elif char in _TERMINATORS:
                break
            else:
                self.pos += 1
        self.pos = min(self.pos, len(text))
        name = text[start : self.pos]
        return Wildcard() if name == "*" else Field(name.replace("\\", ""))

    def _identifier(self) -> Node:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 1
        name = self.text[start : self.pos]
        return Literal(name == "true") if name in ("true", "false") else Identifier(name)

    def _number(self) -> Node:
        start = self.pos
        if self.text[self.pos] in "+-":
            self.pos += 1
        while self.pos < len(self.text) and (
            self.text[self.pos] == "." or self.text[self.pos].isdigit()
        ):
            self.pos += 1
        raw = self.text[start : self.pos]
        if re.fullmatch(r"[+-]?\d+", raw):
            return Literal(int(raw))
        try:
            return Literal(float(raw))
        except ValueError:
            raise JsonPathError(f"cannot parse number {raw}") from None

    def _quote(self, quote: str) -> Node:
        start = self.pos
        self.pos += 1
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] == "\n":
                raise JsonPathError("unterminated quoted string")
            if self.text[self.pos] == quote and self.text[self.pos - 1] != "\\":
                break
            self.pos += 1
        self.pos += 1
        return Text(_unquote(self.text[start + 1 : self.pos - 1]))

    def _array(self) -> list[Node]:
        end = self.pos
        while True:
            end += 1
            if end >= len(self.text) or self.text[end] == "\n":
                raise JsonPathError("unterminated array")
            if self.text[end] == "]":
                break
        inner = self.text[self.pos + 1 : end]
        self.pos = end + 1
        if inner == "*":
            inner = ":"
        pieces = inner.split(",")
        if len(pieces) > 1:
            return [Union(tuple(tuple(_sub_action(f"[{p.strip()}]")) for p in pieces))]
        key = _DICT_KEY.fullmatch(inner)
        if key:
            return _sub_action("." + key.group(1))
        bounds = _SLICE.fullmatch(inner)
        if bounds is None:
            raise JsonPathError(f"invalid array index {inner}")
        start_text, end_text, cap_text = bounds.groups()
        start = int(start_text) if start_text not in ("", "-") else None
        if start_text == "-":
            raise JsonPathError(f"array index {start_text} is not a number")
        if end_text is None:  # a single index: [i] is [i:i+1]
            return [Slice(start, (start or 0) + 1, None, derived=True)]
        return [Slice(start, _bound(end_text), _bound(cap_text), derived=False)]

    def _filter(self) -> Node:
        self.pos += 3
        start = self.pos
        opened = closed = False
        pair = ""
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] == "\n":
                raise JsonPathError("unterminated filter")
            char = self.text[self.pos]
            self.pos += 1
            if char in "\"'":
                if not opened:
                    opened, pair = True, char
                elif char == pair and self.text[self.pos - 2] != "\\":
                    closed = True
            elif char == ")" and opened == closed:
                break
        if self.text[self.pos : self.pos + 1] != "]":
            raise JsonPathError("unclosed array expect ]")
        body = self.text[start : self.pos - 1]
        self.pos += 1
        comparison = _COMPARISON.fullmatch(body)
        if comparison is None:
            return Filter(tuple(_sub_action(body)), (), "exists")
        left, operator, right = comparison.groups()
        return Filter(tuple(_sub_action(left)), tuple(_sub_action(right)), operator)


def _bound(text: str | None) -> int | None:
    """A slice bound after its colon; None when omitted."""
    if text is None or text == ":":
        return None
    try:
        return int(text[1:])
    except ValueError:
        raise JsonPathError(f"array index {text[1:]} is not a number") from None


def _alphanumeric(char: str) -> bool:
    return char == "_" or char.isalpha() or char.isdigit()


def _unquote(body: str) -> str:
    """Go's strconv unquoting of the common escapes (``\\"``, ``\\'``, ``\\\\``, ``\\n``...)."""
    if "\\" not in body:
        return body
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        raise JsonPathError(f"unquote string {body} error invalid syntax") from None
