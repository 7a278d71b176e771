"""``metadata.managedFields`` entries: decoding, encoding, identity, order and the cap.

apimachinery's ``util/managedfields`` bookkeeping around structured-merge-diff: an entry is
identified by manager, operation, subresource and, for ``Update`` entries only, apiVersion (an
applier keeps one entry whichever version it applies with; an updater gets one per version);
entries with no fields are dropped; the list is ordered Apply before Update, then by time
(to the second), manager, apiVersion and subresource. ``merge.apply`` and ``merge.update``
read and write these entries; the API server stores ``encode_managed_fields``'s output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Final, Literal

from podscale.apiserver.fieldmanager.fieldpath import path_from_strings
from podscale.apiserver.fieldmanager.fieldset import FieldSet

__all__ = [
    "ANCIENT_CHANGES",
    "MAX_UPDATE_MANAGERS",
    "STRIPPED_FIELDS",
    "ManagedEntry",
    "cap_update_managers",
    "decode_managed_fields",
    "encode_managed_fields",
    "entry_key",
    "manager_identifier",
    "sort_entries",
    "time_seconds",
]

Operation = Literal["Apply", "Update"]
EntryKey = tuple[str, str, str, str]

# apimachinery's DefaultMaxUpdateManagers and the bucket older updates are folded into.
MAX_UPDATE_MANAGERS: Final = 10
ANCIENT_CHANGES: Final = "ancient-changes"

# Fields no manager owns (apimachinery's stripMetaManager): identity and server-set metadata.
STRIPPED_FIELDS: Final = FieldSet.of(
    [
        path_from_strings("apiVersion"),
        path_from_strings("kind"),
        path_from_strings("metadata"),
        *(
            path_from_strings("metadata", name)
            for name in (
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "clusterName",
                "generation",
                "managedFields",
                "resourceVersion",
            )
        ),
    ]
)


@dataclass(frozen=True)
class ManagedEntry:
    """One ``managedFields`` entry; ``time`` is RFC 3339 text or None."""

    manager: str
    operation: Operation
    api_version: str
    time: str | None
    subresource: str
    fields: FieldSet


def entry_key(entry: ManagedEntry) -> EntryKey:
    """The entry's identity: the apiVersion counts for ``Update`` entries only."""
    version = entry.api_version if entry.operation == "Update" else ""
    return (entry.manager, entry.operation, version, entry.subresource)


def manager_identifier(entry: ManagedEntry) -> str:
    """Upstream's ``BuildManagerIdentifier``: the entry's identity as Go marshals it.

    Conflicts are grouped under managers sorted by this text.
    """
    parts = [f'"manager":{_go_string(entry.manager)}', f'"operation":{_go_string(entry.operation)}']
    if entry.operation == "Update" and entry.api_version:
        parts.append(f'"apiVersion":{_go_string(entry.api_version)}')
    if entry.subresource:
        parts.append(f'"subresource":{_go_string(entry.subresource)}')
    return "{" + ",".join(parts) + "}"


def _go_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        out = out.replace(raw, escaped)
    return out


@lru_cache(maxsize=4096)  # every write sorts its object's entries by these few times
def _seconds(time: str | None) -> int:
    """Unix seconds of an RFC 3339 time; 0 when absent or unreadable (as a nil time)."""
    if not time:
        return 0
    try:
        return int(datetime.fromisoformat(time).timestamp())
    except ValueError:
        return 0


def time_seconds(time: str | None) -> int:
    """The whole seconds ``sort_entries`` orders an entry's ``time`` by."""
    return _seconds(time)


def sort_entries(entries: Iterable[ManagedEntry]) -> list[ManagedEntry]:
    """Upstream's order: operation (Apply first), time, manager, apiVersion, subresource."""
    return sorted(
        entries,
        key=lambda e: (e.operation, _seconds(e.time), e.manager, e.api_version, e.subresource),
    )


def decode_managed_fields(meta_managed: list[Any] | None) -> list[ManagedEntry]:
    """Entries from ``metadata.managedFields``; ``ValueError`` names a malformed one.

    A later entry with the same identity replaces an earlier one.
    """
    by_key: dict[EntryKey, ManagedEntry] = {}
    for index, raw in enumerate(meta_managed or []):
        if not isinstance(raw, Mapping):
            raise ValueError(f"managedFields[{index}] must be an object")
        fields_type = raw.get("fieldsType", "")
        if fields_type == "":
            raise ValueError(f"managedFields[{index}]: missing fieldsType in managed fields entry")
        if fields_type != "FieldsV1":
            raise ValueError(
                f'managedFields[{index}]: invalid fieldsType "{fields_type}"'
                " in managed fields entry"
            )
        operation = raw.get("operation")
        if operation not in ("Apply", "Update"):
            raise ValueError(f'managedFields[{index}]: unsupported operation "{operation}"')
        try:
            fields = FieldSet.from_fields_v1(raw.get("fieldsV1") or {})
        except ValueError as err:
            raise ValueError(f"managedFields[{index}]: {err}") from None
        time = raw.get("time")
        entry = ManagedEntry(
            manager=str(raw.get("manager", "")),
            operation=operation,
            api_version=str(raw.get("apiVersion", "")),
            time=time if isinstance(time, str) and time else None,
            subresource=str(raw.get("subresource", "")),
            fields=fields,
        )
        by_key[entry_key(entry)] = entry
    return list(by_key.values())


def encode_managed_fields(entries: Iterable[ManagedEntry]) -> list[dict[str, Any]]:
    """``metadata.managedFields`` as the API server stores it: empty entries dropped, sorted,
    keys in the order of upstream's JSON (``apiVersion``, ``time``, ``subresource`` omitted
    when empty)."""
    out: list[dict[str, Any]] = []
    for entry in sort_entries(e for e in entries if not e.fields.empty()):
        doc: dict[str, Any] = {"manager": entry.manager, "operation": entry.operation}
        if entry.api_version:
            doc["apiVersion"] = entry.api_version
        if entry.time:
            doc["time"] = entry.time
        doc["fieldsType"] = "FieldsV1"
        doc["fieldsV1"] = entry.fields.to_fields_v1()
        if entry.subresource:
            doc["subresource"] = entry.subresource
        out.append(doc)
    return out


def cap_update_managers(
    entries: Sequence[ManagedEntry], limit: int = MAX_UPDATE_MANAGERS
) -> list[ManagedEntry]:
    """Fold the oldest ``Update`` entries into ``ancient-changes`` until at most ``limit``
    remain (upstream's capManagersManager): one bucket per apiVersion, holding the union of
    the folded fields and the latest of their times."""
    if sum(e.operation == "Update" for e in entries) <= limit:
        return list(entries)  # the common case: nothing to fold, no need to order them
    updaters = sorted(
        (e for e in entries if e.operation == "Update"),
        key=lambda e: (_seconds(e.time), manager_identifier(e)),
    )
    if len(updaters) <= limit:
        return list(entries)
    kept: dict[EntryKey, ManagedEntry] = {entry_key(e): e for e in entries}
    count = len(updaters)
    for oldest in updaters:
        if count <= limit:
            break
        if oldest.manager == ANCIENT_CHANGES and not oldest.subresource:
            continue  # a bucket is folded into, never out of
        del kept[entry_key(oldest)]
        bucket_key: EntryKey = (ANCIENT_CHANGES, "Update", oldest.api_version, "")
        bucket = kept.get(bucket_key)
        if bucket is None:
            kept[bucket_key] = replace(oldest, manager=ANCIENT_CHANGES, subresource="")
            continue  # the bucket took the folded entry's place: the count is unchanged
        later = oldest.time if _seconds(oldest.time) > _seconds(bucket.time) else bucket.time
        kept[bucket_key] = replace(bucket, fields=bucket.fields.union(oldest.fields), time=later)
        count -= 1
    return list(kept.values())
