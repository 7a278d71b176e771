"""``PodLogOptions``: the query of ``pods/log``, and the source that serves container logs.

``parse_log_options`` reads the query parameters upstream's ``PodLogOptions`` has
(``container``, ``follow``, ``previous``, ``timestamps``, ``tailLines``, ``sinceSeconds``,
``sinceTime``, ``limitBytes``) and validates them as ``ValidatePodLogOptions`` does (a 422
``Invalid`` Status of kind ``PodLogOptions``); a value that is not a number or a time is a
400. ``ContainerLogSource`` is what answers for the nodes' kubelets: the simulated kubelets
(``podscale.runtime.simulated.container_logs``) install one on ``ServerState.pod_logs``;
``pod_logs`` (the HTTP handler) calls it once the pod and container are known.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from podscale.api import field_errors
from podscale.apiserver.errors import ApiError, bad_request

__all__ = ["ContainerLogSource", "PodLogOptions", "parse_log_options"]

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class PodLogOptions:
    """The parsed query; None means the parameter was not given."""

    container: str = ""
    follow: bool = False
    previous: bool = False
    timestamps: bool = False
    tail_lines: int | None = None
    since_seconds: int | None = None
    since_time: datetime | None = None
    limit_bytes: int | None = None


class ContainerLogSource(Protocol):
    """The kubelets' side of ``pods/log``.

    ``serves(node)`` says whether a kubelet of this source runs ``node``. ``open`` checks
    the container's state in ``pod`` as the kubelet does (raising ``ApiError``, e.g.
    ``container "x" in pod "y" is waiting to start: ContainerCreating``, before anything is
    streamed) and returns the log as byte chunks; with ``follow`` it keeps yielding until
    the container ends or the pod is gone, and yields ``b""`` when idle for a while so the
    caller can notice a client that went away.
    """

    def serves(self, node: str) -> bool: ...

    def open(
        self, pod: Mapping[str, Any], container: str, options: PodLogOptions
    ) -> AsyncIterator[bytes]: ...


def _integer(query: Mapping[str, str], key: str) -> int | None:
    text = query.get(key)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise bad_request(f'{key}: Invalid value: "{text}": must be an integer') from None


def _time(query: Mapping[str, str], key: str) -> datetime | None:
    text = query.get(key)
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise bad_request(f'{key}: Invalid value: "{text}": must be an RFC3339 time')
    return moment


def _flag(query: Mapping[str, str], key: str) -> bool:
    return (query.get(key) or "").strip().lower() in ("1", "t", "true")


def parse_log_options(query: Mapping[str, str], name: str) -> PodLogOptions:
    """The options of a ``pods/log`` request for pod ``name``; 400 or 422 when bad."""
    options = PodLogOptions(
        container=query.get("container") or "",
        follow=_flag(query, "follow"),
        previous=_flag(query, "previous"),
        timestamps=_flag(query, "timestamps"),
        tail_lines=_integer(query, "tailLines"),
        since_seconds=_integer(query, "sinceSeconds"),
        since_time=_time(query, "sinceTime"),
        limit_bytes=_integer(query, "limitBytes"),
    )
    errors: list[field_errors.FieldError] = []
    if options.tail_lines is not None and options.tail_lines < 0:
        errors.append(
            field_errors.invalid(
                "tailLines", options.tail_lines, "must be greater than or equal to 0"
            )
        )
    if options.limit_bytes is not None and options.limit_bytes < 1:
        errors.append(
            field_errors.invalid("limitBytes", options.limit_bytes, "must be greater than 0")
        )
    if options.since_seconds is not None and options.since_time is not None:
        errors.append(
            field_errors.forbidden(
                "", "at most one of `sinceTime` or `sinceSeconds` may be specified"
            )
        )
    elif options.since_seconds is not None and options.since_seconds < 1:
        errors.append(
            field_errors.invalid("sinceSeconds", options.since_seconds, "must be greater than 0")
        )
    if errors:
        raise ApiError(field_errors.invalid_status("PodLogOptions", "", name, errors))
    return options
