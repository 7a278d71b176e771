"""What ``facts`` says a schema subtree holds, which the walkers use to skip subtrees."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.schema.facts import SchemaFacts, facts

JSON = dict[str, Any]

CASES: list[tuple[JSON, SchemaFacts]] = [
    ({"type": "object"}, SchemaFacts(False, False, False, False)),
    (
        {"type": "object", "properties": {"a": {"type": "integer", "default": 1}}},
        SchemaFacts(True, False, False, False),
    ),
    (
        {"type": "object", "additionalProperties": {"type": "object", "default": {}}},
        SchemaFacts(True, False, False, False),
    ),
    (
        {
            "type": "array",
            "items": {"type": "object", "x-kubernetes-embedded-resource": True},
        },
        SchemaFacts(False, True, False, False),
    ),
    (
        {
            "type": "object",
            "properties": {
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object"},
                }
            },
        },
        SchemaFacts(False, False, True, False),
    ),
    (
        {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}},
        SchemaFacts(False, False, False, False),
    ),
    (
        {
            "type": "object",
            "properties": {
                "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "true"}]}
            },
        },
        SchemaFacts(False, False, False, True),
    ),
    (
        {
            "type": "object",
            "allOf": [{"x-kubernetes-validations": [{"rule": "self.a == 1"}]}],
            "properties": {"a": {"type": "integer"}},
        },
        SchemaFacts(False, False, False, True),
    ),
]


@pytest.mark.parametrize(
    ("schema", "expected"),
    CASES,
    ids=[
        "plain",
        "property-default",
        "additional-default",
        "embedded-items",
        "map-list",
        "atomic-list",
        "nested-rule",
        "rule-in-allOf",
    ],
)
def test_facts_of_a_subtree(schema: JSON, expected: SchemaFacts) -> None:
    assert facts(schema) == expected
    assert facts(schema) is facts(schema), "remembered, not recomputed"


def test_a_new_node_never_gets_the_facts_of_a_dead_one() -> None:
    for _ in range(200):
        # Fresh dicts, freed at once: CPython reuses their ids; the memo holds its nodes,
        # so an id it remembers is never reused for another node.
        assert not facts({"type": "object"}).defaults
        assert facts({"type": "object", "properties": {"a": {"default": 1}}}).defaults
