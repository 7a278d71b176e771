"""Rule ``name`` and ``seriesFilters``: which series a rule keeps and what the API calls them.

A series is kept when every ``seriesFilters`` entry agrees (``is`` must match, ``isNot`` must
not) and, as prometheus-adapter adds implicitly, when ``name.matches`` matches. Its API name is
``name.as`` expanded with the captures of ``name.matches``, using Go's ``Regexp.Expand``
rules: ``$1``, ``${1}``, ``$name``, ``${name}``, ``$$`` for a dollar; a reference to a group
that does not exist expands to nothing; ``$1x`` names the group "1x" (write ``${1}x``).
Matching is a search, not a full match, as Go's ``MatchString``.
Neighbours: ``config`` compiles these from YAML, ``registry`` applies them to discovery.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["NameRule", "SeriesFilter", "default_name_as", "expand_name", "keeps_series"]

_REFERENCE: Final = re.compile(r"\$(?:\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))")


@dataclass(frozen=True, slots=True)
class SeriesFilter:
    """``is`` (``positive``) or ``isNot`` regex over series names."""

    pattern: re.Pattern[str]
    positive: bool

    def keeps(self, series_name: str) -> bool:
        return (self.pattern.search(series_name) is not None) == self.positive


@dataclass(frozen=True, slots=True)
class NameRule:
    """A compiled ``name`` block: ``matches`` (default ``.*``) and ``as``."""

    matches: re.Pattern[str]
    as_: str

    def metric_name(self, series_name: str) -> str | None:
        """The API name of ``series_name``, or None when ``matches`` does not match it."""
        match = self.matches.search(series_name)
        if match is None:
            return None
        return expand_name(self.as_, match)


def default_name_as(matches: re.Pattern[str]) -> str | None:
    """``$0`` without capture groups, ``$1`` with one, None (``as`` required) with more."""
    if matches.groups == 0:
        return "$0"
    if matches.groups == 1:
        return "$1"
    return None


def expand_name(template: str, match: re.Match[str]) -> str:
    """Go ``Regexp.ExpandString`` of ``template`` against ``match``."""

    def substitute(reference: re.Match[str]) -> str:
        name = reference.group(1) or reference.group(2)
        if name is None:
            return "$"
        if name.isdigit():
            index = int(name)
            if index > (match.re.groups or 0):
                return ""
            return match.group(index) or ""
        if name in match.re.groupindex:
            return match.group(name) or ""
        return ""

    return _REFERENCE.sub(substitute, template)


def keeps_series(filters: Sequence[SeriesFilter], series_name: str) -> bool:
    """Whether every filter keeps ``series_name``."""
    return all(f.keeps(series_name) for f in filters)
