"""Reading an audit log back: ``read_events(path)`` for tests and tools.

The counterpart of ``writer.AuditLog``: one ``audit.k8s.io/v1`` Event per line. A last line
without its newline is one the writer has not finished, and is left out, so a reader racing a
live server never sees half an event; any other line that is no JSON object is an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

__all__ = ["read_events"]


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """The events in the audit log file ``path``, oldest first ([] if it does not exist)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    complete = lines[:-1]  # the part after the last newline is unfinished (or empty)
    events: list[dict[str, Any]] = []
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not a JSON audit event: {err}") from None
        if not isinstance(event, dict):
            raise ValueError(f"{path}:{number}: not a JSON audit event")
        events.append(event)
    return events
