"""The entries of a non-apply write after its comparison, kept for the writes that follow.

``field_owners.record_update`` compares the object before and after a write
(``merge.update_changes``) and settles the entries from that comparison
(``merge.settle_update``), then encodes them for ``metadata.managedFields``. The settling
and the encoding are a function of the live entries, the comparison's three field sets,
the writer's identity (manager, apiVersion, subresource) and ``now``; ``now`` enters in one
place only, the time of the writer's entry when it took a field (``merge.stamps``), and
through it in the order of the entries (``managed.sort_entries`` orders by time). Such a
writer's entry is made anew from its fields alone: its previous time (the last write's
``now``) does not enter the result, nor the key it is kept by (a writer that took nothing
keeps its entry, time and all: that time is checked on use). A controller rewriting its status
writes the same field set again and again, only values and the time moving: what is kept
here per key is the result with the writer's time cut out of its bytes, and the order of
every other entry's time against the ``now`` it was made at, so that a later ``now``
ordered the same way against them gives the same entries in the same order, with its own
time put in. A ``now`` ordered otherwise (a clock set back) is settled afresh.
More than ``MAX_UPDATE_MANAGERS`` entries could be folded into ``ancient-changes`` by time:
such writes are never kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

import orjson

from podscale.apiserver.fieldmanager.compare import Comparison
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import (
    MAX_UPDATE_MANAGERS,
    ManagedEntry,
    entry_key,
    time_seconds,
)
from podscale.apiserver.fieldmanager.merge import settle_update, stamps

__all__ = ["Settled", "settled"]

_TIME_KEY: Final = b'"time":'
_LIMIT: Final = 4096


class _Kept(NamedTuple):
    """A settled result: ``entries`` (the writer's at ``writer``, -1 when the result holds
    no ``now``), their bytes around the writer's time value (``head`` alone when none) and
    their decoded JSON (``docs``, never handed out: see ``Settled``); ``order``: the
    seconds a ``now`` must lie strictly between (``_window``), or equal, to stand among the
    other entries' times where the ``now`` it was made at stood; ``previous``: the writer's live
    time, which a result without ``now`` keeps (the key leaves it out)."""

    entries: tuple[ManagedEntry, ...]
    writer: int
    head: bytes
    tail: bytes
    order: tuple[float, float, float]
    docs: tuple[dict[str, Any], ...]
    previous: str | None


class Settled(NamedTuple):
    """``settled``'s answer: the entries as stored (none empty, in order), their JSON, and,
    when a kept result answered, that JSON decoded as a list whose entries other results
    share (only the writer's, which holds ``now``, is its own): fit for an object that is
    encoded and dropped, never for one handed to a caller, who could change them."""

    entries: tuple[ManagedEntry, ...]
    encoded: bytes
    shared: list[dict[str, Any]] | None


# The live entries as a key: each as a plain tuple of its fields (cheaper to make and hash
# than the entry), the writer's time left out.
_Live = tuple[tuple[str, str, str, str | None, str, FieldSet], ...]
_Key = tuple[_Live, FieldSet, FieldSet, FieldSet, str, str, str]
_kept: dict[_Key, _Kept] = {}


def _window(entries: Sequence[ManagedEntry], writer: int, now: str) -> tuple[float, float, float]:
    """Where ``now`` stands among the other entries' times (the seconds ``sort_entries``
    orders by): the nearest time below and above it, and itself when one of them is equal
    to it (else NaN). A later ``now`` compares to every other time as this one did exactly
    when it equals this one's seconds (when one was equal) or lies strictly between the
    two (when none was)."""
    moment = time_seconds(now)
    below, above, equal = -math.inf, math.inf, math.nan
    for index, entry in enumerate(entries):
        if index != writer:
            seconds = time_seconds(entry.time)
            if seconds < moment:
                below = max(below, seconds)
            elif seconds > moment:
                above = min(above, seconds)
            else:
                equal = moment
    return below, above, equal


def _within(window: tuple[float, float, float], now: str) -> bool:
    moment = time_seconds(now)
    below, above, equal = window
    if equal == equal:  # not NaN: a time equal to the kept now's
        return moment == equal
    return below < moment < above


def _make(
    entries: tuple[ManagedEntry, ...],
    writer: int,
    now: str,
    previous: str | None,
    entry_bytes: Callable[[ManagedEntry], bytes],
) -> _Kept | None:
    """The result cut around the writer's time; None when its bytes do not show the time
    once, exactly where it stands (never for the entries ``field_owners`` encodes)."""
    parts = [entry_bytes(e) for e in entries]
    docs = tuple(orjson.loads(b"[" + b",".join(parts) + b"]"))
    if writer < 0:
        everywhere = (-math.inf, math.inf, math.nan)  # no now in the result: any will do
        return _Kept(
            entries, writer, b"[" + b",".join(parts) + b"]", b"", everywhere, docs, previous
        )
    own = parts[writer]
    stamp = _TIME_KEY + orjson.dumps(now)
    if own.count(stamp) != 1 or own.count(_TIME_KEY) != 1 or docs[writer].get("time") != now:
        return None
    cut = own.index(stamp) + len(_TIME_KEY)
    before = b",".join(parts[:writer])
    after = b",".join(parts[writer + 1 :])
    head = b"[" + before + (b"," if before else b"") + own[:cut]
    tail = own[cut + len(stamp) - len(_TIME_KEY) :] + (b"," + after if after else b"") + b"]"
    return _Kept(entries, writer, head, tail, _window(entries, writer, now), docs, previous)


def _answer(found: _Kept, now: str, previous: str | None) -> Settled | None:
    """What ``found`` gives at ``now`` (None: not the same result, settled afresh)."""
    if found.writer < 0:
        if previous != found.previous:
            return None
        return Settled(found.entries, found.head, list(found.docs))
    if not _within(found.order, now):
        return None
    writer = found.writer
    entries = list(found.entries)
    mine = entries[writer]
    entries[writer] = ManagedEntry(
        mine.manager, mine.operation, mine.api_version, now, mine.subresource, mine.fields
    )
    docs = list(found.docs)
    docs[writer] = {**docs[writer], "time": now}  # the key keeps its place
    return Settled(tuple(entries), found.head + orjson.dumps(now) + found.tail, docs)


def settled(
    managed: Sequence[ManagedEntry],
    diff: Comparison,
    manager: str,
    *,
    api_version: str,
    subresource: str,
    now: str,
    entry_bytes: Callable[[ManagedEntry], bytes],
) -> Settled:
    """``merge.settle_update``'s entries (those with fields, as stored) and their JSON
    (``entry_bytes`` of each, joined as a list). Exact: kept by everything the result
    depends on but ``now`` and the writer's live time, whose effects (the writer's time,
    the order that time gives; the kept time of a writer that took nothing) are checked on
    each use."""
    previous: str | None = None
    live: list[tuple[str, str, str, str | None, str, FieldSet]] = []
    for e in managed:
        if (
            e.manager == manager
            and e.operation == "Update"
            and e.api_version == api_version
            and e.subresource == subresource
        ):
            previous = e.time
            live.append((e.manager, e.operation, e.api_version, None, e.subresource, e.fields))
        else:
            live.append((e.manager, e.operation, e.api_version, e.time, e.subresource, e.fields))
    memo_key = (
        tuple(live), diff.added, diff.modified, diff.removed, manager, api_version, subresource
    )  # fmt: skip
    found = _kept.get(memo_key)
    if found is not None:
        answer = _answer(found, now, previous)
        if answer is not None:
            return answer
    result = tuple(
        e
        for e in settle_update(
            diff, manager, managed, api_version=api_version, now=now, subresource=subresource
        )
        if not e.fields.empty()
    )
    encoded = b"[" + b",".join(entry_bytes(e) for e in result) + b"]"
    if len(managed) + 1 > MAX_UPDATE_MANAGERS:
        return Settled(result, encoded, None)  # folding by time may have happened: not kept
    writer = -1
    if stamps(diff):
        me = (manager, "Update", api_version, subresource)
        writer = next(i for i, e in enumerate(result) if entry_key(e) == me)
    made = _make(result, writer, now, previous, entry_bytes)
    if made is not None:
        if len(_kept) >= _LIMIT:
            _kept.clear()
        _kept[memo_key] = made
    return Settled(result, encoded, None)
