"""The ``Store`` contract: versioned Kubernetes objects, optimistic concurrency and watch.

Two backends implement it: ``memory`` (simulation and tests) and ``sqlite`` (the embedded,
durable default). The API server (``podscale.apiserver``) and the in-process client sit on
top; they do defaulting and validation first, and translate these errors into upstream's
``Status`` objects. The contract follows etcd + kube-apiserver's storage layer
(``../shared/reference/upstream-behavior.md`` §1.1):

- One global revision, strictly increasing, never reused or lowered (not even across a
  restart). Every write gets the next revision; it is the object's ``resourceVersion``.
- Objects are Kubernetes JSON dicts. The store owns ``metadata.uid``,
  ``creationTimestamp`` and ``resourceVersion``; ``generation`` is the writer's (the API
  server's strategies set it per kind): absent on create stays absent, absent on update
  keeps the stored value. The store never changes other fields.
  Objects handed out are copies: mutating them never changes the store.
- Resources are named like upstream's GroupResource string: ``pods``, ``replicasets.apps``,
  ``horizontalpodautoscalers.autoscaling`` (stored once, in the preferred version).
- Watches deliver every change after a revision, in revision order, with no gap and no
  duplicate; history is bounded, and a watch from before it fails with ``ExpiredError``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

import orjson

__all__ = [
    "AlreadyExistsError",
    "Clock",
    "ConflictError",
    "DeleteResult",
    "EventType",
    "ExpiredError",
    "ListResult",
    "NotFoundError",
    "Preconditions",
    "Store",
    "StoreError",
    "Watch",
    "WatchEvent",
]

JSON = dict[str, Any]
EventType = Literal["ADDED", "MODIFIED", "DELETED"]


class Clock(Protocol):
    """Where time comes from: the wall clock in production, a virtual clock in simulation."""

    def now(self) -> datetime: ...


class StoreError(Exception):
    """Base of every store failure; ``resource`` and ``name`` say what it was about."""

    def __init__(self, message: str, *, resource: str = "", name: str = "") -> None:
        super().__init__(message)
        self.resource = resource
        self.name = name


class NotFoundError(StoreError):
    """No such object. Message: ``replicasets.apps "web" not found`` (upstream's)."""


class AlreadyExistsError(StoreError):
    """Create of an existing name. Message: ``replicasets.apps "web" already exists``."""


class ConflictError(StoreError):
    """A stale resourceVersion or a failed delete precondition (HTTP 409, reason Conflict).

    Stale update: ``Operation cannot be fulfilled on replicasets.apps "web": the object has
    been modified; please apply your changes to the latest version and try again``.
    Failed precondition: ``Operation cannot be fulfilled on replicasets.apps "web":
    Precondition failed: UID in precondition: X, UID in object meta: Y`` (likewise for
    ResourceVersion), as upstream words them.
    """


class ExpiredError(StoreError):
    """A watch or read from a revision older than the kept history (HTTP 410, Expired).

    Watch message: ``too old resource version: X (Y)`` with Y the oldest revision still
    available minus one, exactly as upstream's watch cache. Lists get etcd3's messages
    (``listing.LIST_EXPIRED``, ``listing.CONTINUE_EXPIRED``).
    """


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One change. ``object`` is the full object at ``revision``; for DELETED, its last
    state with ``metadata.resourceVersion`` set to the deletion's revision.

    ``previous_json`` is the stored state this change replaced, JSON-encoded (None for a
    creation or a replayed ADDED); ``previous()`` decodes it on demand. Selector watches
    need it: like upstream's watch cache, an object whose previous state matched and whose
    new state does not is sent as DELETED. ``previous_known`` is False when the store no
    longer has it (history restored without it); consumers must then guess.
    """

    type: EventType
    object: JSON
    revision: int
    previous_json: bytes | None = None
    previous_known: bool = True

    def previous(self) -> JSON | None:
        if self.previous_json is None:
            return None
        value = orjson.loads(self.previous_json)
        return value if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True)
class ListResult:
    """A consistent snapshot at ``revision`` (the list's ``metadata.resourceVersion``).

    ``continue_token`` is set when ``limit`` cut the list; passing it back continues from
    the same snapshot revision. ``remaining`` counts the items not yet returned, if known.
    """

    items: list[JSON]
    revision: int
    continue_token: str | None = None
    remaining: int | None = None


@dataclass(frozen=True, slots=True)
class Preconditions:
    """Delete preconditions (``DeleteOptions.preconditions``)."""

    uid: str | None = None
    resource_version: str | None = None


@dataclass(frozen=True, slots=True)
class DeleteResult:
    """``deleted`` is True when the object is gone; False when it now waits on finalizers
    (``deletionTimestamp`` set). ``object`` is its last or current state."""

    object: JSON
    deleted: bool


class Watch(Protocol):
    """An open watch. Async-iterate it for events; ``next(timeout)`` returns ``None`` when
    nothing happened in time (the API server sends a bookmark then). ``close()`` ends it;
    iteration then stops. A watcher that falls too far behind is closed by the store."""

    def __aiter__(self) -> AsyncIterator[WatchEvent]: ...

    async def next(self, timeout: float | None = None) -> WatchEvent | None: ...

    def take_ready(self, limit: int) -> list[WatchEvent]:
        """Up to ``limit`` events that are already queued, without waiting (none once the
        watch has ended). Thread-safe, so a server can decode a replay off its loop."""
        ...

    def close(self) -> None: ...


class Store(Protocol):
    """Versioned objects of many resources. Thread-safe; watches are consumed in asyncio."""

    @property
    def revision(self) -> int:
        """The latest revision (the resourceVersion of the latest write)."""
        ...

    def resource_revision(self, resource: str) -> int:
        """The revision of the latest write (create, update, delete) to an object of
        ``resource``, 0 when none is known; it moves with every such write, so a cache of
        one resource (the API server's custom kinds, from the stored CRDs) can tell it is
        current without listing."""
        ...

    def create(self, resource: str, obj: JSON) -> JSON:
        """Store a new object; returns it with uid, creationTimestamp and resourceVersion
        set. ``metadata.namespace`` is "" or absent for cluster resources.
        Raises ``AlreadyExistsError``."""
        ...

    def get(self, resource: str, namespace: str, name: str) -> JSON:
        """The current object. Raises ``NotFoundError``."""
        ...

    def revision_of(self, resource: str, namespace: str, name: str) -> int | None:
        """The revision that last wrote the object (its resourceVersion), None when it does
        not exist: a cheap check that something read before is still current."""
        ...

    def get_encoded(self, resource: str, namespace: str, name: str) -> bytes:
        """The current object as stored: the very JSON bytes the store holds for it (see
        ``update``'s ``current``). Raises ``NotFoundError``."""
        ...

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
        """Objects of ``resource`` (in ``namespace``, or all namespaces for ``None``), sorted
        by namespace then name, keeping those ``predicate`` accepts (label and field
        selectors). ``revision`` (positive, never with ``continue_token``) reads the state
        as of exactly that revision: ``TooLargeResourceVersionError`` when the store has
        not reached it, ``ExpiredError`` when the kept history no longer reaches back to
        it. Raises ``ExpiredError`` for a continue token whose snapshot is gone.

        ``decode`` turns an object's stored (JSON) bytes into its item, a fresh
        ``orjson.loads`` by default; a ``decode_memo.DecodeMemo`` hands out what it made for
        the same bytes before, so a caller listing often decodes only what changed."""
        ...

    async def wait_for_revision(self, revision: int, *, timeout: float) -> int:
        """Wait (in the running event loop's time) until the store's revision is at least
        ``revision`` and return it; ``TooLargeResourceVersionError`` after ``timeout``."""
        ...

    def update(
        self, resource: str, obj: JSON, *, current: tuple[bytes, JSON] | None = None
    ) -> JSON:
        """Replace an object. A non-empty ``metadata.resourceVersion`` must equal the stored
        one (else ``ConflictError``); an empty one is an unconditional update. uid and
        creationTimestamp are kept from the stored object. An object with a
        ``deletionTimestamp`` whose finalizers become empty is deleted by this update
        (a DELETED event). Raises ``NotFoundError``.

        ``current``: bytes ``get_encoded`` gave and the caller's decoding of them, unchanged
        since, which the store may take for the stored object (and hand back, for a write
        that changes nothing) instead of decoding it again while those bytes are still the
        ones it holds; when a write came between, they are not, and it decodes its own."""
        ...

    def delete(
        self,
        resource: str,
        namespace: str,
        name: str,
        *,
        preconditions: Preconditions | None = None,
        finalizers_to_add: tuple[str, ...] = (),
    ) -> DeleteResult:
        """Delete an object, or mark it for deletion when it has finalizers.

        ``finalizers_to_add`` carries the propagation policy's finalizer (``orphan`` or
        ``foregroundDeletion``) the API server adds, as upstream's deletion strategy.
        With finalizers the object gets ``deletionTimestamp`` (and
        ``deletionGracePeriodSeconds: 0``) once and stays until an update removes them.
        Raises ``NotFoundError``, ``ConflictError`` (preconditions)."""
        ...

    def watch(self, resource: str, namespace: str | None = None, *, since: int | None) -> Watch:
        """Watch changes after revision ``since``. ``None`` or 0 first replays the current
        objects as ADDED events (at their own revisions, in list order), then goes live.
        Raises ``ExpiredError`` when ``since`` is older than the kept history. Must be
        called from a running asyncio event loop (the watch delivers into it)."""
        ...

    def close(self) -> None:
        """Release resources; open watches end."""
        ...
