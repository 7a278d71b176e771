"""PromQL text: label matchers with every value escaped, and label-name checks.

Everything the adapter splices into a query passes through here, so a label value can never
end a string literal early or widen a regular expression. Two layers of escaping apply:

- a value compared with ``=``/``!=`` is a PromQL string literal: double-quoted, with
  backslashes, quotes and control characters escaped (Go ``%q`` rules, which PromQL's lexer
  accepts);
- a value inside an ``=~``/``!~`` alternation is first regex-escaped for RE2 (Prometheus's
  regex engine; the same character set as Go's ``regexp.QuoteMeta``) and then quoted, so
  ``web.1`` matches only ``web.1`` and never ``webx1``. Prometheus anchors label regexes at
  both ends, so an alternation of escaped names matches exactly those names.

prometheus-adapter passes selector values into ``=~`` unescaped (a deliberate regex
passthrough); podscale escapes them, because a Kubernetes label selector means literal values.
Neighbours: ``queries`` builds matcher lists with these, ``config`` checks label names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, Literal

from podscale.api.selector_model import go_quote
from podscale.metrics.prometheus.errors import QueryBuildError

__all__ = [
    "MatchOp",
    "escape_regex",
    "is_label_name",
    "quote_string",
    "render_alternation",
    "render_matcher",
]

MatchOp = Literal["=", "!=", "=~", "!~"]

# RE2's metacharacters, exactly the set Go's regexp.QuoteMeta escapes. Python's re.escape
# escapes more (space, '#', '~'...), and RE2 rejects some of those escapes.
_REGEX_SPECIALS: Final = frozenset("\\.+*?()|[]{}^$")
_LABEL_NAME: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def quote_string(value: str) -> str:
    """``value`` as a double-quoted PromQL string literal."""
    return go_quote(value)


def escape_regex(value: str) -> str:
    """``value`` as an RE2 pattern matching exactly that text."""
    return "".join("\\" + ch if ch in _REGEX_SPECIALS else ch for ch in value)


def is_label_name(name: str) -> bool:
    """Prometheus's label name rule: ``[a-zA-Z_][a-zA-Z0-9_]*``."""
    return _LABEL_NAME.fullmatch(name) is not None


def render_alternation(values: Iterable[str]) -> str:
    """Escaped values joined by ``|``: the unquoted body of an exact-match ``=~`` regex."""
    return "|".join(escape_regex(value) for value in values)


def render_matcher(label: str, op: MatchOp, value: str) -> str:
    """One ``label op "value"`` matcher; ``value`` is already a regex for ``=~``/``!~``.

    Raises ``QueryBuildError`` for a label name Prometheus cannot express (for example a
    Kubernetes key like ``app.kubernetes.io/name``): splicing it in would give a query that
    either fails to parse or selects something else.
    """
    if not is_label_name(label):
        raise QueryBuildError(f"label name {go_quote(label)} is not a valid Prometheus label name")
    return f"{label}{op}{quote_string(value)}"
