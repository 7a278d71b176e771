"""Package exports that load on first use: a module-level ``__getattr__`` (PEP 562).

``podscale.api`` and ``podscale.store`` name their public API in their ``__init__`` but
must not import all of it when a caller needs one light submodule (the command line starts
in tens of milliseconds only if it does not pull in validation or SQLite). Each package
maps an exported name to the module defining it and installs ``lazy_exports``' function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: dict[str, Any], exports: Mapping[str, str]) -> Callable[[str], object]:
    """The ``__getattr__`` for a package whose namespace is ``package`` (its ``globals()``):
    ``exports`` maps a name to the module that defines it. A resolved name is stored in
    the package, so later lookups do not come back here."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        package[name] = value
        return value

    return __getattr__
