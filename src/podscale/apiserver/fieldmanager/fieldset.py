"""Field sets: what a manager owns, and their ``fieldsV1`` JSON form.

``FieldSet`` is structured-merge-diff's ``fieldpath.Set`` over the paths of ``fieldpath``: a
trie whose nodes hold *members* (paths in the set) and *children* (paths below which the set
has members). A path's prefixes are not members unless inserted: ``{.spec.replicas}`` has
``.spec`` as a child only, which is why ``fieldsV1`` writes ``"f:spec":{"f:replicas":{}}``
without a ``"."`` under ``f:spec``. ``FieldSetBuilder`` is the mutable trie the walks of
``typed`` and ``compare`` fill; ``managed`` stores the sets in ``metadata.managedFields``
through ``to_fields_v1`` and ``from_fields_v1``, ``merge`` diffs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement, format_path

__all__ = ["FieldSet", "FieldSetBuilder"]


class FieldSet:
    """An immutable, hashable set of paths (upstream's ``fieldpath.Set``).

    Children are never empty, so two sets holding the same paths are equal.
    """

    __slots__ = ("_children", "_hash", "_members")

    def __init__(
        self,
        members: Iterable[PathElement] = (),
        children: Mapping[PathElement, FieldSet] | None = None,
    ) -> None:
        self._members: frozenset[PathElement] = frozenset(members)
        self._children: dict[PathElement, FieldSet] = {
            pe: child for pe, child in (children or {}).items() if not child.empty()
        }
        self._hash: int | None = None

    @staticmethod
    def of(paths: Iterable[Path]) -> FieldSet:
        """The set holding exactly ``paths`` (the empty path is ignored)."""
        builder = FieldSetBuilder()
        for path in paths:
            builder.insert(path)
        return builder.freeze()

    @property
    def members(self) -> frozenset[PathElement]:
        return self._members

    @property
    def children(self) -> Mapping[PathElement, FieldSet]:
        return self._children

    def empty(self) -> bool:
        return not self._members and not self._children

    def has(self, path: Path) -> bool:
        """Whether ``path`` itself is a member (not merely a prefix of one)."""
        if not path:
            return False
        node: FieldSet | None = self
        for pe in path[:-1]:
            node = node._children.get(pe) if node is not None else None
        return node is not None and path[-1] in node._members

    def with_prefix(self, pe: PathElement) -> FieldSet:
        """The members below ``pe``, relative to it (upstream's ``WithPrefix``)."""
        return self._children.get(pe, _EMPTY)

    # ``union`` and ``difference`` give back ``self`` (or ``other``) when the result holds
    # the same paths: an entry a write leaves alone keeps its very set, whose hash and
    # encoded ``fieldsV1`` the field manager has memoized.
    def union(self, other: FieldSet) -> FieldSet:
        if other is self or other.empty():
            return self
        if self.empty():
            return other
        same = other._members <= self._members
        children = dict(self._children)
        for pe, child in other._children.items():
            mine = children.get(pe)
            merged = child if mine is None else mine.union(child)
            if merged is not mine:
                same = False
                children[pe] = merged
        if same:
            return self
        return FieldSet(self._members | other._members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        if other.empty() or self.empty():
            return self
        if other is self:
            return _EMPTY
        members = self._members - other._members
        same = len(members) == len(self._members)
        children = {}
        for pe, child in self._children.items():
            theirs = other._children.get(pe)
            kept = child if theirs is None else child.difference(theirs)
            if kept is not child:
                same = False
            children[pe] = kept
        if same:
            return self
        return FieldSet(members, children)

    def intersection(self, other: FieldSet) -> FieldSet:
        children = {}
        for pe, child in self._children.items():
            theirs = other._children.get(pe)
            if theirs is not None:
                children[pe] = child.intersection(theirs)
        return FieldSet(self._members & other._members, children)

    def leaves(self) -> list[Path]:
        """Every member path, in upstream's ``Set.Iterate`` order.

        At each node the members come first, then each child's paths in element order; this
        is the order conflicts are listed in.
        """
        out: list[Path] = []
        self._collect((), out)
        return out

    def _collect(self, prefix: Path, out: list[Path]) -> None:
        out.extend((*prefix, pe) for pe in sorted(self._members))
        for pe in sorted(self._children):
            self._children[pe]._collect((*prefix, pe), out)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.leaves())

    def __len__(self) -> int:
        return len(self._members) + sum(len(child) for child in self._children.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self._members == other._members and self._children == other._children

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._members, frozenset(self._children.items())))
        return self._hash

    def __repr__(self) -> str:
        return "FieldSet({" + ", ".join(format_path(p) for p in self.leaves()) + "})"

    @staticmethod
    def from_fields_v1(doc: Mapping[str, Any]) -> FieldSet:
        """Decode ``fieldsV1``; ``ValueError`` on a malformed document."""
        if not isinstance(doc, Mapping):
            raise ValueError("fieldsV1 must be a JSON object")
        members: set[PathElement] = set()
        children: dict[PathElement, FieldSet] = {}
        for text, sub in doc.items():
            if text == ".":
                continue  # the parent's membership, read by the caller
            pe = PathElement.from_fields_v1_key(text)
            if not isinstance(sub, Mapping):
                raise ValueError(f"fieldsV1 entry {text!r} must be a JSON object")
            if not sub or "." in sub:
                members.add(pe)
            child = FieldSet.from_fields_v1(sub)
            if not child.empty():
                children[pe] = child
        return FieldSet(members, children)

    def to_fields_v1(self) -> dict[str, Any]:
        """Encode as upstream does: keys in element order, ``"."`` first in a node that is
        itself a member and has children below it."""
        out: dict[str, Any] = {}
        for pe in sorted(self._members | self._children.keys()):
            child = self._children.get(pe)
            if child is None:
                out[pe.to_fields_v1_key()] = {}
                continue
            body = child.to_fields_v1()
            if pe in self._members:
                body = {".": {}, **body}
            out[pe.to_fields_v1_key()] = body
        return out


_EMPTY = FieldSet()


class FieldSetBuilder:
    """A mutable trie for building a ``FieldSet`` path by path (used by the walkers)."""

    __slots__ = ("_children", "_members")

    def __init__(self) -> None:
        self._members: set[PathElement] = set()
        self._children: dict[PathElement, FieldSetBuilder] = {}

    def insert(self, path: Path) -> None:
        if not path:
            return
        node = self
        for pe in path[:-1]:
            child = node._children.get(pe)
            if child is None:  # not ``setdefault``: that would build a node per step
                child = node._children[pe] = FieldSetBuilder()
            node = child
        node._members.add(path[-1])

    def freeze(self) -> FieldSet:
        if not self._members and not self._children:
            return _EMPTY
        return FieldSet(self._members, {pe: b.freeze() for pe, b in self._children.items()})
