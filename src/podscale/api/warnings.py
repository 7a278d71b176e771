"""Warnings a write earns without being refused (upstream's ``WarningsOnCreate/Update``).

The API server's write path (``podscale.apiserver.operations.write_verbs``) sends these as
``Warning: 299`` headers next to its unknown-field warnings. Only what podscale's kinds can
trigger is here: a pod template whose ``terminationGracePeriodSeconds`` is negative
(upstream's ``pkg/api/pod`` warnings). A Pod itself never warns: its negative period is
already made 1 in defaulting (``defaults``), as upstream's Pod conversion does, so nothing
negative remains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["warnings_for"]

_TEMPLATE_KINDS: Final = frozenset({"ReplicaSet", "Deployment", "StatefulSet"})


def _template_spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    template = spec.get("template") if isinstance(spec, Mapping) else None
    inner = template.get("spec") if isinstance(template, Mapping) else None
    return inner if isinstance(inner, Mapping) else {}


def warnings_for(obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[str]:
    """Warning texts for a create (``old`` None) or an update of ``obj``.

    On update upstream warns only when the spec changed (the generation moved), so an
    unrelated status or label write does not repeat a warning the user has already seen.
    """
    if obj.get("kind") not in _TEMPLATE_KINDS:
        return []
    if old is not None:
        generation = (obj.get("metadata") or {}).get("generation")
        if generation == (old.get("metadata") or {}).get("generation"):
            return []
    grace = _template_spec(obj).get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        return [
            "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values "
            "are invalid and will be treated as 1"
        ]
    return []
