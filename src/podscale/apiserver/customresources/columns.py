"""Server-side Tables of custom resources: a CRD version's ``additionalPrinterColumns``.

kube-apiserver's table convertor for custom resources (apiextensions-apiserver
``registry/customresource/tableconvertor``) sends a ``Name`` column (format ``name``) and then
one column per printer column: its name, type, format, priority, and its description or else
``Custom resource definition column (in JSONPath format): <path>``. A version without printer
columns gets one ``Age`` column of type ``date`` over ``.metadata.creationTimestamp``. Columns
with ``priority`` > 0 are still sent; kubectl shows them with ``-o wide``.

A cell is the first value the column's JSONPath (``customresources.jsonpath``, wrapped in
``{}``) selects; no value, or an evaluation error, gives a null cell. Per type: ``integer``
truncates a float, ``number`` widens an int, ``boolean`` and ``string`` keep only their own
JSON type (a ``string`` column prints any value as text: JSON for objects and lists,
``<no value>`` for null), ``date`` shows an RFC 3339 time as an age (``<unknown>`` for an empty
or zero time, ``<invalid>`` if it does not parse). Anything else is a null cell.

Plugs into ``printing.tables``: ``column_definitions`` gives the ``ColumnDefinition`` list and
``print_row`` the ``{"cells": [...]}`` row (``row_cells`` the bare cells) for a version dict as
in ``spec.versions[i]``; the caller adds ``object`` per ``includeObject``. Pure: ``now`` is
passed in; parsed templates are cached by ``jsonpath.parse``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from podscale.apiserver.customresources.jsonpath import parse
from podscale.apiserver.customresources.jsonpath_find import find_results
from podscale.apiserver.customresources.jsonpath_nodes import JsonPathError
from podscale.apiserver.customresources.jsonpath_text import print_value
from podscale.apiserver.printing.columns import AGE, NAME, ColumnDefinition
from podscale.apiserver.printing.format import UNKNOWN, since

__all__ = [
    "DEFAULT_PRINTER_COLUMNS",
    "column_definitions",
    "print_row",
    "printer_columns",
    "row_cells",
    "typed_cell",
]

JSON = dict[str, Any]

# What a version without additionalPrinterColumns is served with (upstream's logical default).
DEFAULT_PRINTER_COLUMNS: Final[tuple[JSON, ...]] = (
    {
        "name": "Age",
        "type": "date",
        "description": AGE["description"],
        "jsonPath": ".metadata.creationTimestamp",
    },
)

_INVALID: Final = "<invalid>"
# Go's time.Parse with the RFC 3339 layout: fraction optional, Z or a numeric offset.
_RFC3339: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_ZERO_TIME: Final = datetime(1, 1, 1, tzinfo=UTC)


def printer_columns(version: Mapping[str, Any]) -> list[JSON]:
    """The version's ``additionalPrinterColumns`` (well-formed entries), or the Age default."""
    declared = version.get("additionalPrinterColumns")
    if isinstance(declared, list) and declared:
        return [column for column in declared if isinstance(column, dict)]
    return [dict(column) for column in DEFAULT_PRINTER_COLUMNS]


def column_definitions(version: Mapping[str, Any]) -> list[ColumnDefinition]:
    """The Table's ``columnDefinitions``: Name, then one per printer column, in order."""
    definitions: list[ColumnDefinition] = [NAME.copy()]
    for column in printer_columns(version):
        path = _str(column.get("jsonPath"))
        description = _str(column.get("description")) or (
            f"Custom resource definition column (in JSONPath format): {path}"
        )
        priority = column.get("priority")
        if not isinstance(priority, int) or isinstance(priority, bool):
            priority = 0
        definitions.append(
            {
                "name": _str(column.get("name")),
                "type": _str(column.get("type")),
                "format": _str(column.get("format")),
                "description": description,
                "priority": priority,
            }
        )
    return definitions


def row_cells(version: Mapping[str, Any], obj: Mapping[str, Any], now: datetime) -> list[Any]:
    """The cells of ``obj``'s row: its name, then each printer column's value."""
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    cells: list[Any] = [name if isinstance(name, str) else ""]
    for column in printer_columns(version):
        cells.append(_cell(column, obj, now))
    return cells


def print_row(version: Mapping[str, Any], obj: JSON, now: datetime) -> JSON:
    """The TableRow (without ``object``), shaped like the built-in printers' rows."""
    return {"cells": row_cells(version, obj, now)}


def _cell(column: Mapping[str, Any], obj: Mapping[str, Any], now: datetime) -> Any:
    kind = _str(column.get("type"))
    try:
        results = find_results(parse("{" + _str(column.get("jsonPath")) + "}"), obj)
    except JsonPathError:
        return None
    if not results or not results[0]:
        return None
    value = results[0][0]
    if kind == "string":
        return print_value(value)
    return typed_cell(kind, value, now)


def typed_cell(kind: str, value: Any, now: datetime) -> Any:
    """A non-string column's cell for one JSON value; None where the types do not fit."""
    if value is None or (isinstance(value, bool) and kind != "boolean"):
        return None
    if kind == "integer" and isinstance(value, int | float):
        return _truncate(value)
    if kind == "number" and isinstance(value, int | float):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return _age(value, now)
    return None


def _truncate(value: int | float) -> int | None:
    if isinstance(value, int):
        return value
    # Go's int64(f): toward zero; out of range (or NaN) is undefined there, null here.
    return int(value) if abs(value) < 2**63 else None


def _age(text: str, now: datetime) -> str:
    """metav1.Time's query-parameter parsing, then ``ConvertToHumanReadableDateType``."""
    if text in ("", "null"):
        return UNKNOWN
    if not _RFC3339.fullmatch(text):
        return _INVALID
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return _INVALID
    if moment == _ZERO_TIME:
        return UNKNOWN
    return since(moment, now)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
