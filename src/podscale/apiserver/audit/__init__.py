"""kube-apiserver's audit log for podscale's API server (``audit.k8s.io/v1`` Events).

``requestinfo`` says what a request is, ``event`` builds Events, ``middleware`` records
requests as they are served, ``writer`` appends them to a file (or stdout) and ``reader``
reads them back. ``podscale up --audit-log-path`` turns it on (``podscale.plane.serve``).
"""

from podscale.apiserver.audit.event import RequestFacts, at_stage, new_event, response_status
from podscale.apiserver.audit.middleware import AuditMiddleware, EventSink
from podscale.apiserver.audit.reader import read_events
from podscale.apiserver.audit.requestinfo import RequestInfo, request_info
from podscale.apiserver.audit.writer import STDOUT_PATH, AuditLog

__all__ = [
    "STDOUT_PATH",
    "AuditLog",
    "AuditMiddleware",
    "EventSink",
    "RequestFacts",
    "RequestInfo",
    "at_stage",
    "new_event",
    "read_events",
    "request_info",
    "response_status",
]
