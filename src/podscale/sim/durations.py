"""Go duration strings for scenario files: ``podscale.api.durations``, re-exported.

Scenario files (``podscale.sim.scenario``) spell every time as a Go duration, as Kubernetes
configuration does; the one parser (Go's ``time.ParseDuration`` semantics and error texts)
lives in the API layer so the HPA controller and the CLI share it.
"""

from __future__ import annotations

from podscale.api.durations import DurationError, parse_go_duration

__all__ = ["DurationError", "parse_go_duration"]
