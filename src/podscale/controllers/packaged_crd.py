"""The CustomResourceDefinitions podscale ships, read from package data.

Each shipped kind's module (``cronhpa.kind``, ``phpa.kind``, ``ehpa.kind``, ``keda.kind``,
``webapp.kind``) keeps its CRD as ``<crd name>.yaml`` next to itself and answers
``definition()`` with ``packaged_crd(__package__, CRD_NAME)``; ``shipped_crds`` collects
them. Every call parses the file again, so callers get a copy they may change.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

__all__ = ["packaged_crd"]


def packaged_crd(package: str | None, crd_name: str) -> dict[str, Any]:
    """``<crd_name>.yaml`` of ``package``, parsed: a fresh copy of the shipped CRD."""
    if not package:
        raise ValueError("packaged_crd needs the package that holds the CRD file")
    text = resources.files(package).joinpath(f"{crd_name}.yaml").read_text(encoding="utf-8")
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded
