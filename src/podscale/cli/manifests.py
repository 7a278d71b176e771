"""Manifest files for ``create -f``, ``apply -f`` and ``delete -f``: YAML or JSON documents.

A file holds one or more documents (``---``); a ``kind: List`` (or any ``*List`` with
``items``) expands to its items, as kubectl's resource builder does. Every object must name
its ``apiVersion`` and ``kind`` and be a kind the registry (``podscale.api.kinds``) knows;
problems raise ``CommandError`` worded like kubectl's. ``podscale.cli.resources_write`` and
``podscale.cli.apply`` consume the ``Manifest`` values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from podscale.api.kinds import KindInfo, kind_for
from podscale.cli.resources_core import CommandError

__all__ = ["Manifest", "load_manifests"]

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object from ``source`` (the file name kubectl quotes in its errors)."""

    source: str
    kind: KindInfo
    obj: JSON

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name") or "")

    def namespace(self, default: str) -> str | None:
        """The object's namespace, else ``default``; None for cluster-scoped kinds."""
        if not self.kind.namespaced:
            return None
        return str((self.obj.get("metadata") or {}).get("namespace") or default)


def _expand(document: Any, source: str) -> list[JSON]:
    if document is None:
        return []
    if not isinstance(document, dict):
        raise CommandError(f"error: error parsing {source}: expected an object, got {document!r}")
    kind = str(document.get("kind") or "")
    if kind.endswith("List") and isinstance(document.get("items"), list):
        return [item for entry in document["items"] for item in _expand(entry, source)]
    return [document]


def _typed(obj: JSON, source: str) -> Manifest:
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    if not api_version or not kind:
        missing = "apiVersion" if not api_version else "kind"
        raise CommandError(
            f'error: error validating "{source}": error validating data: '
            f"{missing} not set; if you choose to ignore these errors, "
            "turn validation off with --validate=false"
        )
    try:
        info = kind_for(str(api_version), str(kind))
    except KeyError:
        name = (obj.get("metadata") or {}).get("name", "")
        raise CommandError(
            f'error: resource mapping not found for name: "{name}" namespace: "" '
            f'from "{source}": no matches for kind "{kind}" in version "{api_version}"'
        ) from None
    return Manifest(source, info, obj)


def load_manifests(path: Path) -> list[Manifest]:
    """Every object in ``path`` in file order. CommandError for unreadable or bad files."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f'error: the path "{source}" does not exist') from None
    except OSError as err:
        raise CommandError(f"error: {source}: {err.strerror}") from None
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as err:
        raise CommandError(f"error: error parsing {source}: {err}") from None
    objects = [obj for document in documents for obj in _expand(document, source)]
    if not objects:
        raise CommandError("error: no objects passed to create")
    return [_typed(obj, source) for obj in objects]
