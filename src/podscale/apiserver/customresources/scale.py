"""The ``scale`` subresource of custom resources: an autoscaling/v1 ``Scale`` over JSON paths.

A CRD's ``subresources.scale`` names where the replicas live: ``specReplicasPath`` (read and
written), ``statusReplicasPath`` (read) and optionally ``labelSelectorPath`` (read, a selector
string for the HPA). Missing values read as 0 and "" as upstream's ``scaleFromCustomResource``
does; a value of the wrong type is ``ScaleError`` (``operations.subresources`` answers 400).
``operations.subresources`` does the reads and writes; the write of the parent goes through
``admission`` like any update of the custom resource (schema, generation).
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.customresources.definitions import ScalePaths

__all__ = ["ScaleError", "scale_from", "set_spec_replicas"]

JSON = dict[str, Any]


class ScaleError(ValueError):
    """A replicas or selector value of the wrong JSON type at a scale path."""


def _parts(path: str) -> list[str]:
    return path.lstrip(".").split(".")


def _read(obj: JSON, path: str) -> Any:
    current: Any = obj
    for part in _parts(path):
        if not isinstance(current, dict):
            return None
        current = current.get(part)
    return current


def _int(obj: JSON, path: str) -> int:
    value = _read(obj, path)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScaleError(f"{path} accessor error: {value} is of the type {type(value).__name__}")
    return value


def scale_from(obj: JSON, paths: ScalePaths) -> JSON:
    """The ``Scale`` of custom resource ``obj``."""
    meta = obj.get("metadata") or {}
    selector = _read(obj, paths.label_selector) if paths.label_selector else None
    if selector is not None and not isinstance(selector, str):
        raise ScaleError(f"{paths.label_selector} accessor error: {selector} is not a string")
    status: JSON = {"replicas": _int(obj, paths.status_replicas)}
    if selector:
        status["selector"] = selector  # omitempty in autoscaling/v1 ScaleStatus
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            key: meta[key]
            for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if key in meta
        },
        "spec": {"replicas": _int(obj, paths.spec_replicas)},
        "status": status,
    }


def set_spec_replicas(obj: JSON, paths: ScalePaths, replicas: int) -> None:
    """Write ``replicas`` at the spec path, creating the objects on the way (in place)."""
    parts = _parts(paths.spec_replicas)
    current = obj
    for part in parts[:-1]:
        child = current.get(part)
        if not isinstance(child, dict):
            child = current[part] = {}
        current = child
    current[parts[-1]] = replicas
