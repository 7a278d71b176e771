"""Per-pod timing of the simulated kubelet, read from the pod's annotations.

A scenario can make one workload slow to start without touching the others: a pod (or its
template) may carry ``sim.podscale.io/startup-seconds``, ``sim.podscale.io/readiness-delay-seconds``
and ``sim.podscale.io/termination-seconds`` (non-negative decimal seconds). Absent or
malformed values fall back to the kubelet's default ``StartupProfile``
(``podscale.runtime.simulated.kubelet_state``). Pure; used by ``kubelets``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any, Final

from podscale.runtime.simulated.kubelet_state import StartupProfile

__all__ = [
    "READINESS_DELAY_ANNOTATION",
    "STARTUP_ANNOTATION",
    "TERMINATION_ANNOTATION",
    "profile_for",
]

STARTUP_ANNOTATION: Final = "sim.podscale.io/startup-seconds"
READINESS_DELAY_ANNOTATION: Final = "sim.podscale.io/readiness-delay-seconds"
TERMINATION_ANNOTATION: Final = "sim.podscale.io/termination-seconds"
_FIELDS: Final = (
    (STARTUP_ANNOTATION, "startup"),
    (READINESS_DELAY_ANNOTATION, "readiness_delay"),
    (TERMINATION_ANNOTATION, "termination"),
)


def _seconds(text: Any) -> timedelta | None:
    try:
        value = float(str(text))
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return timedelta(seconds=value)


def profile_for(pod: Mapping[str, Any], default: StartupProfile) -> StartupProfile:
    """``default`` with whatever the pod's annotations override."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    changes: dict[str, timedelta] = {}
    for annotation, attribute in _FIELDS:
        if annotation in annotations:
            value = _seconds(annotations[annotation])
            if value is not None:
                changes[attribute] = value
    return replace(default, **changes) if changes else default
