"""Whole lists read again and again, each object decoded and served once while unchanged.

A reader that lists the same resource every simulated minute (a scenario's snapshot, read as
kubectl would: ``podscale.scenario.snapshot``) paid for decoding and serving every object of
it each time, although few changed in between. ``SharedItems`` keeps, per listed kind and
namespace, a ``store.decode_memo.DecodeMemo`` of the served items (``resources.to_served``
plus the ``apiVersion``/``kind`` that ``list_verbs.list_body`` gives them) by their stored bytes;
``list_verbs.list_shared_page`` reads through it. Exact: a served item depends only on the stored
bytes and the served kind (the memo is replaced when the kind changes, a CRD's new schema
say), and the listing itself (which objects, in which order, at which revision) is the one
``list_verbs.list_page`` makes. Items are shared between the reader's lists: read-only.
"""

from __future__ import annotations

from typing import Any

import orjson

from podscale.api.kinds import KindInfo
from podscale.apiserver.resources import to_served
from podscale.store.decode_memo import DecodeMemo

__all__ = ["SharedItems", "served_item", "served_object"]

JSON = dict[str, Any]
Scope = tuple[str, str, str, str | None]


def served_item(data: bytes, info: KindInfo) -> JSON:
    """A stored object's bytes as a list of ``info`` serves the item."""
    return served_object(orjson.loads(data), info)


def served_object(stored: JSON, info: KindInfo) -> JSON:
    """A stored object (decoded, then owned by the caller) as a list of ``info`` serves it."""
    item = to_served(stored, info)
    item.setdefault("apiVersion", info.api_version)
    item.setdefault("kind", info.kind)
    return item


class SharedItems:
    """Served items by stored bytes, one memo per (kind, namespace) listed."""

    def __init__(self) -> None:
        self._memos: dict[Scope, tuple[KindInfo, DecodeMemo[JSON]]] = {}

    def memo(self, info: KindInfo, namespace: str | None) -> DecodeMemo[JSON]:
        scope = (info.group, info.version, info.plural, namespace)
        held = self._memos.get(scope)
        if held is None or (held[0] is not info and held[0] != info):
            held = self._memos[scope] = (info, DecodeMemo(lambda data: served_item(data, info)))
        return held[1]
