"""List and watch filters: ``labelSelector`` and ``fieldSelector`` query parameters.

Label selectors parse with ``podscale.api.parse_selector``. Field selectors follow apimachinery's
``fields.ParseSelector`` (``a=b``, ``a==b``, ``a!=b``, comma-joined, ``\\`` escapes) and each
resource's ``GetAttrs``/field-label conversion: only the fields upstream indexes are accepted,
anything else is a 400 ``field label not supported: X``. ``handlers_read`` and ``watch`` use the
predicate this module builds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from podscale.api import SelectorError, parse_selector
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import bad_request

__all__ = ["FieldRequirement", "Predicate", "build_predicate", "parse_field_selector"]

JSON = dict[str, Any]
Predicate = Callable[[JSON], bool]

_COMMON: Final = ("metadata.name", "metadata.namespace")
# Per-kind field labels upstream supports (pkg/registry/*/strategy.go ...FieldsSet and
# pkg/apis/*/v1/conversion.go AddFieldLabelConversionFunc).
_FIELDS: Final[Mapping[tuple[str, str], tuple[str, ...]]] = {
    ("", "Pod"): (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ),
    ("", "Event"): (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
    ("", "Node"): ("spec.unschedulable",),
    ("", "Namespace"): ("status.phase",),
    ("apps", "ReplicaSet"): ("status.replicas",),
    ("", "Secret"): ("type",),
    ("", "Service"): ("spec.clusterIP", "spec.type"),
}


@dataclass(frozen=True)
class FieldRequirement:
    """One ``field=value`` (or ``!=``) term of a field selector."""

    field: str
    value: str
    negated: bool = False


def _split_terms(text: str) -> list[str]:
    """Split on unescaped commas, keeping escapes for the value parser."""
    terms: list[str] = []
    current: list[str] = []
    escaped = False
    for ch in text:
        if escaped:
            current.append("\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append("".join(current))
            current = []
        else:
            current.append(ch)
    if escaped:
        current.append("\\")
    terms.append("".join(current))
    return terms


def _unescape(value: str) -> str:
    out: list[str] = []
    chars = iter(value)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, None)
            if nxt not in ("\\", ",", "="):
                raise bad_request(f"invalid field selector value: {value!r}")
            out.append(nxt)
        else:
            out.append(ch)
    return "".join(out)


def parse_field_selector(text: str) -> list[FieldRequirement]:
    """The terms of a field selector; 400 ``invalid selector`` for a term without operator."""
    requirements: list[FieldRequirement] = []
    if not text.strip():
        return requirements
    for term in _split_terms(text):
        for operator, negated in (("!=", True), ("==", False), ("=", False)):
            field, sep, value = term.partition(operator)
            if sep:
                requirements.append(FieldRequirement(field.strip(), _unescape(value), negated))
                break
        else:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{term}'")
    return requirements


def _field_value(obj: JSON, field: str) -> str:
    """The string value of a dotted field as ``GetAttrs`` renders it (bools as true/false)."""
    if field == "source":
        # Events: the source field label is source.component (upstream's EventToSelectableFields).
        field = "source.component"
    current: Any = obj
    for part in field.split("."):
        current = current.get(part) if isinstance(current, dict) else None
    if isinstance(current, bool):
        return "true" if current else "false"
    if current is None:
        return "false" if field in ("spec.unschedulable", "spec.hostNetwork") else ""
    return str(current)


def _check_supported(info: KindInfo, requirements: list[FieldRequirement]) -> None:
    supported = _COMMON + _FIELDS.get((info.group, info.kind), ())
    for req in requirements:
        if req.field not in supported:
            raise bad_request(f"field label not supported: {req.field}")


def build_predicate(info: KindInfo, query: Mapping[str, str]) -> tuple[Predicate | None, bool]:
    """A predicate for the ``labelSelector``/``fieldSelector`` of ``query`` (None: everything).

    The flag says whether any selector was given (watch then tracks objects leaving it).
    """
    label_text = query.get("labelSelector", "")
    field_text = query.get("fieldSelector", "")
    try:
        labels = parse_selector(label_text)
    except SelectorError as err:
        raise bad_request(str(err)) from None
    fields = parse_field_selector(field_text)
    _check_supported(info, fields)
    if labels.empty() and not fields:
        return None, False

    def matches(obj: JSON) -> bool:
        meta = obj.get("metadata") or {}
        if not labels.empty() and not labels.matches(meta.get("labels") or {}):
            return False
        return all((_field_value(obj, r.field) == r.value) != r.negated for r in fields)

    return matches, True
