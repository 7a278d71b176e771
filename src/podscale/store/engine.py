"""The store engine: one implementation of ``interface.Store`` over a pluggable persistence.

Like kube-apiserver's watch cache in front of etcd, every backend keeps the current objects
in memory (serialized, so hand-outs are fresh copies) and serves reads from there; writes
go through ``Persistence.commit`` first and touch memory only once it returned, so an
acknowledged write is durable exactly as far as the persistence is (``memory``: not at
all; ``sqlite``: committed). Metadata rules live in ``objects``, list pages in ``listing``,
watch fan-out and history in ``watchhub``, waits for a revision in ``freshness``; the
committed state (current objects, revisions, ``_commit``) and the ``Persistence`` contract
the backends implement in ``committed``, ``VersionedStore``'s base. Lists
at a past revision (exact reads, continued pages) undo the kept history on the current
objects: memory stays bounded by the history size, with no extra snapshots.

One lock serializes writes: revisions are assigned, committed and published in order.
Gets read without it (a dict lookup is atomic under the GIL and entries are immutable).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable
from typing import Any

import orjson

import podscale.store.listing as listing
import podscale.store.objects as objects
from podscale.store.committed import CommittedState, Entry, Key
from podscale.store.errors import TooLargeResourceVersionError
from podscale.store.interface import (
    DeleteResult,
    ExpiredError,
    ListResult,
    Preconditions,
    StoreError,
)
from podscale.store.records import EventRecord, Replay
from podscale.store.watchhub import HubWatch

__all__ = ["VersionedStore"]

JSON = dict[str, Any]


def _encode(obj: JSON) -> bytes:
    try:
        return orjson.dumps(obj)
    except (TypeError, orjson.JSONEncodeError):
        raise StoreError("object is not JSON-serializable") from None


class VersionedStore(CommittedState):
    """``interface.Store`` over ``persistence`` (``committed.CommittedState`` loads it and
    commits to it). See ``memory`` and ``sqlite``."""

    # -- reads ---------------------------------------------------------------------------
    def get(self, resource: str, namespace: str, name: str) -> JSON:
        entry = self._objects.get(resource, {}).get((namespace, name))
        if entry is None:
            raise objects.error_not_found(resource, name)
        result: JSON = orjson.loads(entry[1])
        return result

    def revision_of(self, resource: str, namespace: str, name: str) -> int | None:
        entry = self._objects.get(resource, {}).get((namespace, name))
        return None if entry is None else entry[0]

    def get_encoded(self, resource: str, namespace: str, name: str) -> bytes:
        entry = self._objects.get(resource, {}).get((namespace, name))
        if entry is None:
            raise objects.error_not_found(resource, name)
        return entry[1]

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        predicate: Callable[[JSON], bool] | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
        revision: int | None = None,
        decode: Callable[[bytes], JSON] | None = None,
    ) -> ListResult:
        if revision is not None and (continue_token or revision < 1):
            raise ValueError("revision must be positive and cannot be combined with continue")
        after: Key | None = None
        with self._lock:
            current_revision = self._revision
            bucket = self._objects.get(resource, {})
            if namespace is None:
                current = {key: entry[1] for key, entry in bucket.items()}
            else:
                current = {key: entry[1] for key, entry in bucket.items() if key[0] == namespace}
            snapshot = current_revision
            expired = listing.LIST_EXPIRED
            if continue_token:
                resumed = listing.decode_continue(
                    continue_token, resource, namespace, floor=self._hub.floor
                )
                snapshot, after = resumed.revision, resumed.key
                expired = listing.CONTINUE_EXPIRED
            elif revision is not None:
                if revision > current_revision:
                    raise TooLargeResourceVersionError(
                        revision, current_revision, resource=resource
                    )
                snapshot = revision
            if snapshot < current_revision:
                # The state at ``snapshot``: undo, on the current objects, every kept change
                # made after it (etcd reads at a revision; the watch history is our MVCC).
                undo = self._hub.states_at(snapshot, resource, namespace)
                if undo is None:
                    raise ExpiredError(expired, resource=resource)
                for key, previous in undo.items():
                    if previous is None:
                        current.pop(key, None)
                    else:
                        current[key] = previous
        entries = sorted(current.items())
        page = listing.pick_page(
            entries,
            orjson.loads if decode is None else decode,
            predicate=predicate,
            limit=limit,
            after=after,
        )
        token = None
        if page.last_key is not None:
            token = listing.encode_continue(resource, namespace, snapshot, page.last_key)
        return ListResult(
            items=page.items, revision=snapshot, continue_token=token, remaining=page.remaining
        )

    async def wait_for_revision(self, revision: int, *, timeout: float) -> int:
        """The current revision, once it is at least ``revision``; waits up to ``timeout``
        seconds of the running loop's time, then raises ``TooLargeResourceVersionError``."""
        loop = asyncio.get_running_loop()
        with self._lock:
            self._check_open()
            if self._revision >= revision:
                return self._revision
            future = self._waiters.add(revision, loop)
        try:
            async with asyncio.timeout(timeout):
                await future
        except TimeoutError:
            current = self._revision
            if current < revision:  # else a commit reached it just as time ran out
                raise TooLargeResourceVersionError(revision, current) from None
        finally:
            with self._lock:
                self._waiters.discard(future)
        with self._lock:
            self._check_open()
            return self._revision

    # -- writes --------------------------------------------------------------------------
    def _timestamp(self) -> str:
        return objects.format_timestamp(self._clock.now())

    def _stored(self, resource: str, key: Key) -> Entry:
        entry = self._objects.get(resource, {}).get(key)
        if entry is None:
            raise objects.error_not_found(resource, key[1])
        return entry

    def create(self, resource: str, obj: JSON) -> JSON:
        namespace, name = objects.key_of(obj)
        with self._lock:
            self._check_open()
            if (namespace, name) in self._objects.get(resource, {}):
                raise objects.error_already_exists(resource, name)
            revision = self._revision + 1
            created = objects.stamp_created(
                obj, uid=self._new_uid(), timestamp=self._timestamp(), revision=revision
            )
            data = _encode(created)
            self._commit(EventRecord("ADDED", resource, namespace, name, revision, data, None))
        result: JSON = orjson.loads(data)
        return result

    def update(
        self, resource: str, obj: JSON, *, current: tuple[bytes, JSON] | None = None
    ) -> JSON:
        key = objects.key_of(obj)
        with self._lock:
            self._check_open()
            stored_revision, stored_data = self._stored(resource, key)
            stored: JSON
            if current is not None and current[0] is stored_data:
                # The very bytes this entry holds (a write would have replaced them), which
                # the caller decoded and left alone: its decoding is the stored object's.
                stored = current[1]
            else:
                stored = orjson.loads(stored_data)
            objects.check_update_version(resource, stored, obj)
            unchanged = objects.stamp_updated(stored, obj, revision=stored_revision)
            if unchanged == stored:  # a no-op write keeps its revision, as upstream
                return stored
            revision = self._revision + 1
            if objects.is_finalized(unchanged):
                # Upstream deletes the *stored* state: the update itself is never written.
                data = _encode(objects.with_revision(stored, revision))
                record = EventRecord("DELETED", resource, *key, revision, data, stored_data)
            else:
                data = _encode(objects.with_revision(unchanged, revision))
                record = EventRecord("MODIFIED", resource, *key, revision, data, stored_data)
            self._commit(record)
        result: JSON = orjson.loads(data)
        return result

    def delete(
        self,
        resource: str,
        namespace: str,
        name: str,
        *,
        preconditions: Preconditions | None = None,
        finalizers_to_add: tuple[str, ...] = (),
    ) -> DeleteResult:
        key = (namespace, name)
        with self._lock:
            self._check_open()
            _, stored_data = self._stored(resource, key)
            stored: JSON = orjson.loads(stored_data)
            objects.check_preconditions(resource, stored, preconditions)
            revision = self._revision + 1
            marked, remove = objects.mark_deleting(
                stored, finalizers_to_add, timestamp=self._timestamp(), revision=revision
            )
            if remove:
                data = _encode(objects.with_revision(stored, revision))
                self._commit(
                    EventRecord("DELETED", resource, namespace, name, revision, data, stored_data)
                )
            elif marked is None:
                return DeleteResult(object=stored, deleted=False)
            else:
                data = _encode(marked)
                self._commit(
                    EventRecord("MODIFIED", resource, namespace, name, revision, data, stored_data)
                )
        return DeleteResult(object=orjson.loads(data), deleted=remove)

    # -- watch ---------------------------------------------------------------------------
    def watch(self, resource: str, namespace: str | None = None, *, since: int | None) -> HubWatch:
        loop = asyncio.get_running_loop()
        if since is not None and since < 0:
            raise StoreError(f"invalid resource version: {since}")
        backlog: builtins.list[EventRecord] | Replay
        with self._lock:
            if not since:
                backlog = self._replay(resource, namespace)
            else:
                backlog = self._hub.events_after(since, resource, namespace)
            # A ``since`` ahead of the store only sees writes after it (upstream would wait
            # for it to catch up or fail with "Too large resource version").
            return self._hub.open(
                resource,
                namespace,
                backlog=backlog,
                revision=max(self._revision, since or 0),
                loop=loop,
                after=since or 0,
            )

    def _replay(self, resource: str, namespace: str | None) -> Replay:
        # A snapshot only: the records are built (and sorted) as the watch is read.
        bucket = self._objects.get(resource, {})
        if namespace is None:
            return Replay(resource, builtins.list(bucket.items()))
        return Replay(resource, [item for item in bucket.items() if item[0][0] == namespace])
