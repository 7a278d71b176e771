"""The pod garbage collector (kube-controller-manager's ``podgc``): orphaned pods.

``orphans`` holds the pure decisions (which missing nodes are out of quarantine, which pods
are bound to them, the Failed status written before the delete); ``controller`` is the thin
shell the controller manager runs. Registered as ``pod-garbage-collector-controller``
(alias ``podgc``) in ``podscale.controllers.registry``.
"""

from podscale.controllers.podgc.controller import (
    GC_CHECK_PERIOD,
    QUARANTINE_TIME,
    PodGarbageCollectorController,
)

__all__ = ["GC_CHECK_PERIOD", "QUARANTINE_TIME", "PodGarbageCollectorController"]
