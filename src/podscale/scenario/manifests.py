"""The ``spec.manifests`` part of a scenario: ordinary Kubernetes objects to create first.

Called by ``podscale.scenario.loader`` with its ``FieldReader``. Each entry is either a path
(relative to the scenario file) to a YAML or JSON file, possibly multi-document, possibly
a ``kind: List``, or a directory whose ``.yaml``/``.yml``/``.json`` files are read in name
order as ``kubectl apply -f <dir>`` does; or an inline object. Objects are kept as plain
JSON dicts (their own validation happens when the API server receives them); here only
``apiVersion``, ``kind`` and ``metadata.name`` are checked, because nothing can be created
without them, and that the kind is built in or defined by a CustomResourceDefinition among
the manifests or in ``spec.crds`` (``scenario.custom_kinds``), kubectl's "no matches for
kind" otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from podscale.api.field_errors import (
    FieldPath,
    duplicate,
    invalid,
    not_found,
    not_supported,
    required,
)
from podscale.api.field_reader import FieldReader
from podscale.controllers.shipped_crds import SHIPPED_CRDS, shipped_definition
from podscale.scenario.custom_kinds import defined_kinds, no_match_message, unknown_kind
from podscale.scenario.model import Manifest

__all__ = ["read_manifests", "read_shipped_crds"]

_MANIFEST_SUFFIXES: Final = (".yaml", ".yml", ".json")


def _missing_parts(obj: dict[str, Any]) -> list[str]:
    missing = [key for key in ("apiVersion", "kind") if not isinstance(obj.get(key), str)]
    name = (
        (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else None
    )
    if not isinstance(name, str) or not name:
        missing.append("metadata.name")
    return missing


def _expand(document: Any) -> list[Any]:
    if isinstance(document, dict) and document.get("kind") == "List":
        return list(document.get("items") or [])
    return [document]


def _read_file(
    r: FieldReader, file: Path, entry: str, path: FieldPath
) -> list[tuple[str, Manifest]]:
    try:
        documents = list(yaml.safe_load_all(file.read_text(encoding="utf-8")))
    except yaml.YAMLError as err:
        r.errors.append(invalid(path, entry, f"error parsing {file}: {err}"))
        return []
    except (OSError, UnicodeDecodeError) as err:
        r.errors.append(invalid(path, entry, f"cannot read {file}: {err}"))
        return []
    found: list[tuple[str, Manifest]] = []
    objects = [obj for document in documents if document is not None for obj in _expand(document)]
    for number, obj in enumerate(objects, start=1):
        if not isinstance(obj, dict):
            r.errors.append(invalid(path, entry, f"{file}: object {number} is not a mapping"))
            continue
        missing = _missing_parts(obj)
        if missing:
            detail = f"{file}: object {number}: missing {', '.join(missing)}"
            r.errors.append(invalid(path, entry, detail))
            continue
        found.append((f"{file}: object {number}: ", Manifest(str(file), obj)))
    return found


def _read_path(
    r: FieldReader, entry: str, path: FieldPath, base: Path
) -> list[tuple[str, Manifest]]:
    target = base / entry
    if target.is_dir():
        files = sorted(p for p in target.iterdir() if p.suffix in _MANIFEST_SUFFIXES)
        return [m for file in files for m in _read_file(r, file, entry, path)]
    if not target.is_file():
        r.errors.append(not_found(path, entry))
        return []
    return _read_file(r, target, entry, path)


def read_manifests(
    r: FieldReader,
    spec: dict[str, Any],
    path: FieldPath,
    base: Path,
    shipped: Sequence[Manifest] = (),
) -> list[Manifest]:
    """``spec.manifests`` in order; ``path`` is the ``spec`` path. ``shipped`` are the CRDs
    ``spec.crds`` installs: with the CRDs among the manifests, they define the custom kinds
    the other objects may have; any other kind that is not built in is an error here."""
    located: list[tuple[FieldPath, Any, str, Manifest]] = []
    for i, entry in enumerate(r.sequence(spec, "manifests", path)):
        entry_path = path.child("manifests").index(i)
        if isinstance(entry, str):
            found = _read_path(r, entry, entry_path, base)
            located.extend((entry_path, entry, where, m) for where, m in found)
        elif isinstance(entry, dict):
            missing = _missing_parts(entry)
            for part in missing:
                r.errors.append(required(entry_path.child(part)))
            if not missing:
                located.append((entry_path, None, "", Manifest(str(entry_path), entry)))
        else:
            r.type_error(entry_path, entry, "string or object")
    defined = defined_kinds(m.object for m in [*shipped, *(m for *_, m in located)])
    for entry_path, entry, where, manifest in located:
        api_version, kind = manifest.object["apiVersion"], manifest.object["kind"]
        if not unknown_kind(api_version, kind, defined):
            continue
        if entry is None:  # inline: the error points at its kind
            r.errors.append(
                invalid(entry_path.child("kind"), kind, no_match_message(api_version, kind))
            )
        else:
            detail = where + no_match_message(api_version, kind)
            r.errors.append(invalid(entry_path, entry, detail))
    return [m for *_, m in located]


def read_shipped_crds(r: FieldReader, spec: dict[str, Any], path: FieldPath) -> list[Manifest]:
    """``spec.crds``: names of CustomResourceDefinitions podscale ships
    (``podscale.controllers.shipped_crds``), as manifests to create before the others."""
    found: list[Manifest] = []
    seen: set[str] = set()
    for i, name in enumerate(r.sequence(spec, "crds", path)):
        entry_path = path.child("crds").index(i)
        if not isinstance(name, str):
            r.type_error(entry_path, name, "string")
        elif name in seen:
            r.errors.append(duplicate(entry_path, name))
        elif name not in SHIPPED_CRDS:
            r.errors.append(not_supported(entry_path, name, SHIPPED_CRDS))
        else:
            seen.add(name)
            found.append(Manifest(f"podscale:{name}", shipped_definition(name)))
    return found
