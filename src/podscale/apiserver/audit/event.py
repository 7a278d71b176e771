"""Building ``audit.k8s.io/v1`` Events from request and response facts. Pure.

kube-apiserver writes one Event per request stage: ``RequestReceived``, ``ResponseStarted``
(streaming requests only, when their headers go out), ``ResponseComplete`` and ``Panic``.
``new_event`` makes the request's event from ``RequestFacts`` (what ``middleware`` reads off
the ASGI scope: verb and objectRef from ``requestinfo``, the user from
``podscale.apiserver.auth.identity``, source IPs, user agent); ``with_request_object`` fills
the objectRef's blanks from the body of a create or update, as upstream's
``LogRequestObject`` does; ``at_stage`` stamps a stage with its response status. The
response status is ``{code}`` on success and the bounded fields of the Status the server
answered (status, message, reason, details, code) otherwise. Events are plain JSON dicts in
upstream's field order and omit-empty rules; ``writer`` serialises them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from podscale.apiserver.audit.requestinfo import RequestInfo
from podscale.apiserver.auth.identity import UserInfo

__all__ = [
    "AUDIT_API_VERSION",
    "DECISION_ANNOTATION",
    "LEVEL_METADATA",
    "REASON_ANNOTATION",
    "STAGES",
    "RequestFacts",
    "at_stage",
    "authentication_failure",
    "format_micro_time",
    "new_event",
    "response_status",
    "source_ips",
    "truncate_user_agent",
    "with_request_object",
]

JSON = dict[str, Any]

AUDIT_API_VERSION: Final = "audit.k8s.io/v1"
LEVEL_METADATA: Final = "Metadata"
STAGES: Final = ("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
DECISION_ANNOTATION: Final = "authorization.k8s.io/decision"
REASON_ANNOTATION: Final = "authorization.k8s.io/reason"
_MAX_USER_AGENT: Final = 1024
_TRUNCATED: Final = "...TRUNCATED"
# Status fields upstream copies into responseStatus (bounded: never the object itself).
_STATUS_FIELDS: Final = ("status", "message", "reason", "details", "code")


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """What the audit log records of a request before it is served. ``user`` None: the
    request failed authentication (its event has an empty user, as upstream's)."""

    info: RequestInfo
    request_uri: str
    user: UserInfo | None
    source_ips: tuple[str, ...]
    user_agent: str
    received: datetime
    authorized: bool = True


def format_micro_time(moment: datetime) -> str:
    """metav1.MicroTime's wire form: RFC 3339 in UTC with six fractional digits."""
    utc = moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def truncate_user_agent(agent: str) -> str:
    """Upstream keeps at most 1024 characters of a User-Agent, marking the cut."""
    return agent if len(agent) <= _MAX_USER_AGENT else agent[:_MAX_USER_AGENT] + _TRUNCATED


def source_ips(
    forwarded_for: str | None, real_ip: str | None, remote: str | None
) -> tuple[str, ...]:
    """The request's source IPs as upstream lists them: X-Forwarded-For entries, then
    X-Real-Ip, then the peer address unless already listed. Entries that are no IP
    address are skipped."""
    found: list[str] = []

    def add(candidates: Iterable[str]) -> None:
        for candidate in candidates:
            try:
                address = str(ipaddress.ip_address(candidate.strip()))
            except ValueError:
                continue
            found.append(address)

    add((forwarded_for or "").split(","))
    add([real_ip or ""])
    if remote:
        try:
            peer = str(ipaddress.ip_address(remote))
        except ValueError:
            peer = ""
        if peer and peer not in found:
            found.append(peer)
    return tuple(found)


# ObjectReference's fields in upstream's order; all omitted when empty.
_REF_FIELDS: Final = (
    "resource",
    "namespace",
    "name",
    "uid",
    "apiGroup",
    "apiVersion",
    "resourceVersion",
    "subresource",
)


def _ordered_ref(fields: Mapping[str, str]) -> JSON:
    return {key: fields[key] for key in _REF_FIELDS if fields.get(key)}


def _object_ref(info: RequestInfo) -> JSON:
    return _ordered_ref(
        {
            "resource": info.resource,
            "namespace": info.namespace,
            "name": info.name,
            "apiGroup": info.api_group,
            "apiVersion": info.api_version,
            "subresource": info.subresource,
        }
    )


def new_event(facts: RequestFacts, audit_id: str, level: str = LEVEL_METADATA) -> JSON:
    """The event of a request before any stage is stamped (``at_stage`` does that)."""
    user: JSON = {} if facts.user is None else facts.user.to_json()
    event: JSON = {
        "kind": "Event",
        "apiVersion": AUDIT_API_VERSION,
        "level": level,
        "auditID": audit_id,
        "stage": "",
        "requestURI": facts.request_uri,
        "verb": facts.info.verb,
        "user": user,
        "sourceIPs": list(facts.source_ips),
        "userAgent": truncate_user_agent(facts.user_agent),
    }
    if facts.info.is_resource_request:
        event["objectRef"] = _object_ref(facts.info)
    event["requestReceivedTimestamp"] = format_micro_time(facts.received)
    event["stageTimestamp"] = ""
    if facts.user is not None and facts.authorized:
        # podscale authorizes every authenticated request (upstream's AlwaysAllow, whose
        # reason is empty); upstream writes both annotations once it decided.
        event["annotations"] = {DECISION_ANNOTATION: "allow", REASON_ANNOTATION: ""}
    return event


def with_request_object(event: JSON, body: Mapping[str, Any]) -> JSON:
    """``event`` with its objectRef's empty namespace, name, uid and resourceVersion taken
    from the metadata of the object a create or update sent (a new mapping)."""
    ref = event.get("objectRef")
    metadata = body.get("metadata")
    if not isinstance(ref, dict) or not isinstance(metadata, Mapping):
        return event
    filled = dict(ref)
    for key in ("namespace", "name", "uid", "resourceVersion"):
        value = metadata.get(key)
        if not filled.get(key) and isinstance(value, str) and value:
            filled[key] = value
    return {**event, "objectRef": _ordered_ref(filled)}


def authentication_failure(authorization: str | None) -> JSON:
    """The responseStatus of a request that failed authentication: upstream records which
    credentials were tried (podscale reads bearer and basic ones) and the 401."""
    scheme = (authorization or "").strip().split(" ")
    methods = [
        name for name in ("basic", "bearer") if len(scheme) > 1 and scheme[0].lower() == name
    ]
    tried = f"attempted: {', '.join(methods)}" if methods else "no credentials provided"
    return {"metadata": {}, "message": f"Authentication failed, {tried}", "code": 401}


def response_status(code: int, status_body: Mapping[str, Any] | None = None) -> JSON:
    """The event's responseStatus: the bounded fields of a Status the server answered,
    else just the code (metav1.Status always carries its empty list metadata)."""
    status: JSON = {"metadata": {}}
    if status_body is not None and status_body.get("kind") == "Status":
        for key in _STATUS_FIELDS:
            value = status_body.get(key)
            if value not in (None, "", {}):
                status[key] = value
    # The HTTP code wins: upstream stamps it when the header is written, after the Status.
    status["code"] = code
    return status


def at_stage(event: JSON, stage: str, stamped: datetime, status: JSON | None = None) -> JSON:
    """``event`` at ``stage`` (one of ``STAGES``), stamped at ``stamped`` (a new dict).
    ``RequestReceived`` takes the receive time, as upstream stamps it."""
    if stage not in STAGES:
        raise ValueError(f"unknown audit stage {stage!r}")
    staged = dict(event)
    staged["stage"] = stage
    if status is not None:
        staged["responseStatus"] = status
    stage_time = staged["requestReceivedTimestamp"] if stage == STAGES[0] else None
    staged["stageTimestamp"] = stage_time or format_micro_time(stamped)
    # Field order as upstream serialises it: responseStatus after objectRef.
    order = [key for key in staged if key not in ("responseStatus", "annotations")]
    at = order.index("requestReceivedTimestamp")
    if "responseStatus" in staged:
        order.insert(at, "responseStatus")
    if "annotations" in staged:
        order.append("annotations")
    return {key: staged[key] for key in order}
