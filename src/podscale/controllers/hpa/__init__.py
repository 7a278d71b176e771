"""The HorizontalPodAutoscaler controller and the metrics clients it reads through.

Modules: ``controller`` (the shell around ``podscale.hpa.decide``), ``metrics_client``
(the async ``MetricsClient`` Protocol), ``metrics_rest`` / ``metrics_inprocess`` (its two
implementations) over ``metrics_values`` (API answers to engine values), ``prefetch``
(asking the client what a decision needs, and each HPA's recorded queries),
``scale_target`` (``scaleTargetRef`` and ``/scale``), ``writes`` (the ``/scale`` and status
writes), ``selector_index`` (``AmbiguousSelector``, the target's pods), ``state_keeper``
(what the controller remembers of each HPA, loaded from and stored in the state store),
``history_store`` (history and last decision as state documents; the history's values in
``history_key``), ``contest_target`` (the target's managedFields and the replicas writes
of other managers) and ``monitor`` (upstream's controller metrics as Prometheus text).
"""

from __future__ import annotations

from podscale.controllers.hpa.controller import (
    COMPONENT,
    DEFAULT_SYNC_PERIOD,
    HorizontalPodAutoscalerController,
)
from podscale.controllers.hpa.history_store import (
    HISTORY_ANNOTATION,
    HISTORY_STATE,
    LAST_DECISION_ANNOTATION,
    LAST_DECISION_STATE,
    encode_history,
    load_history,
)
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.metrics_inprocess import InProcessMetricsClient
from podscale.controllers.hpa.metrics_rest import RestMetricsClient
from podscale.controllers.hpa.monitor import ControllerMetrics

__all__ = [
    "COMPONENT",
    "DEFAULT_SYNC_PERIOD",
    "HISTORY_ANNOTATION",
    "HISTORY_STATE",
    "LAST_DECISION_ANNOTATION",
    "LAST_DECISION_STATE",
    "ControllerMetrics",
    "HorizontalPodAutoscalerController",
    "InProcessMetricsClient",
    "MetricsClient",
    "RestMetricsClient",
    "encode_history",
    "load_history",
]
