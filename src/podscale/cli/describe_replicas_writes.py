"""The ``Replicas writes:`` section of ``podscale describe hpa``: who else set the target's
spec.replicas, newest last.

Beyond kubectl: the HPA controller keeps the writes it observed by managers other than the
autoscaler (``podscale.hpa.contest``, the ``hpa/replicas-writes`` state document under the
HPA's uid) and ``podscale.cli.describe`` fetches it with the other state documents. One row
per write: the manager (``<unknown>`` when the target carried no managedFields), its
operation, whether it wrote the object or its ``/scale``, when, the value written and the
value it replaced, and whether the autoscaler contested it (it would undo the value) or
accepted it. Printed after the Events and only when there is a write, so the description
of an HPA nobody fought stays kubectl's. Used by ``podscale.cli.describe_hpa``; pure.
"""

from __future__ import annotations

from typing import Any

from podscale.cli.describe_text import DescribeWriter
from podscale.hpa.contest import SCALE_SUBRESOURCE, contest_from_dict

__all__ = ["describe_replicas_writes"]


def describe_replicas_writes(document: Any) -> str:
    """The section for a stored ``hpa/replicas-writes`` document ("" without writes)."""
    state = contest_from_dict(document)
    if not state.writes:
        return ""
    out = DescribeWriter()
    out.write(0, "Replicas writes:\n")
    if state.hpa_replicas is not None:
        out.write(1, f"Autoscaler's last write:\t{state.hpa_replicas} at {state.hpa_time}\n")
    out.write(1, "Manager\tOperation\tVia\tTime\tReplicas\tReplaced\tVerdict\n")
    out.write(1, "-------\t---------\t---\t----\t--------\t--------\t-------\n")
    for write in state.writes:
        via = "/scale" if write.subresource == SCALE_SUBRESOURCE else "object"
        replaced = "-" if write.replaced is None else str(write.replaced)
        out.write(
            1,
            f"{write.manager or '<unknown>'}\t{write.operation or '<unknown>'}\t{via}\t"
            f"{write.time}\t{write.replicas}\t{replaced}\t"
            f"{'contested' if write.contested else 'accepted'}\n",
        )
    return out.render()
