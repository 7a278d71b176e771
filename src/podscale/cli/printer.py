"""Rendering for the resource commands: kubectl's tables, YAML, JSON and names.

``align_columns`` reproduces Go's ``text/tabwriter`` (cells end with a tab; a column block is
a run of consecutive lines that have that cell), which both ``kubectl get`` (min width 6,
padding 3) and ``kubectl describe`` (padding 2) print through, so alignment quirks match.
``render_table`` turns a server-side ``meta.k8s.io/v1`` Table into ``kubectl get`` output;
``render_yaml``/``render_json`` print objects like kubectl's printers (sorted keys, Go's JSON
escaping). Pure functions; ``podscale.cli.resources_get`` does the I/O.
Hand-written on purpose: kubectl-identical output needs Go's tabwriter and printers'
quirks byte for byte, which Python's table libraries (tabulate, rich) do not reproduce.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

__all__ = [
    "align_columns",
    "as_list",
    "format_cell",
    "render_json",
    "render_table",
    "render_yaml",
]

JSON = dict[str, Any]


def _widths(
    lines: list[list[str]], start: int, end: int, column: int, out: list[list[int]]
) -> None:
    """Fill ``out[line][column]`` with the padded width of each terminated cell (recursive,
    like tabwriter's ``format``: a block ends at the first line without this column)."""
    line = start
    while line < end:
        if column >= len(lines[line]) - 1:
            line += 1
            continue
        block_end = line
        width = 0
        while block_end < end and column < len(lines[block_end]) - 1:
            width = max(width, len(lines[block_end][column]))
            block_end += 1
        for index in range(line, block_end):
            out[index].append(width)
        _widths(lines, line, block_end, column + 1, out)
        line = block_end


def align_columns(text: str, *, min_width: int = 0, padding: int = 2) -> str:
    """Expand tab-terminated cells like Go's tabwriter (pad char ' ', no flags)."""
    rows = text.split("\n")
    cells = [row.split("\t") for row in rows]
    raw: list[list[int]] = [[] for _ in cells]
    _widths(cells, 0, len(cells), 0, raw)
    rendered = []
    for parts, widths in zip(cells, raw, strict=True):
        out = []
        for cell, width in zip(parts, widths, strict=False):
            out.append(cell.ljust(max(width + padding, min_width)))
        out.append(parts[-1])
        rendered.append("".join(out))
    return "\n".join(rendered)


def format_cell(value: Any) -> str:
    """A Table cell as Go's ``%v`` prints it."""
    if value is None:
        return "<none>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_table(
    tables: Sequence[JSON], *, wide: bool = False, with_namespace: bool = False
) -> str:
    """``kubectl get`` output for one or more Tables of the same kind (one header).

    Priority-0 columns always, priority > 0 only when ``wide``; ``with_namespace`` (``-A``)
    puts a NAMESPACE column first, read from each row's object metadata.
    """
    columns = list(tables[0].get("columnDefinitions") or []) if tables else []
    shown = [i for i, c in enumerate(columns) if wide or int(c.get("priority") or 0) == 0]
    header = [str(columns[i].get("name", "")).upper() for i in shown]
    if with_namespace:
        header.insert(0, "NAMESPACE")
    lines = ["\t".join(header)]
    for table in tables:
        for row in table.get("rows") or []:
            cells = list(row.get("cells") or [])
            values = [format_cell(cells[i]) if i < len(cells) else "" for i in shown]
            if with_namespace:
                metadata = (row.get("object") or {}).get("metadata") or {}
                values.insert(0, str(metadata.get("namespace") or ""))
            lines.append("\t".join(values))
    return align_columns("\n".join(lines), min_width=6, padding=3)


def as_list(items: Sequence[JSON]) -> JSON:
    """kubectl's ``kind: List`` wrapper for several objects."""
    return {
        "apiVersion": "v1",
        "items": list(items),
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }


class _Dumper(yaml.SafeDumper):
    """Block style, no aliases: what sigs.k8s.io/yaml produces for plain JSON data."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def choose_scalar_style(self) -> Any:
        # go-yaml writes multi-line strings as literal blocks and quotes with double quotes
        # where PyYAML would pick single ones.
        style = super().choose_scalar_style()
        event = self.event
        analysis = self.analysis
        if (
            isinstance(event, yaml.ScalarEvent)
            and "\n" in event.value
            and analysis is not None
            and analysis.allow_block
            and not self.simple_key_context
        ):
            return "|"
        return '"' if style == "'" else style


def render_yaml(obj: JSON) -> str:
    """YAML with sorted keys and indentless lists, like ``kubectl get -o yaml``."""
    return yaml.dump(
        obj,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=1_000_000,
    )


def render_json(obj: JSON) -> str:
    """4-space indented JSON with sorted keys and Go's HTML escaping, like ``-o json``."""
    text = json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"
