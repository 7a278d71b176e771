"""The ``Annotations:`` block as kubectl prints it, and podscale's sections about the HPA's
stored state (``Last decision:``, ``Stored history:``).

kubectl's ``printAnnotationsMultiline`` (describe.go) puts a short annotation on its key's
line, but a long one (key, ``": "`` and value over 140 bytes) or a multi-line one goes
below its key, one line per value line indented by two spaces, each cut to fit 140 bytes
(plus ``...``).

``describe_last_decision`` and ``describe_stored_history`` are beyond kubectl: the HPA
controller's documents in the plane's history store (``hpa/last-decision``, the decision
trace rendered with ``podscale.hpa.trace_render.render_trace``, the same text ``podscale
explain-scale`` prints; and ``hpa/history``, the recommendations and scale events the
controller remembers), which ``podscale.cli.describe`` reads from the API server's history
path. They are appended after the Events, so everything above stays byte-identical to
kubectl's. The controller rewrites the trace only when the decision changes (not when only
its time does), so its time is when the current outcome was first reached.
Used by ``podscale.cli.describe_hpa``; pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.cli.describe_text import DescribeWriter
from podscale.hpa.trace_read import TraceFormatError, trace_from_dict
from podscale.hpa.trace_render import render_trace

__all__ = [
    "MAX_ANNOTATION_LEN",
    "describe_last_decision",
    "describe_stored_history",
    "write_annotations",
]

# kubectl describe.go: maxAnnotationLen.
MAX_ANNOTATION_LEN: Final = 140


def _shorten(line: str) -> str:
    """A value line as kubectl shows it below its key: the two spaces of indentation count
    towards the 140, so a line over 138 bytes keeps 138 plus ``...`` (observed with kubectl
    1.32). Go slices bytes; a rune cut in half shows as U+FFFD here."""
    room = MAX_ANNOTATION_LEN - 2
    encoded = line.encode()
    if len(encoded) <= room:
        return line
    return encoded[:room].decode(errors="replace") + "..."


def write_annotations(
    out: DescribeWriter, annotations: Any, skip: frozenset[str] = frozenset()
) -> None:
    """kubectl's ``Annotations:`` block (sorted keys, ``skip`` left out)."""
    entries = (
        {str(k): str(v) for k, v in annotations.items() if str(k) not in skip}
        if isinstance(annotations, Mapping)
        else {}
    )
    out.write(0, "Annotations:\t")
    if not entries:
        out.write(0, "<none>\n")
        return
    for index, key in enumerate(sorted(entries)):
        if index:
            out.write(0, "\t")
        value = entries[key].removesuffix("\n")
        if len(value.encode()) + len(key.encode()) + 2 > MAX_ANNOTATION_LEN or "\n" in value:
            out.write(0, f"{key}:\n")
            for line in value.split("\n"):
                out.write(0, f"\t  {_shorten(line)}\n")
        else:
            out.write(0, f"{key}: {value}\n")


def describe_last_decision(document: Any) -> str:
    """The ``Last decision:`` section of a stored trace ("" when there is none)."""
    if document is None:
        return ""
    try:
        trace = trace_from_dict(document)
    except TraceFormatError as err:  # say so rather than fail the describe
        return f"Last decision:  <unreadable: {err}>\n"
    lines = render_trace(trace).split("\n")
    return "Last decision:\n" + "".join(f"  {line}\n" for line in lines)


def _entries(items: Any, field: str, sign: str) -> str:
    if not isinstance(items, list) or not items:
        return "<none>"
    shown = [
        f"{sign}{item.get(field)} at {item.get('time')}" for item in items if isinstance(item, dict)
    ]
    return ", ".join(shown) or "<none>"


def describe_stored_history(document: Any) -> str:
    """The ``Stored history:`` section: what the controller remembers for its windows and
    rate limits ("" when nothing is stored)."""
    if not isinstance(document, Mapping):
        return ""
    out = DescribeWriter()
    out.write(0, "Stored history:\n")
    out.write(1, f"Recommendations:\t{_entries(document.get('recommendations'), 'replicas', '')}\n")
    out.write(1, f"Scale up events:\t{_entries(document.get('scaleUpEvents'), 'change', '+')}\n")
    out.write(
        1, f"Scale down events:\t{_entries(document.get('scaleDownEvents'), 'change', '-')}\n"
    )
    return out.render()
