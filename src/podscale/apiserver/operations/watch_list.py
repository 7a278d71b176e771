"""Watch-list streaming: ``sendInitialEvents`` on a watch, as upstream's WatchList does it.

A watch with ``sendInitialEvents=true`` (and ``resourceVersionMatch=NotOlderThan``, which
upstream requires with it) first sends the current state as ADDED events, then, when the
client allows bookmarks, a BOOKMARK at the state's resourceVersion whose metadata carries
the ``k8s.io/initial-events-end: "true"`` annotation (client-go's reflector waits for it
before it considers its store synced), then the changes after that state.
``sendInitialEvents=false`` starts at the given resourceVersion, or now when none is given
(no replay). Without the parameter a watch keeps its legacy meaning (``operations.watch``).

``validate_watch_options`` is upstream's watch half of ListOptions validation, with its
``ListOptions.meta.k8s.io "" is invalid`` 422; ``open_watch`` opens the store watch for the
chosen start and returns the initial objects to send. Both ``watch`` (the HTTP stream) and
``operations.watch`` (the in-process client) use them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from podscale.api.field_errors import FieldError, forbidden, invalid_status, not_supported
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, expired
from podscale.apiserver.state import query_flag
from podscale.store.interface import ExpiredError, Store, Watch

__all__ = [
    "INITIAL_EVENTS_END",
    "NOT_OLDER_THAN",
    "OpenedWatch",
    "end_bookmark",
    "open_watch",
    "send_initial_events",
    "validate_watch_options",
]

JSON = dict[str, Any]
INITIAL_EVENTS_END: Final = "k8s.io/initial-events-end"
NOT_OLDER_THAN: Final = "NotOlderThan"
_MATCH: Final = "resourceVersionMatch"


def send_initial_events(query: Mapping[str, str]) -> bool | None:
    """The ``sendInitialEvents`` parameter: None when absent (a legacy watch)."""
    value = query.get("sendInitialEvents")
    return None if value is None else query_flag(value)


def watch_option_errors(
    initial_events: bool | None, match: str, continue_token: str
) -> list[FieldError]:
    """Upstream's rules for the watch-list options of a watch (WatchList enabled)."""
    errors: list[FieldError] = []
    if initial_events is not None and match != NOT_OLDER_THAN:
        errors.append(
            forbidden(_MATCH, f"sendInitialEvents requires setting {_MATCH} to {NOT_OLDER_THAN}")
        )
    if match:
        if initial_events is None:
            errors.append(
                forbidden(
                    _MATCH, f"{_MATCH} is forbidden for watch unless sendInitialEvents is provided"
                )
            )
        if match != NOT_OLDER_THAN:
            errors.append(not_supported(_MATCH, match, [NOT_OLDER_THAN]))
        if continue_token:
            errors.append(forbidden(_MATCH, f"{_MATCH} is forbidden when continue is provided"))
    return errors


def validate_watch_options(query: Mapping[str, str]) -> bool | None:
    """``sendInitialEvents`` of a valid watch query; a 422 ``ApiError`` as upstream's
    otherwise."""
    initial_events = send_initial_events(query)
    errors = watch_option_errors(initial_events, query.get(_MATCH, ""), query.get("continue", ""))
    if errors:
        raise ApiError(invalid_status("ListOptions", "meta.k8s.io", "", errors))
    return initial_events


def end_bookmark(info: KindInfo, revision: int) -> JSON:
    """The BOOKMARK object that ends the initial events: the state's resourceVersion."""
    return {
        "kind": info.kind,
        "apiVersion": info.api_version,
        "metadata": {
            "resourceVersion": str(revision),
            "annotations": {INITIAL_EVENTS_END: "true"},
        },
    }


@dataclass
class OpenedWatch:
    """A store watch and where it starts: ``initial`` (stored objects) go out first as
    ADDED events, all as of ``revision``; ``initial_events`` says an end bookmark is due."""

    watch: Watch
    revision: int
    initial_events: bool = False
    initial: list[JSON] = field(default_factory=list)


def open_watch(
    store: Store,
    resource: str,
    namespace: str | None,
    *,
    since: int | None,
    initial_events: bool | None,
    predicate: Callable[[JSON], bool] | None,
) -> OpenedWatch:
    """Open the store watch for ``since`` (None: resourceVersion unset or "0") and the
    watch-list choice; 410 ``ApiError`` when ``since`` is too old."""
    try:
        if initial_events:
            # The state as of one revision, then the changes after it: nothing is lost or
            # sent twice. NotOlderThan is met by any current state.
            snapshot = store.list(resource, namespace, predicate=predicate)
            watch = store.watch(resource, namespace, since=snapshot.revision or None)
            if not snapshot.revision:
                # An empty store: the replay of a since=None watch is empty too.
                return OpenedWatch(watch, 0, True)
            return OpenedWatch(watch, snapshot.revision, True, snapshot.items)
        if initial_events is False and since is None:
            current = store.revision
            return OpenedWatch(store.watch(resource, namespace, since=current or None), current)
        revision = since if since is not None else store.revision
        return OpenedWatch(store.watch(resource, namespace, since=since), revision)
    except ExpiredError as err:
        raise expired(str(err)) from None
