"""Message schemas for protobuf decoding, built from the field tables of ``protobuf.schemas_*``.

The tables are compact strings (one per message, generated from upstream's descriptors by
scripts/gen_protobuf_schemas.py); this module parses them once, at import, into linked
``MessageSpec`` objects that ``protobuf.decode`` walks, and names the message of each kind
the API server decodes (``ROOTS``). A table naming an unknown type code or message fails
the import, so a regenerated table cannot silently lose fields.

The notation of the tables (from the descriptors kubectl 1.33 embeds): per message, tokens
``number:jsonName:type[:GoName]``; ``*`` repeated, ``?`` pointer, ``+`` inline (embedded),
``{key:value}`` a map; type codes in ``TYPE_CODES``, other names are messages
(``package.Name`` outside the message's own package).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from podscale.apiserver.protobuf import (
    schemas_apps as protobuf_schemas_apps,
)
from podscale.apiserver.protobuf import (
    schemas_auth as protobuf_schemas_auth,
)
from podscale.apiserver.protobuf import (
    schemas_autoscaling as protobuf_schemas_autoscaling,
)
from podscale.apiserver.protobuf import (
    schemas_core as protobuf_schemas_core,
)
from podscale.apiserver.protobuf import (
    schemas_groups as protobuf_schemas_groups,
)
from podscale.apiserver.protobuf import (
    schemas_meta as protobuf_schemas_meta,
)
from podscale.apiserver.protobuf import (
    schemas_pod as protobuf_schemas_pod,
)
from podscale.apiserver.protobuf import (
    schemas_volume as protobuf_schemas_volume,
)

__all__ = ["MESSAGES", "ROOTS", "FieldKind", "FieldSpec", "MessageSpec", "parse_tables"]


class FieldKind(Enum):
    STRING = "s"
    BOOL = "b"
    INT32 = "i32"
    INT64 = "i64"
    BYTES = "y"
    QUANTITY = "q"
    TIME = "t"
    MICRO_TIME = "mt"
    INT_OR_STRING = "ios"
    FIELDS_V1 = "fv1"
    # A message {1: repeated string} that Go declares as a named []string (ExtraValue):
    # its JSON is the list itself.
    STRING_LIST = "ss"
    MESSAGE = "message"
    MAP = "map"


TYPE_CODES: Final = {
    kind.value: kind for kind in FieldKind if kind not in (FieldKind.MESSAGE, FieldKind.MAP)
}
VARINT_KINDS: Final = frozenset({FieldKind.BOOL, FieldKind.INT32, FieldKind.INT64})


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a message.

    ``go_name`` is the Go struct field gogo's errors name. ``pointer`` fields (Go pointers)
    keep a zero value that was sent; other scalars at their zero value are left out, as Go's
    JSON encoder leaves them out (and as absent and zero are the same thing to Go).
    ``inline`` fields (embedded structs) write their fields into the parent's object.
    For maps, ``key``/``value`` are the entry's kinds and ``message`` the value's schema.
    """

    json_name: str
    go_name: str
    kind: FieldKind
    repeated: bool = False
    pointer: bool = False
    inline: bool = False
    message: MessageSpec | None = None
    key: FieldKind | None = None
    value: FieldKind | None = None


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """A message type: its Go type name (for errors) and fields by number."""

    name: str
    fields: dict[int, FieldSpec] = field(default_factory=dict)


_TOKEN: Final = re.compile(r"(\d+):(\w+):(\{\w+:[\w.]+\}|[\w.]+[*?+]?)(?::(\w+))?")


def parse_tables(tables: Mapping[str, str]) -> dict[str, MessageSpec]:
    """``package.Name`` -> spec, for every message of ``tables`` (linked to each other)."""
    specs = {name: MessageSpec(name.split(".", 1)[1]) for name in tables}
    for name, text in tables.items():
        package = name.split(".", 1)[0]
        for token in text.split():
            match = _TOKEN.fullmatch(token)
            if match is None:
                raise ValueError(f"protobuf table: bad field {token!r} in {name}")
            number, json_name, code, go_name = match.groups()
            go_name = go_name or json_name[:1].upper() + json_name[1:]
            spec = specs[name]
            spec.fields[int(number)] = _field(json_name, go_name, code, package, specs)
    return specs


def _field(
    json_name: str, go_name: str, code: str, package: str, specs: Mapping[str, MessageSpec]
) -> FieldSpec:
    if code.startswith("{"):
        key_code, value_code = code[1:-1].split(":")
        value_kind, message = _kind(value_code, package, specs)
        return FieldSpec(
            json_name,
            go_name,
            FieldKind.MAP,
            message=message,
            key=_kind(key_code, package, specs)[0],
            value=value_kind,
        )
    marker = code[-1] if code[-1] in "*?+" else ""
    kind, message = _kind(code.rstrip("*?+"), package, specs)
    return FieldSpec(
        json_name,
        go_name,
        kind,
        repeated=marker == "*",
        pointer=marker == "?",
        inline=marker == "+",
        message=message,
    )


def _kind(
    code: str, package: str, specs: Mapping[str, MessageSpec]
) -> tuple[FieldKind, MessageSpec | None]:
    if code in TYPE_CODES:
        return TYPE_CODES[code], None
    qualified = code if "." in code else f"{package}.{code}"
    if qualified not in specs:
        raise ValueError(f"protobuf table: unknown type {code!r} in package {package}")
    return FieldKind.MESSAGE, specs[qualified]


MESSAGES: Final = parse_tables(
    {
        **protobuf_schemas_meta.MESSAGES,
        **protobuf_schemas_core.MESSAGES,
        **protobuf_schemas_pod.MESSAGES,
        **protobuf_schemas_volume.MESSAGES,
        **protobuf_schemas_apps.MESSAGES,
        **protobuf_schemas_autoscaling.MESSAGES,
        **protobuf_schemas_groups.MESSAGES,
        **protobuf_schemas_auth.MESSAGES,
    }
)

# (apiVersion, kind) -> the message of the object, for every kind served.
ROOTS: Final = {
    ("v1", "Pod"): MESSAGES["core.Pod"],
    ("v1", "Node"): MESSAGES["core.Node"],
    ("v1", "Namespace"): MESSAGES["core.Namespace"],
    ("v1", "Event"): MESSAGES["core.Event"],
    ("v1", "ConfigMap"): MESSAGES["core.ConfigMap"],
    ("v1", "Secret"): MESSAGES["core.Secret"],
    ("v1", "Service"): MESSAGES["core.Service"],
    ("v1", "ServiceAccount"): MESSAGES["core.ServiceAccount"],
    ("v1", "Binding"): MESSAGES["core.Binding"],
    ("apps/v1", "Deployment"): MESSAGES["apps.Deployment"],
    ("apps/v1", "ReplicaSet"): MESSAGES["apps.ReplicaSet"],
    ("apps/v1", "StatefulSet"): MESSAGES["apps.StatefulSet"],
    ("autoscaling/v1", "HorizontalPodAutoscaler"): MESSAGES[
        "autoscaling_v1.HorizontalPodAutoscaler"
    ],
    ("autoscaling/v1", "Scale"): MESSAGES["autoscaling_v1.Scale"],
    ("autoscaling/v2", "HorizontalPodAutoscaler"): MESSAGES[
        "autoscaling_v2.HorizontalPodAutoscaler"
    ],
    ("policy/v1", "PodDisruptionBudget"): MESSAGES["policy.PodDisruptionBudget"],
    ("coordination.k8s.io/v1", "Lease"): MESSAGES["coordination.Lease"],
    ("events.k8s.io/v1", "Event"): MESSAGES["events.Event"],
    # kubectl auth whoami / can-i send these as protobuf only (``reviews`` answers them).
    ("authentication.k8s.io/v1", "SelfSubjectReview"): MESSAGES["authn_v1.SelfSubjectReview"],
    ("authentication.k8s.io/v1beta1", "SelfSubjectReview"): MESSAGES[
        "authn_v1beta1.SelfSubjectReview"
    ],
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): MESSAGES[
        "authz_v1.SelfSubjectAccessReview"
    ],
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): MESSAGES[
        "authz_v1.SelfSubjectRulesReview"
    ],
}
