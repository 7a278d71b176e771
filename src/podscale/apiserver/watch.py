"""``?watch=true``: a chunked NDJSON stream of watch events, one JSON object per line.

Follows kube-apiserver's watch cache as clients see it (kubectl-wire.md §3-4): resourceVersion
unset or "0" first replays the current objects as synthetic ADDED events; a too-old version is
a single ERROR event carrying a 410 ``Expired`` Status, then the stream ends; idle watches with
``allowWatchBookmarks=true`` get BOOKMARK events (only kind, apiVersion and
metadata.resourceVersion); ``timeoutSeconds`` ends the stream cleanly. With a label or field
selector, an object that stops matching is sent as DELETED and one that starts matching as
ADDED. Table-mode watches wrap each object in a one-row Table (never an ERROR). Never gzipped.
``sendInitialEvents`` (watch-list streaming) is validated and opened by ``watch_list``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from podscale.api.kinds import KindInfo
from podscale.apiserver import extensions, watch_list
from podscale.apiserver.errors import ApiError, bad_request
from podscale.apiserver.handlers_read import include_object_mode
from podscale.apiserver.operations_watch import parse_resource_version
from podscale.apiserver.resources import Target, storage_resource, to_served
from podscale.apiserver.selectors import build_predicate
from podscale.apiserver.state import ServerState, query_flag
from podscale.apiserver.watch_filter import filter_event
from podscale.store.interface import Watch

__all__ = ["watch_response"]

JSON = dict[str, Any]

# With uvicorn (ASGI spec 2.4) a closed connection shows only when we write, so an idle watch
# checks for a disconnect this often to release its store watch.
_DISCONNECT_POLL_SECONDS: Final = 1.0


def _line(event: JSON) -> bytes:
    return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)


def _timeout(text: str | None) -> float | None:
    if not text:
        return None
    try:
        seconds = int(text)
    except ValueError:
        raise bad_request(f'timeoutSeconds: Invalid value: "{text}": must be an integer') from None
    return float(seconds) if seconds > 0 else None


def watch_response(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    """Validate the watch parameters (400s happen before the 200), then stream."""
    query = request.query_params
    predicate, has_selector = build_predicate(info, query)
    since = parse_resource_version(query.get("resourceVersion") or "")
    timeout = _timeout(query.get("timeoutSeconds"))
    bookmarks = query_flag(query.get("allowWatchBookmarks"))
    initial_events = watch_list.validate_watch_options(query)
    table = extensions.wants_table(request.headers.get("accept"))
    include_object = include_object_mode(request) if table else "Metadata"
    namespace = target.namespace if info.namespaced else None
    resource = storage_resource(info)

    selector = predicate if has_selector else None

    async def stream() -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        try:
            opened = watch_list.open_watch(
                state.store,
                resource,
                namespace,
                since=since,
                initial_events=initial_events,
                predicate=selector,
            )
        except ApiError as err:
            yield _line({"type": "ERROR", "object": err.status})
            return
        watch: Watch = opened.watch
        # A replay (since unset) is queued when the watch opens, so once the watch is idle
        # everything up to the revision at open time has been delivered.
        last_rv = opened.revision
        first = True

        def render(kind: str, obj: JSON, revision: str) -> bytes:
            nonlocal first
            served = to_served(obj, info)
            if table:
                served = extensions.table_row_event(
                    info,
                    served,
                    include_object=include_object,
                    resource_version=revision,
                    now=state.clock.now(),
                    with_columns=first,
                )
            first = False
            return _line({"type": kind, "object": served})

        try:
            for obj in opened.initial:
                yield render("ADDED", obj, str(obj["metadata"].get("resourceVersion", "")))
            if opened.initial_events and bookmarks:
                end = watch_list.end_bookmark(info, opened.revision)
                yield _line({"type": "BOOKMARK", "object": end})
            idle_since = loop.time()
            while True:
                now = loop.time()
                if deadline is not None and now >= deadline:
                    return
                wait = _next_wait(now, deadline, idle_since, state.bookmark_interval, bookmarks)
                try:
                    event = await watch.next(wait)
                except StopAsyncIteration:
                    return  # the store ended the watch (closed, or the client fell behind)
                if event is None:
                    now = loop.time()
                    if deadline is not None and now >= deadline:
                        return
                    if bookmarks and now - idle_since >= state.bookmark_interval:
                        idle_since = now
                        yield _line(_bookmark(info, _bookmark_revision(watch, last_rv)))
                    elif await request.is_disconnected():
                        return  # nothing else notices a client leaving an idle watch
                    continue
                idle_since = loop.time()
                last_rv = max(last_rv, event.revision)
                passed = (
                    (event.type, event.object)
                    if selector is None
                    else filter_event(event, selector)
                )
                if passed is None:
                    continue
                kind, obj = passed
                yield render(kind, obj, str(event.revision))
        finally:
            watch.close()

    return StreamingResponse(stream(), media_type="application/json")


def _next_wait(
    now: float, deadline: float | None, idle_since: float, interval: float, bookmarks: bool
) -> float:
    """How long to wait for the next event: until the deadline, the next bookmark, or the
    next disconnect check, whichever comes first."""
    wait = _DISCONNECT_POLL_SECONDS
    if bookmarks:
        wait = min(wait, max(0.0, idle_since + interval - now))
    if deadline is not None:
        wait = min(wait, deadline - now)
    return wait


def _bookmark_revision(watch: Watch, last_rv: int) -> int:
    """The store's own progress mark when it offers one (``bookmark_revision``), else the
    last revision this watch delivered."""
    offered = getattr(watch, "bookmark_revision", None)
    return max(last_rv, offered) if isinstance(offered, int) else last_rv


def _bookmark(info: KindInfo, revision: int) -> JSON:
    """A BOOKMARK: everything up to ``revision`` was delivered (the last revision we saw)."""
    return {
        "type": "BOOKMARK",
        "object": {
            "kind": info.kind,
            "apiVersion": info.api_version,
            "metadata": {"resourceVersion": str(revision)},
        },
    }
