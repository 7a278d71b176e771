"""Fixtures for the custom resource tests: a made-up CustomResourceDefinition, ``Kiln`` (a
pottery kiln's firing schedule) in ``ceramics.podscale.test``, namespaced, served as v1
(storage) and v1alpha1, with status and scale subresources and a schema exercising nullable,
int-or-string, preserve-unknown-fields, embedded resources, defaults, enums and CEL rules.
Helpers are fixtures because tests run with ``--import-mode=importlib``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

JSON = dict[str, Any]

_SCHEMA: JSON = {
    "type": "object",
    "description": "Kiln is a kiln and its firing schedule.",
    "required": ["spec"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "description": "What the kiln should do.",
            "required": ["cone", "glaze"],
            "x-kubernetes-validations": [
                {"rule": "self.cone <= 10", "message": "cone too hot"},
            ],
            "properties": {
                "cone": {
                    "type": "integer",
                    "format": "int32",
                    "minimum": 1,
                    "description": "Pyrometric cone to fire to.",
                    "example": 6,
                },
                "glaze": {
                    "type": "string",
                    "nullable": True,
                    "description": "Glaze name; null for a bisque firing.",
                },
                "ramp": {
                    "x-kubernetes-int-or-string": True,
                    "description": "Degrees per hour, or a named ramp.",
                },
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "enum": ["oxidation", "reduction"]},
                "shelves": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["level"],
                    "items": {
                        "type": "object",
                        "required": ["level"],
                        "properties": {
                            "level": {"type": "integer"},
                            "pieces": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
                "notes": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"author": {"type": "string"}},
                },
                "controller": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "labelsToCopy": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                },
                "either": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                },
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "celsius": {"type": "number"},
                "replicas": {"type": "integer"},
                "selector": {"type": "string"},
            },
        },
    },
}

KILN_CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "kilns.ceramics.podscale.test", "resourceVersion": "7"},
    "spec": {
        "group": "ceramics.podscale.test",
        "names": {
            "plural": "kilns",
            "singular": "kiln",
            "kind": "Kiln",
            "listKind": "KilnList",
            "shortNames": ["kl"],
        },
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": _SCHEMA},
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "additionalPrinterColumns": [
                    {"name": "Cone", "type": "integer", "jsonPath": ".spec.cone"},
                ],
            },
            {
                "name": "v1alpha1",
                "served": True,
                "storage": False,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            },
            {
                "name": "v0",
                "served": False,
                "storage": False,
                "schema": {"openAPIV3Schema": {"type": "object"}},
            },
        ],
    },
    "status": {
        "conditions": [
            {"type": "NamesAccepted", "status": "True"},
            {"type": "Established", "status": "True"},
        ],
        "acceptedNames": {"plural": "kilns", "kind": "Kiln"},
    },
}


@pytest.fixture
def kiln_crd() -> JSON:
    """A private copy of the Kiln CRD."""
    return copy.deepcopy(KILN_CRD)
