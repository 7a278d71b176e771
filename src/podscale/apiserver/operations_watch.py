"""The watch verb without HTTP: ``(type, object)`` events for the in-process client.

The same semantics as the HTTP stream in ``watch`` (which stays the HTTP shell and its owner's):
resourceVersion "" or "0" first replays the current objects as ADDED events; selectors turn an
object leaving them into DELETED and one entering them into ADDED (``SelectorFilter``);
idle watches with bookmarks get BOOKMARK events; ``timeout_seconds`` ends the stream. A too-old
resourceVersion raises ``ApiError`` with the 410 ``Expired`` Status (the HTTP stream sends it
as an ERROR event); the in-process client turns it into ``Gone``. Objects are the store's own
fresh copies, served in the requested version.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import bad_request, expired
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.selectors import Predicate, build_predicate
from podscale.apiserver.state import ServerState
from podscale.store import listing
from podscale.store.interface import ExpiredError, StoreError, WatchEvent

__all__ = ["SelectorFilter", "parse_resource_version", "watch_events"]

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


def _key(obj: JSON) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


class SelectorFilter:
    """Selector semantics of a watch, as upstream's cacher applies them with the previous
    object: matched before and not now -> DELETED; now and not before -> ADDED.

    ``decided`` says which keys matched at the watch's start revision; with ``exact`` every
    other key did not match (or did not exist) then. Without ``exact`` a key missing from
    ``decided`` is unknown: a matching MODIFIED passes unchanged and a non-matching one is
    dropped, never inventing a DELETED the client has no object for.
    """

    def __init__(
        self, predicate: Predicate, decided: dict[tuple[str, str], bool], *, exact: bool
    ) -> None:
        self._predicate = predicate
        self._matched = decided
        self._default = False if exact else None

    def apply(self, event: WatchEvent) -> tuple[str, JSON] | None:
        key = _key(event.object)
        before = self._matched.get(key, self._default)
        now = self._predicate(event.object) and event.type != "DELETED"
        self._matched[key] = now
        if event.type == "DELETED":
            matched = before if before is not None else self._predicate(event.object)
            return ("DELETED", event.object) if matched else None
        if event.type == "ADDED":
            return ("ADDED", event.object) if now else None
        if before is None:
            return ("MODIFIED", event.object) if now else None
        if now:
            return ("MODIFIED" if before else "ADDED"), event.object
        return ("DELETED", event.object) if before else None


def _decided_at(
    state: ServerState, resource: str, scope: str | None, predicate: Predicate, since: int
) -> tuple[dict[tuple[str, str], bool], bool]:
    """Which keys matched at revision ``since``, and whether that is exact.

    The store's lists can resume a snapshot at an older revision (continue tokens): a token
    for ``since`` positioned before the first key lists the whole collection as it was then.
    A store that refuses such a token (it is not part of the ``Store`` contract) falls back
    to what is certain: objects unchanged since ``since`` were then as they are now.
    """
    try:
        token = listing.encode_continue(resource, scope, since, ("", ""))
        snapshot = state.store.list(resource, scope, continue_token=token)
    except (StoreError, ValueError):
        snapshot = None
    if snapshot is not None and snapshot.revision == since:
        return {_key(obj): predicate(obj) for obj in snapshot.items}, True
    decided: dict[tuple[str, str], bool] = {}
    for obj in state.store.list(resource, scope).items:
        if int((obj.get("metadata") or {}).get("resourceVersion") or 0) <= since:
            decided[_key(obj)] = predicate(obj)
    return decided, False


def _bookmark(info: KindInfo, revision: int) -> JSON:
    return {
        "kind": info.kind,
        "apiVersion": info.api_version,
        "metadata": {"resourceVersion": str(revision)},
    }


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
) -> AsyncGenerator[tuple[str, JSON], None]:
    """Events until the store ends the watch or ``timeout_seconds`` pass; the consumer
    closing the generator releases the store's watch."""
    selectors = {"labelSelector": label_selector, "fieldSelector": field_selector}
    predicate, has_selector = build_predicate(info, selectors)
    since = parse_resource_version(resource_version)
    resource = storage_resource(info)
    scope = namespace if info.namespaced else None
    event_filter: SelectorFilter | None = None
    if has_selector and predicate is not None:
        # A replay (since None) starts from nothing: every key is decided by its ADDED.
        decided: dict[tuple[str, str], bool] = {}
        exact = True
        if since is not None:
            decided, exact = _decided_at(state, resource, scope, predicate, since)
        event_filter = SelectorFilter(predicate, decided, exact=exact)
    loop = asyncio.get_running_loop()
    deadline = None if not timeout_seconds else loop.time() + timeout_seconds
    last_rv = since if since is not None else state.store.revision
    try:
        watch = state.store.watch(resource, scope, since=since)
    except ExpiredError as err:
        raise expired(str(err)) from None
    try:
        while True:
            wait = state.bookmark_interval if bookmarks else None
            if deadline is not None:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                wait = remaining if wait is None else min(wait, remaining)
            try:
                event = await watch.next(wait)
            except StopAsyncIteration:
                return
            if event is None:
                if bookmarks and (deadline is None or loop.time() < deadline):
                    offered = getattr(watch, "bookmark_revision", None)
                    if isinstance(offered, int):
                        last_rv = max(last_rv, offered)
                    yield "BOOKMARK", _bookmark(info, last_rv)
                continue
            last_rv = max(last_rv, event.revision)
            if event_filter is None:
                yield event.type, to_served(event.object, info)
                continue
            passed = event_filter.apply(event)
            if passed is not None:
                yield passed[0], to_served(passed[1], info)
    finally:
        watch.close()
