"""The scenarios bundled with the package, for ``podscale demo`` (``demo_command``).

They live under ``podscale/demo/scenarios/`` as package data (in the wheel too) and are
read through ``importlib.resources``, so an installed ``podscale`` finds them without a
source tree: each top-level ``NAME.yaml`` is a scenario, with its manifests and traces in
subdirectories, referenced by relative paths. A scenario's one-line description is its
``podscale.dev/description`` annotation.

``bundled_scenario(NAME)`` yields a real file path for ``podscale.scenario.loader.load_scenario``,
which resolves manifests and traces against the scenario's directory: the package's own
directory when it is installed as files (always, from a wheel), else a temporary copy of
the whole scenarios tree (a zipped install) that lives as long as the ``with`` block.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

import yaml

__all__ = [
    "DEFAULT_SCENARIO",
    "DESCRIPTION_ANNOTATION",
    "BundledScenario",
    "bundled_names",
    "bundled_scenario",
    "bundled_scenarios",
    "scenarios_root",
]

DEFAULT_SCENARIO: Final = "php-apache-demo"
DESCRIPTION_ANNOTATION: Final = "podscale.dev/description"
_SUFFIX: Final = ".yaml"


@dataclass(frozen=True, slots=True)
class BundledScenario:
    """One bundled scenario as ``podscale demo --list`` shows it."""

    name: str
    description: str


def scenarios_root() -> Traversable:
    """The bundled scenarios directory. Anchored on ``podscale`` itself, so it does not
    matter whether ``podscale.demo`` is a regular or a namespace package."""
    return files("podscale") / "demo" / "scenarios"


def bundled_names() -> tuple[str, ...]:
    """The bundled scenarios' names (file names without ``.yaml``), sorted."""
    root = scenarios_root()
    return tuple(
        sorted(
            entry.name.removesuffix(_SUFFIX)
            for entry in root.iterdir()
            if entry.is_file() and entry.name.endswith(_SUFFIX)
        )
    )


def _description(text: str) -> str:
    document = yaml.safe_load(text)
    metadata = document.get("metadata") if isinstance(document, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    value = annotations.get(DESCRIPTION_ANNOTATION) if isinstance(annotations, dict) else None
    return str(value) if value is not None else ""


def bundled_scenarios() -> tuple[BundledScenario, ...]:
    """Every bundled scenario with its description, sorted by name."""
    root = scenarios_root()
    return tuple(
        BundledScenario(name, _description((root / f"{name}{_SUFFIX}").read_text("utf-8")))
        for name in bundled_names()
    )


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.is_dir():
            _copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


def bundled_scenario(name: str) -> AbstractContextManager[Path]:
    """A file path of the bundled scenario ``name`` (its manifests and traces beside it),
    valid inside the ``with`` block. Raises ``KeyError`` at once when no bundled scenario
    has that name."""
    if name not in bundled_names():
        raise KeyError(name)
    return _scenario_path(f"{name}{_SUFFIX}")


@contextmanager
def _scenario_path(file_name: str) -> Iterator[Path]:
    root = scenarios_root()
    if isinstance(root, Path):
        yield root / file_name
        return
    # Not on the file system (e.g. zipimport): the loader needs real paths for the
    # scenario and the files it references, so copy the tree for the duration.
    directory = Path(tempfile.mkdtemp(prefix="podscale-scenarios-"))
    try:
        _copy_tree(root, directory)
        yield directory / file_name
    finally:
        shutil.rmtree(directory, ignore_errors=True)
