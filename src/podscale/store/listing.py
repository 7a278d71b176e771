"""List pages: ordering, filtering, ``limit`` and opaque continue tokens.

The engine (``engine``) hands this module a consistent copy of one resource's entries and
the revision it was taken at; this module picks the page. Pure: no locks, no I/O.

Continue tokens are base64url JSON ``{"v":1,"rv":R,"r":resource,"ns":namespace,"k":last}``.
A continued page is served from the snapshot at the first page's revision ``R``, as
upstream's etcd reads at a revision: the engine rebuilds it from the current objects by
undoing the changes after ``R`` kept in the watch history. A token whose ``R`` the history
no longer covers gets upstream's 410 (``ExpiredError`` with ``CONTINUE_EXPIRED``). An exact
list (``resourceVersionMatch=Exact``) is served the same way; past the history it gets
``LIST_EXPIRED``. Its pages' tokens carry the exact revision, so paging stays consistent.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from podscale.store.errors import InvalidContinueError
from podscale.store.interface import ExpiredError

__all__ = [
    "CONTINUE_EXPIRED",
    "LIST_EXPIRED",
    "Continuation",
    "decode_continue",
    "encode_continue",
    "pick_page",
]

JSON = dict[str, Any]
Key = tuple[str, str]

# staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go (expired, continueExpired): an
# exact list older than the kept history, and a continue token whose snapshot is gone.
LIST_EXPIRED = "The resourceVersion for the provided list is too old."
CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter."
)


@dataclass(frozen=True, slots=True)
class Continuation:
    """Where a continued list resumes: after ``key``, reporting ``revision``."""

    revision: int
    key: Key


def encode_continue(resource: str, namespace: str | None, revision: int, key: Key) -> str:
    payload = {"v": 1, "rv": revision, "r": resource, "ns": namespace, "k": list(key)}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(
    token: str, resource: str, namespace: str | None, *, floor: int
) -> Continuation:
    """Check and open a token. ``floor`` is the oldest revision a watch may start from."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload = json.loads(raw)
        revision = payload["rv"]
        key = payload["k"]
        same_list = payload["r"] == resource and payload["ns"] == namespace
    except (binascii.Error, ValueError, TypeError, KeyError):
        raise InvalidContinueError("invalid continue token: malformed") from None
    if payload.get("v") != 1 or not isinstance(revision, int) or revision <= 0:
        raise InvalidContinueError("invalid continue token: malformed")
    if not (isinstance(key, list) and len(key) == 2 and all(isinstance(p, str) for p in key)):
        raise InvalidContinueError("invalid continue token: malformed")
    if not same_list:
        raise InvalidContinueError("invalid continue token: issued for another list")
    if revision < floor:
        raise ExpiredError(CONTINUE_EXPIRED, resource=resource)
    return Continuation(revision=revision, key=(key[0], key[1]))


@dataclass(frozen=True, slots=True)
class Page:
    """The chosen items and, when cut by ``limit``, the last returned key."""

    items: list[JSON]
    last_key: Key | None
    remaining: int | None


def pick_page(
    entries: Sequence[tuple[Key, bytes]],
    decode: Callable[[bytes], JSON],
    *,
    predicate: Callable[[JSON], bool] | None,
    limit: int | None,
    after: Key | None,
) -> Page:
    """``entries`` sorted by key. Decodes only what it inspects; ``remaining`` is known
    only without a predicate (upstream leaves ``remainingItemCount`` unset with selectors)."""
    start = 0
    if after is not None:
        start = _first_after(entries, after)
    items: list[JSON] = []
    last: Key | None = None
    position = start
    total = len(entries)
    while position < total:
        if limit is not None and limit > 0 and len(items) >= limit:
            break
        key, data = entries[position]
        position += 1
        obj = decode(data)
        if predicate is None or predicate(obj):
            items.append(obj)
            last = key
    if position >= total or last is None:
        return Page(items=items, last_key=None, remaining=None)
    remaining = total - position if predicate is None else None
    return Page(items=items, last_key=last, remaining=remaining)


def _first_after(entries: Sequence[tuple[Key, bytes]], after: Key) -> int:
    low, high = 0, len(entries)
    while low < high:
        middle = (low + high) // 2
        if entries[middle][0] <= after:
            low = middle + 1
        else:
            high = middle
    return low
