"""Go-JSON codec helpers for HPA conversion: the encoder and decoder quirks upstream relies on.

``conversion`` (the v1 <-> v2 entry points), ``conversion_to_v1`` and ``conversion_to_v2`` build
and read JSON through these so the round-trip annotations match what Go's encoding/json writes:
HTML-safe escaping, ``omitempty`` fields, case-insensitive key lookup on decode, LabelSelectors
and object references re-encoded in Go's field order. Pure; no podscale imports.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = [
    "JSON",
    "ZERO_QUANTITY",
    "encode_go_json",
    "encode_identifier",
    "encode_object_ref",
    "encode_quantity",
    "encode_selector",
    "fold_keys",
    "fold_struct",
    "put_omitempty",
]

JSON = dict[str, Any]
# A Go resource.Quantity that was never set marshals as "0".
ZERO_QUANTITY: Final = "0"


def encode_go_json(value: Any) -> str:
    """Compact JSON escaped like Go's encoding/json (HTML-safe, U+2028/2029 escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def put_omitempty(out: JSON, key: str, value: Any) -> None:
    """Set an ``omitempty`` field: only when it carries a value."""
    if value not in (None, "", [], {}):
        out[key] = value


def fold_keys(value: Any) -> JSON:
    """Key lookup as Go's decoder does it: case-insensitive. Non-objects decode as empty."""
    return {str(k).lower(): v for k, v in value.items()} if isinstance(value, dict) else {}


def fold_struct(value: Any) -> JSON:
    """``fold_keys`` for decoding annotations: a non-object where a struct belongs fails."""
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"cannot decode {type(value).__name__} into a struct")
    return fold_keys(value)


def encode_quantity(value: Any) -> Any:
    """A quantity as Go re-encodes it: JSON numbers as strings, non-quantities as unset."""
    # A JSON number is a valid quantity for Go's decoder; keep strings as written.
    if isinstance(value, bool) or value is None:
        return None
    return str(value) if isinstance(value, int | float) else value


def encode_selector(value: Any) -> JSON | None:
    """A LabelSelector re-encoded in Go's field order; unknown fields fall away as in Go."""
    if not isinstance(value, dict):
        return None
    raw = fold_keys(value)
    out: JSON = {}
    labels = raw.get("matchlabels")
    if isinstance(labels, dict) and labels:
        out["matchLabels"] = dict(sorted(labels.items()))
    expressions = []
    for item in raw.get("matchexpressions") or []:
        expr = fold_keys(item)
        entry: JSON = {"key": expr.get("key", ""), "operator": expr.get("operator", "")}
        put_omitempty(entry, "values", expr.get("values"))
        expressions.append(entry)
    put_omitempty(out, "matchExpressions", expressions)
    return out


def encode_object_ref(value: Any) -> JSON:
    """A CrossVersionObjectReference in Go's field order (``apiVersion`` omitempty)."""
    raw = fold_keys(value)
    ref: JSON = {"kind": raw.get("kind", ""), "name": raw.get("name", "")}
    put_omitempty(ref, "apiVersion", raw.get("apiversion"))
    return ref


def encode_identifier(name: Any, selector: Any) -> JSON:
    """A v2 MetricIdentifier from an old-style metric name and selector."""
    metric: JSON = {"name": name or ""}
    put_omitempty(metric, "selector", encode_selector(selector))
    return metric
