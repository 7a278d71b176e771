"""Protobuf schemas of the self reviews kubectl POSTs as protobuf (``kubectl auth ...``).

authentication.k8s.io/v1 SelfSubjectReview and authorization.k8s.io/v1
SelfSubjectAccessReview / SelfSubjectRulesReview, field numbers from upstream's
``generated.proto`` of those groups. Only what a request carries is decoded (metadata and
spec); ``status`` is the server's to fill and is skipped. ``protobuf`` picks these by the
envelope's apiVersion and kind; ``reviews`` answers them.
"""

from __future__ import annotations

from typing import Final

from podscale.apiserver.protobuf_decode import FieldKind, FieldSpec, MessageSpec
from podscale.apiserver.protobuf_hpa import OBJECT_META

__all__ = ["SELF_SUBJECT_ACCESS_REVIEW", "SELF_SUBJECT_REVIEW", "SELF_SUBJECT_RULES_REVIEW"]


def _string(name: str) -> FieldSpec:
    return FieldSpec(name, FieldKind.STRING)


def _message(name: str, spec: MessageSpec, *, repeated: bool = False) -> FieldSpec:
    return FieldSpec(name, FieldKind.MESSAGE, repeated=repeated, message=spec)


_META: Final = _message("metadata", OBJECT_META)

_FIELD_SELECTOR_ATTRIBUTES: Final = MessageSpec(
    "FieldSelectorAttributes",
    {
        1: _string("rawSelector"),
        2: _message(
            "requirements",
            MessageSpec(
                "FieldSelectorRequirement",
                {
                    1: _string("key"),
                    2: _string("operator"),
                    3: FieldSpec("values", FieldKind.STRING, repeated=True),
                },
            ),
            repeated=True,
        ),
    },
)

# LabelSelectorAttributes.requirements are meta/v1 LabelSelectorRequirements.
_LABEL_REQUIREMENT: Final = MessageSpec(
    "LabelSelectorRequirement",
    {
        1: _string("key"),
        2: _string("operator"),
        3: FieldSpec("values", FieldKind.STRING, repeated=True),
    },
)
_LABEL_SELECTOR_ATTRIBUTES: Final = MessageSpec(
    "LabelSelectorAttributes",
    {1: _string("rawSelector"), 2: _message("requirements", _LABEL_REQUIREMENT, repeated=True)},
)

_RESOURCE_ATTRIBUTES: Final = MessageSpec(
    "ResourceAttributes",
    {
        1: _string("namespace"),
        2: _string("verb"),
        3: _string("group"),
        4: _string("version"),
        5: _string("resource"),
        6: _string("subresource"),
        7: _string("name"),
        8: _message("fieldSelector", _FIELD_SELECTOR_ATTRIBUTES),
        9: _message("labelSelector", _LABEL_SELECTOR_ATTRIBUTES),
    },
)

SELF_SUBJECT_ACCESS_REVIEW: Final = MessageSpec(
    "SelfSubjectAccessReview",
    {
        1: _META,
        2: _message(
            "spec",
            MessageSpec(
                "SelfSubjectAccessReviewSpec",
                {
                    1: _message("resourceAttributes", _RESOURCE_ATTRIBUTES),
                    2: _message(
                        "nonResourceAttributes",
                        MessageSpec(
                            "NonResourceAttributes", {1: _string("path"), 2: _string("verb")}
                        ),
                    ),
                },
            ),
        ),
    },
)

SELF_SUBJECT_RULES_REVIEW: Final = MessageSpec(
    "SelfSubjectRulesReview",
    {
        1: _META,
        2: _message("spec", MessageSpec("SelfSubjectRulesReviewSpec", {1: _string("namespace")})),
    },
)

SELF_SUBJECT_REVIEW: Final = MessageSpec("SelfSubjectReview", {1: _META})
