"""The watch verb without HTTP: ``(type, object)`` events for the in-process client.

The same semantics as the HTTP stream in ``watch`` (which stays the HTTP shell and its owner's):
resourceVersion "" or "0" first replays the current objects as ADDED events; selectors turn an
object leaving them into DELETED and one entering them into ADDED (``watch_filter``);
idle watches with bookmarks get BOOKMARK events; ``timeout_seconds`` ends the stream. A too-old
resourceVersion raises ``ApiError`` with the 410 ``Expired`` Status (the HTTP stream sends it
as an ERROR event); the in-process client turns it into ``Gone``. ``send_initial_events``
is watch-list streaming (``watch_list``): the current state, an end BOOKMARK, then changes.
A watch on a custom kind ends once its CRD is gone (``customresources.watches``), after the
events already queued.
Objects are the store's own fresh copies, served in the requested version.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.watches import DefinitionWatch
from podscale.apiserver.errors import bad_request
from podscale.apiserver.operations import watch_list
from podscale.apiserver.operations.selectors import build_predicate
from podscale.apiserver.operations.watch_filter import filter_event
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.state import ServerState
from podscale.store.interface import Watch, WatchEvent

__all__ = ["parse_resource_version", "watch_events"]

JSON = dict[str, Any]


def parse_resource_version(text: str) -> int | None:
    """The revision to watch after; None (replay first) for "" and "0"; 400 otherwise."""
    if not text or text == "0":
        return None
    try:
        value = int(text)
    except ValueError:
        raise bad_request(f'resourceVersion: Invalid value: "{text}": must be an integer') from None
    if value < 0:
        raise bad_request(f'resourceVersion: Invalid value: "{text}": must be non-negative')
    return value


def _bookmark(info: KindInfo, revision: int) -> JSON:
    return {
        "kind": info.kind,
        "apiVersion": info.api_version,
        "metadata": {"resourceVersion": str(revision)},
    }


def _queued(watch: Watch, current: WatchEvent | None) -> list[WatchEvent]:
    """``current`` (if any) and every event already queued on ``watch``."""
    events = [current] if current is not None else []
    while True:
        ready = watch.take_ready(256)
        if not ready:
            return events
        events.extend(ready)


async def watch_events(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    *,
    resource_version: str = "",
    label_selector: str = "",
    field_selector: str = "",
    timeout_seconds: float | None = None,
    bookmarks: bool = True,
    send_initial_events: bool | None = None,
    resource_version_match: str = "",
) -> AsyncGenerator[tuple[str, JSON], None]:
    """Events until the store ends the watch or ``timeout_seconds`` pass; the consumer
    closing the generator releases the store's watch. ``send_initial_events`` and
    ``resource_version_match`` are the watch-list options (``watch_list``)."""
    selectors = {"labelSelector": label_selector, "fieldSelector": field_selector}
    predicate, has_selector = build_predicate(info, selectors)
    since = parse_resource_version(resource_version)
    options = {"resourceVersionMatch": resource_version_match}
    if send_initial_events is not None:
        options["sendInitialEvents"] = "true" if send_initial_events else "false"
    initial_events = watch_list.validate_watch_options(options)
    resource = storage_resource(info)
    scope = namespace if info.namespaced else None
    selector = predicate if has_selector else None
    loop = asyncio.get_running_loop()
    deadline = None if not timeout_seconds else loop.time() + timeout_seconds
    opened = watch_list.open_watch(
        state.store,
        resource,
        scope,
        since=since,
        initial_events=initial_events,
        predicate=selector,
    )
    watch = opened.watch
    last_rv = opened.revision
    definition = DefinitionWatch(state, info)
    idle_since = loop.time()
    try:
        for obj in opened.initial:
            yield "ADDED", to_served(obj, info)
        if opened.initial_events and bookmarks:
            yield "BOOKMARK", watch_list.end_bookmark(info, opened.revision)
        while True:
            wait = state.bookmark_interval if bookmarks else None
            if deadline is not None:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                wait = remaining if wait is None else min(wait, remaining)
            try:
                event = await watch.next(definition.wait(wait))
            except StopAsyncIteration:
                return
            if definition.gone(loop.time()):
                # The CRD went: deliver what is queued (its resources' deletions), then end.
                for late in _queued(watch, event):
                    if selector is None:
                        yield late.type, to_served(late.object, info)
                        continue
                    passed = filter_event(late, selector)
                    if passed is not None:
                        yield passed[0], to_served(passed[1], info)
                return
            if event is None:
                if definition.custom and loop.time() - idle_since < state.bookmark_interval:
                    continue  # woken early to look at the CRD: no bookmark due yet
                idle_since = loop.time()
                if bookmarks and (deadline is None or loop.time() < deadline):
                    offered = getattr(watch, "bookmark_revision", None)
                    if isinstance(offered, int):
                        last_rv = max(last_rv, offered)
                    yield "BOOKMARK", _bookmark(info, last_rv)
                continue
            idle_since = loop.time()
            last_rv = max(last_rv, event.revision)
            if selector is None:
                yield event.type, to_served(event.object, info)
                continue
            passed = filter_event(event, selector)
            if passed is not None:
                yield passed[0], to_served(passed[1], info)
    finally:
        watch.close()
