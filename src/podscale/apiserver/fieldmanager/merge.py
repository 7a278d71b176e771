"""Server-side apply and update: merged objects and who owns which field.

structured-merge-diff's ``merge.Updater`` with the bookkeeping apimachinery's field manager
wraps around it, as pure functions (``now`` is given, nothing is read or written):

- ``apply`` merges a manager's configuration over the live object. Fields it applied last time
  and no longer applies are removed unless another manager owns them. Any field another
  manager owns whose value the apply changes is a conflict: ``ConflictError`` unless
  ``force``, which moves those fields to the applier. Managers that set the same value share
  it, without conflict. An object no manager tracks yet is first attributed, whole, to
  ``before-first-apply``.
- ``update`` records a non-apply write: its manager takes every field the write added or
  changed (from whoever owned it), and every manager loses the fields it removed. A write
  to an object that exists but is tracked by no one stays untracked, as upstream.

Both drop ``metadata.managedFields`` from the objects they are given (the caller stores
``managed.encode_managed_fields`` of the returned entries) and never record identity or
server-set metadata (``managed.STRIPPED_FIELDS``). The value walks live in ``typed`` and
``compare``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from podscale.apiserver.fieldmanager.compare import Comparison, compare
from podscale.apiserver.fieldmanager.fieldpath import Path, format_path, format_value
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import (
    STRIPPED_FIELDS,
    EntryKey,
    ManagedEntry,
    cap_update_managers,
    entry_key,
    manager_identifier,
    sort_entries,
)
from podscale.apiserver.fieldmanager.schema import TypeInfo
from podscale.apiserver.fieldmanager.typed import (
    ensure_named_fields_are_members,
    merge,
    remove_fields,
    to_field_set,
)
from podscale.apiserver.fieldmanager.walk import same_value

__all__ = [
    "BEFORE_FIRST_APPLY",
    "Conflict",
    "ConflictError",
    "apply",
    "merge",
    "remove_fields",
    "settle_update",
    "stamps",
    "to_field_set",
    "update",
    "update_changes",
]

BEFORE_FIRST_APPLY: Final = "before-first-apply"


@dataclass(frozen=True)
class Conflict:
    """A field another manager owns and an apply would change."""

    manager: str
    api_version: str
    path: Path
    operation: str = "Update"
    subresource: str = ""

    @property
    def field(self) -> str:
        """The conflicting field as upstream prints it (a Status cause's ``field``)."""
        return format_path(self.path)

    @property
    def owner(self) -> str:
        """Upstream's printManager: ``"mgr" with subresource "scale" using apps/v1``."""
        text = format_value(self.manager)
        if self.subresource:
            text += f" with subresource {format_value(self.subresource)}"
        if self.operation == "Update":
            text += f" using {self.api_version}"
        return text

    @property
    def message(self) -> str:
        """A Status cause's ``message``: ``conflict with "mgr" using apps/v1``."""
        return f"conflict with {self.owner}"

    def identifier(self) -> str:
        entry = ManagedEntry(
            self.manager, "Apply" if self.operation == "Apply" else "Update",
            self.api_version, None, self.subresource, FieldSet(),
        )  # fmt: skip
        return manager_identifier(entry)


class ConflictError(Exception):
    """An apply changed fields other managers own; ``str()`` is kube-apiserver's 409 text."""

    def __init__(self, conflicts: Sequence[Conflict]) -> None:
        self.conflicts = tuple(conflicts)
        super().__init__(conflict_message(self.conflicts))


def conflict_message(conflicts: Sequence[Conflict]) -> str:
    """``Apply failed with N conflicts: ...`` as apimachinery's field manager words it."""
    if len(conflicts) == 1:
        only = conflicts[0]
        return f"Apply failed with 1 conflict: {only.message}: {only.field}"
    lines: list[str] = []
    for ident in sorted({c.identifier() for c in conflicts}):
        group = [c for c in conflicts if c.identifier() == ident]
        lines.append(f"conflicts with {group[0].owner}:")
        lines.extend(f"- {c.field}" for c in group)
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


def _without_managed_fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(obj)
    meta = out.get("metadata")
    if isinstance(meta, Mapping) and "managedFields" in meta:
        out["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return out


def _prune(
    merged: dict[str, Any], owned: Mapping[EntryKey, FieldSet], last: FieldSet, t: TypeInfo
) -> dict[str, Any]:
    """Remove what the applier applied last time and nobody (itself included, through its
    new configuration) owns now: upstream's prune, addBackOwnedItems, addBackDanglingItems."""
    last = ensure_named_fields_are_members(last, t)
    pruned = remove_fields(merged, last, t)
    everyone = FieldSet()
    for fields in owned.values():
        everyone = everyone.union(fields)
    merged_set = ensure_named_fields_are_members(to_field_set(merged, t), t)
    pruned_set = ensure_named_fields_are_members(to_field_set(pruned, t), t)
    keep = pruned_set.union(ensure_named_fields_are_members(everyone, t))
    pruned = remove_fields(merged, merged_set.difference(keep), t)
    # Only what the applier itself owned may go: anything else removed above comes back.
    pruned_set = ensure_named_fields_are_members(to_field_set(pruned, t), t)
    return remove_fields(merged, merged_set.difference(pruned_set).intersection(last), t)


def apply(
    live: Mapping[str, Any],
    applied: Mapping[str, Any],
    manager: str,
    managed: Sequence[ManagedEntry],
    t: TypeInfo,
    *,
    api_version: str,
    force: bool,
    now: str,
    subresource: str = "",
) -> tuple[dict[str, Any], list[ManagedEntry]]:
    """The object after ``manager`` applies ``applied`` to ``live``, and the new entries.

    Raises ``ConflictError`` (unless ``force``) and ``typed.MergeError`` for a configuration
    that does not fit ``t``. The applier's entry gets time ``now`` when the object changed;
    a no-op apply keeps the time it had (none for a new applier).
    """
    live = _without_managed_fields(live)
    applied = _without_managed_fields(applied)
    if not managed:
        managed = update({}, live, BEFORE_FIRST_APPLY, [], t,
                         api_version=api_version, now=now, subresource=subresource)  # fmt: skip
    entries = {entry_key(e): e for e in managed}
    me: EntryKey = (manager, "Apply", "", subresource)
    previous = entries.get(me)
    owned = {key: e.fields for key, e in entries.items()}
    owned[me] = to_field_set(applied, t)
    merged = merge(live, applied, t)
    if previous is not None and not previous.fields.empty():
        merged = _prune(merged, owned, previous.fields, t)

    diff = compare(live, merged, t)
    changed = diff.modified.union(diff.added)
    conflicts: list[Conflict] = []
    taken: dict[EntryKey, FieldSet] = {}
    for key, fields in owned.items():
        overlap = fields.intersection(changed) if key != me else FieldSet()
        if overlap.empty():
            continue
        taken[key] = overlap
        e = entries[key]
        conflicts.extend(
            Conflict(e.manager, e.api_version, path, e.operation, e.subresource)
            for path in overlap.leaves()
        )
    if conflicts and not force:
        conflicts.sort(key=lambda c: c.identifier())  # stable: paths keep their order
        raise ConflictError(conflicts)

    result: list[ManagedEntry] = []
    for key, fields in owned.items():
        fields = fields.difference(taken.get(key, FieldSet())).difference(diff.removed)
        if key == me:
            fields = fields.difference(STRIPPED_FIELDS)
            time = now if not same_value(live, merged) else (previous.time if previous else None)
            entry = ManagedEntry(manager, "Apply", api_version, time, subresource, fields)
        else:
            entry = replace(entries[key], fields=fields)
        if not fields.empty():
            result.append(entry)
    return merged, sort_entries(result)


def update(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    manager: str,
    managed: Sequence[ManagedEntry],
    t: TypeInfo,
    *,
    api_version: str,
    now: str,
    subresource: str = "",
) -> list[ManagedEntry]:
    """The entries after ``manager`` writes ``new`` over ``old`` (create: ``old`` is ``{}``).

    The writer's entry gets time ``now`` when it took any field; more than ten ``Update``
    entries are folded into ``ancient-changes``, oldest first.
    """
    meta = old.get("metadata")
    if not managed and isinstance(meta, Mapping) and meta.get("uid"):
        return []
    diff = update_changes(old, new, t)
    return settle_update(
        diff, manager, managed, api_version=api_version, now=now, subresource=subresource
    )


def update_changes(old: Mapping[str, Any], new: Mapping[str, Any], t: TypeInfo) -> Comparison:
    """What ``update`` finds the write changed (managedFields left out on both sides)."""
    return compare(_without_managed_fields(old), _without_managed_fields(new), t)


def _taken(diff: Comparison) -> FieldSet:
    return diff.modified.union(diff.added).difference(STRIPPED_FIELDS)


def stamps(diff: Comparison) -> bool:
    """Whether ``settle_update`` gives the writer an entry stamped ``now`` (it took a field);
    otherwise its result does not depend on ``now``."""
    return not _taken(diff).empty()


def settle_update(
    diff: Comparison,
    manager: str,
    managed: Sequence[ManagedEntry],
    *,
    api_version: str,
    now: str,
    subresource: str = "",
) -> list[ManagedEntry]:
    """``update``'s entries from its comparison ``diff``: a function of ``diff``, the
    entries, the writer's identity and ``now`` alone (``field_owners`` keeps its results)."""
    changed = diff.modified.union(diff.added)
    taken = changed.difference(STRIPPED_FIELDS)
    me: EntryKey = (manager, "Update", api_version, subresource)
    # The writer's own fields are (fields - changed - removed) | taken; as ``taken`` is
    # ``changed`` less the stripped fields, that is (fields - removed - stripped changes)
    # | taken: the same paths, and when the writer already owned what it changed (a
    # controller rewriting its status), the very set it had, whose encoding is memoized.
    stripped_changes = changed.intersection(STRIPPED_FIELDS)
    entries: dict[EntryKey, ManagedEntry] = {}
    for e in managed:
        key = entry_key(e)
        if key == me and not taken.empty():
            fields = e.fields.difference(diff.removed).difference(stripped_changes)
        else:
            fields = e.fields.difference(changed).difference(diff.removed)
        entries[key] = e if fields is e.fields else replace(e, fields=fields)
    if not taken.empty():
        mine = entries.get(me)
        fields = taken if mine is None else mine.fields.union(taken)
        entries[me] = ManagedEntry(manager, "Update", api_version, now, subresource, fields)
    kept = [e for e in entries.values() if not e.fields.empty()]
    return sort_entries(cap_update_managers(kept))
