"""``?watch=true``: a chunked NDJSON stream of watch events, one JSON object per line.

Follows kube-apiserver's watch cache as clients see it (kubectl-wire.md §3-4): resourceVersion
unset or "0" first replays the current objects as synthetic ADDED events; a too-old version is
a single ERROR event carrying a 410 ``Expired`` Status, then the stream ends; idle watches with
``allowWatchBookmarks=true`` get BOOKMARK events (only kind, apiVersion and
metadata.resourceVersion); ``timeoutSeconds`` ends the stream cleanly. With a label or field
selector, an object that stops matching is sent as DELETED and one that starts matching as
ADDED. Table-mode watches wrap each object in a one-row Table (never an ERROR). Never gzipped.
The replay is encoded in batches on a worker thread (``fairness.HeavyWork``), live events on
the loop.
``sendInitialEvents`` (watch-list streaming) is validated and opened by ``watch_list``.
A watch on a custom kind ends once its CRD is gone (``customresources.watches``: the idle
wait is at most a second, so it looks that often), after the events already queued.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

import podscale.apiserver.extensions as extensions
from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.watches import DefinitionWatch
from podscale.apiserver.errors import ApiError, bad_request
from podscale.apiserver.http.fairness import REPLAY_BATCH
from podscale.apiserver.http.handlers_read import include_object_mode
from podscale.apiserver.operations import watch_list
from podscale.apiserver.operations.selectors import build_predicate
from podscale.apiserver.operations.watch import parse_resource_version
from podscale.apiserver.operations.watch_filter import filter_event
from podscale.apiserver.resources import Target, storage_resource, to_served
from podscale.apiserver.state import ServerState, query_flag
from podscale.store.interface import Watch, WatchEvent

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
    encoder = _EventEncoder(
        state,
        info,
        selector=selector,
        table=table,
        include_object=include_object,
    )

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
        definition = DefinitionWatch(state, info)
        # A replay (since unset) is queued when the watch opens, so once the watch is idle
        # everything up to the revision at open time has been delivered.
        last_rv = opened.revision
        try:
            # Initial objects (watch-list) and a replay (resourceVersion unset or "0") are
            # encoded in batches off the loop (``fairness``): thousands of ADDED events would
            # otherwise hold it for their whole length.
            for start in range(0, len(opened.initial), REPLAY_BATCH):
                batch = opened.initial[start : start + REPLAY_BATCH]
                yield await state.heavy_work.run(encoder.encode_added, batch)
            if opened.initial_events and bookmarks:
                end = watch_list.end_bookmark(info, opened.revision)
                yield _line({"type": "BOOKMARK", "object": end})
            if since is None and initial_events is None:
                while True:
                    chunk, revision, count = await state.heavy_work.run(
                        encoder.encode_ready, watch, REPLAY_BATCH
                    )
                    last_rv = max(last_rv, revision)
                    if chunk:
                        yield chunk
                    if count < REPLAY_BATCH:
                        break
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
                if definition.gone(loop.time()):
                    # The CRD went: send what is queued (its resources' deletions), then end.
                    line = encoder.encode(event) if event is not None else None
                    if line is not None:
                        yield line
                    while True:
                        chunk, _, count = encoder.encode_ready(watch, REPLAY_BATCH)
                        if chunk:
                            yield chunk
                        if count < REPLAY_BATCH:
                            return
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
                line = encoder.encode(event)
                if line is not None:
                    yield line
        finally:
            watch.close()

    return StreamingResponse(stream(), media_type="application/json")


class _EventEncoder:
    """One watch's events as NDJSON lines: selector filtering (an object leaving the selector
    becomes DELETED), conversion to the served version, and one-row Tables when asked (the
    first with column definitions). Used on the loop for live events and on a worker thread
    for replay batches, never both at once."""

    def __init__(
        self,
        state: ServerState,
        info: KindInfo,
        *,
        selector: Callable[[JSON], bool] | None,
        table: bool,
        include_object: str,
    ) -> None:
        self._state = state
        self._info = info
        self._selector = selector
        self._table = table
        self._include_object = include_object
        self._first = True

    def encode(self, event: WatchEvent) -> bytes | None:
        """The event's line, or None when the selector filters it out."""
        passed = (
            (event.type, event.object)
            if self._selector is None
            else filter_event(event, self._selector)
        )
        if passed is None:
            return None
        kind, obj = passed
        return self._line(kind, obj, str(event.revision))

    def encode_added(self, objects: list[JSON]) -> bytes:
        """ADDED lines for stored objects already filtered (watch-list initial events)."""
        return b"".join(
            self._line("ADDED", obj, str(obj["metadata"].get("resourceVersion", "")))
            for obj in objects
        )

    def _line(self, kind: str, obj: JSON, revision: str) -> bytes:
        served = to_served(obj, self._info)
        if self._table:
            served = extensions.table_row_event(
                self._info,
                served,
                include_object=self._include_object,
                resource_version=revision,
                now=self._state.clock.now(),
                with_columns=self._first,
            )
        self._first = False
        return _line({"type": kind, "object": served})

    def encode_ready(self, watch: Watch, limit: int) -> tuple[bytes, int, int]:
        """Lines for up to ``limit`` already-queued events, the highest revision among them
        (0 if none) and how many were taken."""
        events = watch.take_ready(limit)
        lines = [self.encode(event) for event in events]
        revision = max((event.revision for event in events), default=0)
        return b"".join(line for line in lines if line is not None), revision, len(events)


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
