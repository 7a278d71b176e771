"""Upstream's defaulting of apiextensions.k8s.io/v1 CustomResourceDefinitions.

``podscale.api.defaults.apply_defaults`` dispatches here: the singular name is the lowered
kind and the list kind ``<kind>List`` when left out, conversion is ``None`` unless another
strategy is asked for, a conversion webhook service listens on 443, and an empty
``status.storedVersions`` starts with the storage version. The status strategy
(``podscale.apiserver.registry.strategy``) keeps the stored versions on later writes.
Defaults only fill absent or null fields; bodies of the wrong shape are left to validation.
"""

from __future__ import annotations

from typing import Any

__all__ = ["default_crd"]

JSON = dict[str, Any]


def _object(parent: JSON, key: str) -> JSON | None:
    """``parent[key]`` as a dict, created when absent or null; None when of another type."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else None


def _default_names(names: JSON) -> None:
    kind = names.get("kind")
    if not isinstance(kind, str):
        return
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = f"{kind}List"


def _default_conversion(spec: JSON) -> None:
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
        return
    conversion = spec["conversion"]
    webhook = conversion.get("webhook") if isinstance(conversion, dict) else None
    config = webhook.get("clientConfig") if isinstance(webhook, dict) else None
    service = config.get("service") if isinstance(config, dict) else None
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


def _default_stored_versions(obj: JSON, spec: JSON) -> None:
    status = obj.get("status")
    if not isinstance(status, dict) or status.get("storedVersions"):
        return
    versions = spec.get("versions")
    for version in versions if isinstance(versions, list) else []:
        if isinstance(version, dict) and version.get("storage") is True:
            status["storedVersions"] = [version.get("name")]
            return


def default_crd(obj: JSON) -> None:
    """Default a CustomResourceDefinition in place."""
    spec = _object(obj, "spec")
    if spec is None:
        return
    names = spec.get("names")
    if isinstance(names, dict):
        _default_names(names)
    _default_conversion(spec)
    _default_stored_versions(obj, spec)
