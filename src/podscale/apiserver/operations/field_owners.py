"""Field ownership on every write: ``metadata.managedFields`` as kube-apiserver keeps it.

The shell between the write operations (``operations.write_verbs``, ``operations.subresources``,
``operations.namespace``, ``operations.apply``) and the pure core in
``apiserver.fieldmanager`` (``merge.update``/``merge.apply``, ``managed`` entries, merge
types from ``types.schema_for_kind``):

- ``record_update`` is apimachinery's ``FieldManager.UpdateNoErrors``: the entries after a
  non-apply write by a manager, at the server clock's ``now``. A failure never fails the
  write: it is logged (at most once a second) and the live object's entries are kept.
- ``decode_entries`` / ``store_entries`` read and write the entries of an object; a request
  that sends ``managedFields`` keeps them (what kubectl's client-side to server-side apply
  migration patches), ``[]`` or ``[{}]`` resets them, and a subresource write ignores them.
- ``log_failure``: the once-a-second error log of a failed recording, shared with
  ``operations.scale_owners`` (the ``/scale`` subresource's recording on the parent).

Decoded and encoded entries are memoized by their JSON bytes: the simulation's hot paths
(pod and HPA status writes) keep writing objects whose entries rarely change; a new field
set's ``fieldsV1`` bytes are joined from those of its subtrees (``_fields_bytes``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import orjson

from podscale.api.kinds import KindInfo
from podscale.api.timestamps import format_time
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import (
    ManagedEntry,
    decode_managed_fields,
    sort_entries,
)
from podscale.apiserver.fieldmanager.managers import manager_name
from podscale.apiserver.fieldmanager.merge import update as update_entries
from podscale.apiserver.fieldmanager.merge import update_changes
from podscale.apiserver.fieldmanager.schema import TypeInfo, type_for
from podscale.apiserver.fieldmanager.types import schema_for_kind
from podscale.apiserver.operations.settled_entries import settled
from podscale.apiserver.registry.admission import WriteOptions
from podscale.apiserver.state import ServerState

__all__ = [
    "decode_entries",
    "log_failure",
    "merge_type",
    "now_text",
    "record_update",
    "store_entries",
    "writer",
]

JSON = dict[str, Any]
_LOG = logging.getLogger(__name__)
_MEMO_LIMIT: Final = 4096
# Subtrees of field sets: many per entry, shared between objects of a kind.
_FIELDS_MEMO_LIMIT: Final = 16384

_types: dict[int, tuple[Any, TypeInfo]] = {}
_decoded: dict[bytes, tuple[ManagedEntry, ...]] = {}
_entry_json: dict[ManagedEntry, bytes] = {}
_fields_json: dict[FieldSet, bytes] = {}
_last_failure: list[datetime] = []


def writer(options: WriteOptions) -> str:
    """The manager a write is recorded under: ``?fieldManager=``, else the User-Agent's
    product token (``kubectl/v1.33.0 (...)`` -> ``kubectl``)."""
    return manager_name(options.field_manager or None, options.user_agent or None)


def now_text(state: ServerState) -> str:
    return format_time(state.clock.now())


def merge_type(state: ServerState, info: KindInfo, subresource: str = "") -> TypeInfo:
    """The merge type of ``info``'s objects (``subresource``'s), built once per schema:
    ``TypeInfo`` fills in lazily, so a shared one gets cheaper with every write."""
    schema = schema_for_kind(state, info, subresource)
    if schema is None:
        return type_for(None)
    found = _types.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    if len(_types) > _MEMO_LIMIT:
        _types.clear()
    made = type_for(schema)
    _types[id(schema)] = (schema, made)  # the schema is held, so its id stays unique
    return made


def decode_entries(raw: Any) -> list[ManagedEntry]:
    """The entries of a ``metadata.managedFields`` value; ``ValueError`` for a bad one."""
    return list(_decode(raw))


def _decode(raw: Any) -> tuple[ManagedEntry, ...]:
    if not raw:
        return ()
    key = orjson.dumps(raw)
    found = _decoded.get(key)
    if found is None:
        if not isinstance(raw, list):
            raise ValueError("managedFields must be a list")
        found = tuple(decode_managed_fields(raw))
        if len(_decoded) > _MEMO_LIMIT:
            _decoded.clear()
        _decoded[key] = found
    return found


def _entry_bytes(entry: ManagedEntry) -> bytes:
    """One entry's JSON as ``managed.encode_managed_fields`` writes it (same keys, same
    order), memoized: most entries of a written object are the ones it had."""
    found = _entry_json.get(entry)
    if found is None:
        fields = _fields_bytes(entry.fields)
        doc: JSON = {"manager": entry.manager, "operation": entry.operation}
        if entry.api_version:
            doc["apiVersion"] = entry.api_version
        if entry.time:
            doc["time"] = entry.time
        doc["fieldsType"] = "FieldsV1"
        doc["fieldsV1"] = orjson.Fragment(fields)
        if entry.subresource:
            doc["subresource"] = entry.subresource
        found = orjson.dumps(doc)
        if len(_entry_json) > _MEMO_LIMIT:
            _entry_json.clear()
        _entry_json[entry] = found
    return found


def _fields_bytes(fields: FieldSet) -> bytes:
    """``orjson.dumps(fields.to_fields_v1())``, built from the bytes of its subtrees, each
    memoized by its (immutable) set: a new set mostly holds subtrees already met (a pod's
    conditions and containers, while its IPs are its own), which are not encoded again.
    orjson writes a dict as ``{`` key ``:`` value, ... ``}`` in insertion order, which is
    what this joins, in ``to_fields_v1``'s order (``"."`` first). Were two elements ever to
    print as the same key, the dict would keep one of them: such a set is encoded whole."""
    found = _fields_json.get(fields)
    if found is not None:
        return found
    members, children = fields.members, fields.children
    keys: list[str] = []
    parts: list[bytes] = []
    for pe in sorted(members | children.keys()):
        text = pe.to_fields_v1_key()
        child = children.get(pe)
        if child is None:
            body = b"{}"
        else:
            body = _fields_bytes(child)  # never empty: children are not
            if pe in members:
                body = b'{".":{},' + body[1:]
        keys.append(text)
        parts.append(orjson.dumps(text) + b":" + body)
    if len(set(keys)) == len(keys):
        found = b"{" + b",".join(parts) + b"}"
    else:
        found = orjson.dumps(fields.to_fields_v1())
    if len(_fields_json) > _FIELDS_MEMO_LIMIT:
        _fields_json.clear()
    _fields_json[fields] = found
    return found


def store_entries(meta: JSON, entries: Sequence[ManagedEntry]) -> None:
    """Set ``meta``'s managedFields to ``entries`` as the API server stores them
    (``managed.encode_managed_fields``; none: the key goes, as Go's omitempty)."""
    kept = tuple(sort_entries(e for e in entries if not e.fields.empty()))
    _file(meta, kept, b"[" + b",".join(_entry_bytes(e) for e in kept) + b"]")


def _file(
    meta: JSON,
    kept: tuple[ManagedEntry, ...],
    encoded: bytes,
    docs: list[dict[str, Any]] | None = None,
) -> None:
    """``store_entries`` of ``kept`` (in order, none empty), ``encoded`` their JSON, and
    ``docs`` that JSON decoded, when at hand (``settled_entries.Settled.shared``)."""
    if not kept:
        meta.pop("managedFields", None)
        return
    # The next write of this object decodes exactly these bytes: it finds them here.
    if len(_decoded) > _MEMO_LIMIT:
        _decoded.clear()
    _decoded[encoded] = kept
    meta["managedFields"] = orjson.loads(encoded) if docs is None else docs


def _is_reset(raw: Any) -> bool:
    """``[]`` or ``[{}]`` in a request: the client asks for the entries to be dropped."""
    return isinstance(raw, list) and (raw == [] or raw == [{}])


def _entries_for(
    old: Mapping[str, Any] | None, new: Mapping[str, Any], subresource: str
) -> tuple[ManagedEntry, ...]:
    """The entries a write starts from (upstream's decodeLiveOrNew): the request's own when
    it sends valid ones on the main resource, none when it resets them, else the live ones."""
    live_raw = ((old or {}).get("metadata") or {}).get("managedFields")
    if not subresource:
        sent = (new.get("metadata") or {}).get("managedFields")
        if _is_reset(sent):
            return ()
        try:
            entries = _decode(sent)
        except ValueError:
            entries = ()
        if entries:
            return entries
    try:
        return _decode(live_raw)
    except ValueError:
        return ()


def log_failure(state: ServerState, info: KindInfo, new: Mapping[str, Any], err: Exception) -> None:
    """Log a failed recording of ``new``'s entries, at most once a second (upstream's
    ``UpdateNoErrors`` throttle); the caller keeps the live object's entries."""
    now = state.clock.now()
    if _last_failure and now - _last_failure[0] < timedelta(seconds=1):
        return
    _last_failure[:] = [now]
    meta = new.get("metadata") or {}
    _LOG.error(
        "[SHOULD NOT HAPPEN] failed to update managedFields (restored previous managedFields "
        "from live object): %s %s/%s: %s",
        info.kind, meta.get("namespace", ""), meta.get("name", ""), err,
    )  # fmt: skip


def record_update(
    state: ServerState,
    info: KindInfo,
    old: Mapping[str, Any] | None,
    new: JSON,
    manager: str,
    *,
    subresource: str = "",
    shared: bool = False,
) -> None:
    """Set ``new``'s managedFields for a non-apply write of it over ``old`` (None: create).
    ``shared``: ``new`` is encoded and dropped, never handed out (a write's object that is
    not a dry run: the store answers with its own decoding), so its managedFields may be
    entries that other writes' objects share (``settled_entries.Settled.shared``), which
    no one changes."""
    meta = new["metadata"]
    live_raw = ((old or {}).get("metadata") or {}).get("managedFields")
    docs: list[dict[str, Any]] | None = None
    try:
        entries = _entries_for(old, new, subresource)
        t, now = merge_type(state, info), now_text(state)
        if entries:
            # ``merge.update`` in its two halves, the second kept by ``settled_entries``.
            answer = settled(
                entries, update_changes(old or {}, new, t), manager,
                api_version=info.api_version, subresource=subresource, now=now,
                entry_bytes=_entry_bytes,
            )  # fmt: skip
            kept, encoded = answer.entries, answer.encoded
            if shared and answer.shared is not None:
                docs = answer.shared
        else:
            result = update_entries(
                old or {}, new, manager, entries, t,
                api_version=info.api_version, now=now, subresource=subresource,
            )  # fmt: skip
            kept = tuple(sort_entries(e for e in result if not e.fields.empty()))
            encoded = b"[" + b",".join(_entry_bytes(e) for e in kept) + b"]"
    except Exception as err:
        log_failure(state, info, new, err)
        if live_raw:
            meta["managedFields"] = live_raw
        else:
            meta.pop("managedFields", None)
        return
    _file(meta, kept, encoded, docs)
