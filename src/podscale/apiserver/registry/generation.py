"""Generation: the server's count of spec changes, as the upstream strategies keep it.

The workload, Pod, PodDisruptionBudget and CRD strategies (``GENERATION_ON_SPEC``) start
``metadata.generation`` at 1 (``strategy.prepare_for_create``) and ``update_generation``
bumps it when the spec changes, compared as Go's semantic equality does (null, empty maps
and empty lists are absent) against the defaulted request; Deployments also when
annotations change, since those are copied to their ReplicaSets. Every other kind keeps
whatever it has (HPA generation tracking came after v1.35). Called by
``strategy.prepare_for_update`` and by ``operations.subresources`` for a Scale write.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api import apply_defaults

__all__ = ["GENERATION_ON_SPEC", "update_generation"]

JSON = dict[str, Any]

# Strategies that manage generation: 1 on create, +1 on a spec change (Pod since v1.33).
GENERATION_ON_SPEC: Final = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "Pod", "PodDisruptionBudget"}
    | {"CustomResourceDefinition"}
)
# ... and also on an annotation change of the main resource.
_GENERATION_ON_ANNOTATIONS: Final = frozenset({"Deployment"})


def _semantic(value: Any) -> Any:
    """``value`` as Go's semantic equality sees it: null, empty maps and empty lists are the
    same as absent (``annotations: {}`` is no change from no annotations)."""
    if isinstance(value, dict):
        normalized = {key: _semantic(item) for key, item in value.items()}
        return {key: item for key, item in normalized.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [_semantic(item) for item in value]
    return value


def _semantically_equal(left: Any, right: Any) -> bool:
    # Wrapped so that an empty or null value at the top is also the same as an absent one.
    return bool(_semantic({"value": left}) == _semantic({"value": right}))


def _defaulted_spec(obj: JSON) -> Any:
    # The stored spec was defaulted when written; compare like with like. A body of the wrong
    # shape is compared as sent (admission refuses it right after).
    try:
        return apply_defaults(obj).get("spec")
    except (TypeError, AttributeError, ValueError, KeyError):
        return obj.get("spec")


def update_generation(obj: JSON, old: JSON) -> None:
    """Bump ``obj``'s generation past ``old``'s when its kind's strategy says so: a spec change
    of a workload or Pod, or an annotation change of a Deployment. ``obj`` must already carry
    the stored generation (``strategy.prepare_for_update`` does that)."""
    kind = obj.get("kind")
    if kind not in GENERATION_ON_SPEC:
        return
    old_metadata = old.get("metadata") or {}
    changed = not _semantically_equal(_defaulted_spec(obj), old.get("spec"))
    if kind in _GENERATION_ON_ANNOTATIONS:
        annotations = obj["metadata"].get("annotations")
        changed = changed or not _semantically_equal(annotations, old_metadata.get("annotations"))
    if changed:
        generation = old_metadata.get("generation")
        obj["metadata"]["generation"] = (generation if isinstance(generation, int) else 0) + 1
