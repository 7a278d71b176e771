"""The ``Annotations:`` block as kubectl prints it, and podscale's ``Last decision:`` section.

kubectl's ``printAnnotationsMultiline`` (describe.go) puts a short annotation on its key's
line, but a long one (key, ``": "`` and value over 140 bytes) or a multi-line one goes
below its key, one line per value line indented by two spaces, each cut to fit 140 bytes
(plus ``...``). The
HPA controller's own annotations (``autoscaling.podscale.dev/history`` and ``/last-decision``,
``podscale.controllers.hpa.history_store``) are long JSON, so this rule decides whether
``podscale describe hpa`` matches kubectl's output at all. They are printed, not hidden,
because kubectl prints them.

``describe_last_decision`` is beyond kubectl: the stored decision trace rendered with
``podscale.hpa.trace.render_trace``, the same text ``podscale explain-scale`` prints. It is
appended after the Events, so everything above it stays byte-identical to kubectl's. The
controller rewrites the trace only when the decision changes (not when only its time
does), so its time is when the current outcome was first reached.
Used by ``podscale.cli.describe_hpa``; pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from podscale.cli.describe_text import DescribeWriter
from podscale.hpa.trace import (
    LAST_DECISION_ANNOTATION,
    TraceFormatError,
    render_trace,
    trace_from_dict,
)

__all__ = ["MAX_ANNOTATION_LEN", "describe_last_decision", "write_annotations"]

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


def describe_last_decision(annotations: Any) -> str:
    """The ``Last decision:`` section ("" when the HPA carries no stored trace)."""
    text = annotations.get(LAST_DECISION_ANNOTATION) if isinstance(annotations, Mapping) else None
    if not text:
        return ""
    try:
        trace = trace_from_dict(json.loads(str(text)))
    except ValueError as err:  # JSON or trace format: say so rather than fail the describe
        reason = str(err) if isinstance(err, TraceFormatError) else f"invalid JSON: {err}"
        return f"Last decision:  <unreadable: {reason}>\n"
    lines = render_trace(trace).split("\n")
    return "Last decision:\n" + "".join(f"  {line}\n" for line in lines)
