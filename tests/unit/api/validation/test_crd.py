"""CustomResourceDefinition validation: upstream's texts and field paths, one case per rule.

A single-version CRD's schema, subresources and columns are reported at the internal type's
top-level paths (``spec.validation...``), as apiextensions-apiserver converts v1 before it
validates; a multi-version CRD with differing schemas keeps ``spec.versions[i]``."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from podscale.api import apply_defaults
from podscale.api.validation import validate

JSON = dict[str, Any]
DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
ROOT = "spec.validation.openAPIV3Schema"
SPEC_SCHEMA = f"{ROOT}.properties[spec]"

_BASE: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "backups.storage.podscale.dev"},
    "spec": {
        "group": "storage.podscale.dev",
        "scope": "Namespaced",
        "names": {"plural": "backups", "kind": "Backup"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"target": {"type": "string"}},
                            }
                        },
                    }
                },
            }
        ],
    },
    "status": {"storedVersions": ["v1"]},
}


def _crd(mutate: Callable[[JSON], Any]) -> JSON:
    obj = copy.deepcopy(_BASE)
    mutate(obj)
    return apply_defaults(obj)


def _version(obj: JSON) -> JSON:
    return obj["spec"]["versions"][0]  # type: ignore[no-any-return]


def _root(obj: JSON) -> JSON:
    return _version(obj)["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]


def _spec(obj: JSON) -> JSON:
    return _root(obj)["properties"]["spec"]  # type: ignore[no-any-return]


def _add_property(name: str, schema: JSON) -> Callable[[JSON], None]:
    return lambda obj: _spec(obj)["properties"].update({name: schema})


CASES: list[tuple[str, Callable[[JSON], Any], list[str]]] = [
    ("valid", lambda obj: None, []),
    (
        "name-must-be-plural-dot-group",
        lambda obj: obj["metadata"].update(name="backup.storage.podscale.dev"),
        [
            'metadata.name: Invalid value: "backup.storage.podscale.dev": '
            'must be spec.names.plural+"."+spec.group'
        ],
    ),
    (
        "group-without-dot",
        lambda obj: (
            obj["spec"].update(group="storage"),
            obj["metadata"].update(name="backups.storage"),
        ),
        ['spec.group: Invalid value: "storage": should be a domain with at least one dot'],
    ),
    (
        "group-required",
        lambda obj: obj["spec"].pop("group"),
        [
            'metadata.name: Invalid value: "backups.storage.podscale.dev": '
            'must be spec.names.plural+"."+spec.group',
            "spec.group: Required value",
        ],
    ),
    (
        "scope-unsupported",
        lambda obj: obj["spec"].update(scope="Global"),
        ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ),
    (
        "plural-not-lowercase",
        lambda obj: (
            obj["spec"]["names"].update(plural="Backups"),
            obj["metadata"].update(name="Backups.storage.podscale.dev"),
        ),
        [
            'metadata.name: Invalid value: "Backups.storage.podscale.dev": a lowercase RFC 1123 '
            "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            f'spec.names.plural: Invalid value: "Backups": {DNS1035}',
        ],
    ),
    (
        "kind-with-underscore",
        lambda obj: obj["spec"]["names"].update(kind="Back_up", listKind="BackupList"),
        [  # the singular defaults to the lowered kind, so it is invalid too
            f'spec.names.singular: Invalid value: "back_up": {DNS1035}',
            'spec.names.kind: Invalid value: "Back_up": may have mixed case, but should '
            f"otherwise match: {DNS1035}",
        ],
    ),
    (
        "kind-equals-list-kind",
        lambda obj: obj["spec"]["names"].update(listKind="Backup"),
        ['spec.names.listKind: Invalid value: "Backup": kind and listKind may not be the same'],
    ),
    (
        "short-name-invalid",
        lambda obj: obj["spec"]["names"].update(shortNames=["bk", "b.k"]),
        [f'spec.names.shortNames[1]: Invalid value: "b.k": {DNS1035}'],
    ),
    (
        "kind-required",
        lambda obj: obj["spec"]["names"].pop("kind"),
        [
            "spec.names.singular: Required value",
            "spec.names.kind: Required value",
            "spec.names.listKind: Required value",
        ],
    ),
    (
        "schema-required",
        lambda obj: _version(obj).pop("schema"),
        ["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"],
    ),
    (
        "version-name-invalid",
        lambda obj: (_version(obj).update(name="V1"), obj["status"].update(storedVersions=["V1"])),
        [f'spec.versions[0].name: Invalid value: "V1": {DNS1035}'],
    ),
    (
        "stored-version-missing",
        lambda obj: obj["status"].update(storedVersions=["v0"]),
        [
            'status.storedVersions: Invalid value: ["v0"]: must have the storage version v1',
            'status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was '
            "previously a storage version, and must remain in spec.versions until a storage "
            "migration ensures no data remains persisted in v0 and removes v0 from "
            "status.storedVersions",
        ],
    ),
    (
        "type-required-on-field",
        lambda obj: _spec(obj)["properties"]["target"].pop("type"),
        [
            f"{SPEC_SCHEMA}.properties[target].type: Required value: must not be empty for "
            "specified object fields"
        ],
    ),
    (
        "type-required-on-items",
        _add_property("tags", {"type": "array", "items": {"description": "a tag"}}),
        [
            f"{SPEC_SCHEMA}.properties[tags].items.type: Required value: must not be empty for "
            "specified array items"
        ],
    ),
    (
        "array-without-items",
        _add_property("tags", {"type": "array"}),
        [f"{SPEC_SCHEMA}.properties[tags].items: Required value: must be specified"],
    ),
    (
        "root-must-be-object",
        lambda obj: _version(obj)["schema"].update(openAPIV3Schema={"type": "string"}),
        [f'{ROOT}.type: Invalid value: "string": must be object at the root'],
    ),
    (
        "type-not-openapi",
        _add_property("when", {"type": "datetime"}),
        [
            f'{SPEC_SCHEMA}.properties[when].type: Unsupported value: "datetime": supported '
            'values: "array", "boolean", "integer", "number", "object", "string"'
        ],
    ),
    (
        "properties-with-additional-properties",
        lambda obj: _spec(obj).update(additionalProperties={"type": "string"}),
        [
            f"{SPEC_SCHEMA}.additionalProperties: Forbidden: additionalProperties and properties "
            "are mutual exclusive"
        ],
    ),
    (
        "additional-properties-false-with-properties",
        lambda obj: _spec(obj).update(additionalProperties=False),
        [
            f"{SPEC_SCHEMA}.additionalProperties: Forbidden: additionalProperties and properties "
            "are mutual exclusive"
        ],
    ),
    (
        "metadata-restricted",
        lambda obj: _root(obj)["properties"].update(
            metadata={"type": "object", "properties": {"labels": {"type": "object"}}}
        ),
        [
            f"{ROOT}.properties[metadata]: Forbidden: must not specify anything other than name "
            "and generateName, but metadata is implicitly specified"
        ],
    ),
    (
        "metadata-name-allowed",
        lambda obj: _root(obj)["properties"].update(
            metadata={"type": "object", "properties": {"name": {"type": "string", "maxLength": 40}}}
        ),
        [],
    ),
    (
        "default-in-top-level-metadata",
        lambda obj: _root(obj)["properties"].update(metadata={"type": "object", "default": {}}),
        [f"{ROOT}.properties[metadata].default: Forbidden: must not be set in top-level metadata"],
    ),
    (
        "int-or-string-any-of-allowed",
        _add_property(
            "port",
            {
                "x-kubernetes-int-or-string": True,
                "anyOf": [{"type": "integer"}, {"type": "string"}],
            },
        ),
        [],
    ),
    (
        "int-or-string-with-preserve",
        _add_property(
            "port",
            {"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True},
        ),
        [
            f"{SPEC_SCHEMA}.properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: "
            "true: must be false if x-kubernetes-int-or-string is true"
        ],
    ),
    (
        "preserve-unknown-fields-false",
        _add_property("raw", {"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
        [
            f"{SPEC_SCHEMA}.properties[raw].x-kubernetes-preserve-unknown-fields: Invalid value: "
            "false: must be true or undefined"
        ],
    ),
    (
        "value-validation-with-type",
        lambda obj: _spec(obj).update(anyOf=[{"properties": {"other": {"type": "string"}}}]),
        [
            f"{SPEC_SCHEMA}.anyOf[0].properties[other].type: Forbidden: must be empty to be "
            "structural",
            f"{SPEC_SCHEMA}.properties[other]: Required value: because it is defined in "
            f"{SPEC_SCHEMA}.anyOf[0].properties[other]",
        ],
    ),
    (
        "embedded-resource-without-object",
        _add_property("template", {"x-kubernetes-embedded-resource": True, "type": "string"}),
        [  # structural errors come sorted by their text, as upstream sorts them
            f"{SPEC_SCHEMA}.properties[template].properties: Required value: must not be empty "
            "if x-kubernetes-embedded-resource is true without "
            "x-kubernetes-preserve-unknown-fields",
            f'{SPEC_SCHEMA}.properties[template].type: Invalid value: "string": must be object '
            "if x-kubernetes-embedded-resource is true",
        ],
    ),
    (
        "list-map-key-not-scalar",
        _add_property(
            "shards",
            {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["id"],
                "items": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": {"type": "object"}},
                },
            },
        ),
        [
            f'{SPEC_SCHEMA}.properties[shards].items.properties[id].type: Invalid value: "object": '
            "must be a scalar type if parent array's x-kubernetes-list-type is map"
        ],
    ),
    (
        "list-map-key-not-required",
        _add_property(
            "shards",
            {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["zone"],
                "items": {"type": "object", "properties": {"zone": {"type": "string"}}},
            },
        ),
        [
            f"{SPEC_SCHEMA}.properties[shards].items.properties[zone].default: Required value: "
            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a "
            "required property"
        ],
    ),
    (
        "list-map-key-unknown",
        _add_property(
            "shards",
            {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"zone": {"type": "string"}}},
            },
        ),
        [
            f"{SPEC_SCHEMA}.properties[shards].x-kubernetes-list-map-keys: Invalid value: "
            '["name"]: entries must all be names of item properties'
        ],
    ),
    (
        "list-map-keys-without-map-type",
        _add_property(
            "shards",
            {
                "type": "array",
                "x-kubernetes-list-map-keys": ["zone"],
                "items": {"type": "object", "properties": {"zone": {"type": "string"}}},
            },
        ),
        [
            f"{SPEC_SCHEMA}.properties[shards].x-kubernetes-list-type: Required value: must be map "
            "if x-kubernetes-list-map-keys is non-empty"
        ],
    ),
    (
        "list-type-unsupported",
        _add_property(
            "tags", {"type": "array", "x-kubernetes-list-type": "bag", "items": {"type": "string"}}
        ),
        [
            f'{SPEC_SCHEMA}.properties[tags].x-kubernetes-list-type: Unsupported value: "bag": '
            'supported values: "atomic", "map", "set"'
        ],
    ),
    (
        "unique-items",
        _add_property("tags", {"type": "array", "uniqueItems": True, "items": {"type": "string"}}),
        [
            f"{SPEC_SCHEMA}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to "
            "true since the runtime complexity becomes quadratic"
        ],
    ),
    (
        "ref-unsupported",
        _add_property("other", {"type": "object", "$ref": "#/definitions/Other"}),
        [f"{SPEC_SCHEMA}.properties[other].$ref: Forbidden: $ref is not supported"],
    ),
    (
        "nullable-root",
        lambda obj: _root(obj).update(nullable=True),
        [f"{ROOT}.nullable: Forbidden: nullable cannot be true at the root"],
    ),
    (
        "status-subresource-root-restricted",
        lambda obj: (
            _version(obj).update(subresources={"status": {}}),
            _root(obj).update(minProperties=1),
        ),
        [
            f"{ROOT}: Invalid value: "
            '{"minProperties":1,"properties":{"spec":{"properties":{"target":{"type":"string"}},'
            '"type":"object"}},"type":"object"}: only [Description Type Format Title Maximum '
            "ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems "
            "MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example "
            "XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if "
            "the status subresource is enabled"
        ],
    ),
    (
        "scale-paths",
        lambda obj: _version(obj).update(
            subresources={
                "scale": {
                    "specReplicasPath": ".status.replicas",
                    "statusReplicasPath": "status.replicas",
                    "labelSelectorPath": ".metadata.labels",
                }
            }
        ),
        [
            'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should '
            "be a json path under .spec",
            'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must '
            "be a simple json path starting with .",
            'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should '
            "be a json path under either .spec or .status",
        ],
    ),
    (
        "printer-column",
        lambda obj: _version(obj).update(
            additionalPrinterColumns=[
                {"name": "", "type": "datetime", "format": "uuid", "jsonPath": "spec.x"}
            ]
        ),
        [
            "spec.additionalPrinterColumns[0].name: Required value",
            'spec.additionalPrinterColumns[0].type: Invalid value: "datetime": must be one of '
            "boolean,date,integer,number,string",
            'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of '
            "byte,date,date-time,double,float,int32,int64,password",
            'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple '
            "json path starting with .",
        ],
    ),
    (
        "webhook-without-config",
        lambda obj: obj["spec"].update(conversion={"strategy": "Webhook"}),
        [
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set "
            "to Webhook",
            "spec.conversion.conversionReviewVersions: Required value",
            "spec.conversion.strategy: Forbidden: webhook conversion is not supported by this "
            "server yet; use strategy None",
        ],
    ),
    (
        "webhook-config-with-none",
        lambda obj: obj["spec"].update(
            conversion={"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}}
        ),
        [
            "spec.conversion.conversionReviewVersions: Forbidden: should not be set when "
            "strategy is not set to Webhook"
        ],
    ),
    (
        "preserve-unknown-fields-true",
        lambda obj: obj["spec"].update(preserveUnknownFields=True),
        [
            "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set "
            "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        ],
    ),
    (
        "rule-empty",
        lambda obj: _spec(obj).update({"x-kubernetes-validations": [{"rule": "  "}]}),
        [f"{SPEC_SCHEMA}.x-kubernetes-validations[0].rule: Required value: rule is not specified"],
    ),
    (
        "rule-reason-unsupported",
        lambda obj: _spec(obj).update(
            {"x-kubernetes-validations": [{"rule": "true", "reason": "Nope"}]}
        ),
        [
            f'{SPEC_SCHEMA}.x-kubernetes-validations[0].reason: Unsupported value: "Nope": '
            'supported values: "FieldValueDuplicate", "FieldValueForbidden", '
            '"FieldValueInvalid", "FieldValueRequired"'
        ],
    ),
    (
        "deprecation-warning-needs-deprecated",
        lambda obj: _version(obj).update(deprecationWarning="use v2"),
        [
            'spec.versions[0].deprecationWarning: Invalid value: "use v2": can only be set for '
            "deprecated versions"
        ],
    ),
    (
        "protected-group-needs-approval",
        lambda obj: (
            obj["spec"].update(group="backups.k8s.io"),
            obj["metadata"].update(name="backups.backups.k8s.io"),
        ),
        [
            "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups "
            'must have approval annotation "api-approved.kubernetes.io", see '
            "https://github.com/kubernetes/enhancements/pull/1111"
        ],
    ),
]


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_create(mutate: Callable[[JSON], Any], expected: list[str]) -> None:
    assert [str(error) for error in validate(_crd(mutate))] == expected


def _two_versions(obj: JSON) -> None:
    second = copy.deepcopy(_version(obj))
    second.update(name="v2", storage=False)
    second["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["target"] = {}
    obj["spec"]["versions"].append(second)


def test_differing_schemas_are_reported_per_version() -> None:
    errors = [str(error) for error in validate(_crd(_two_versions))]
    assert errors == [
        "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[target].type: "
        "Required value: must not be empty for specified object fields"
    ]


def _established(obj: JSON) -> JSON:
    obj["status"]["conditions"] = [{"type": "Established", "status": "True"}]
    return obj


UPDATE_CASES: list[tuple[str, Callable[[JSON], Any], bool, list[str]]] = [
    ("unchanged", lambda obj: None, True, []),
    (
        "group-immutable",
        lambda obj: obj["spec"].update(group="other.podscale.dev"),
        False,
        [
            'spec.group: Invalid value: "other.podscale.dev": field is immutable',
        ],
    ),
    (
        "plural-immutable",
        lambda obj: obj["spec"]["names"].update(plural="dumps", singular="dump"),
        False,
        ['spec.names.plural: Invalid value: "dumps": field is immutable'],
    ),
    (
        "scope-mutable-before-established",
        lambda obj: obj["spec"].update(scope="Cluster"),
        False,
        [],
    ),
    (
        "scope-immutable-once-established",
        lambda obj: obj["spec"].update(scope="Cluster"),
        True,
        ['spec.scope: Invalid value: "Cluster": field is immutable'],
    ),
    (
        "kind-immutable-once-established",
        lambda obj: obj["spec"]["names"].update(kind="Dump", singular="dump", listKind="DumpList"),
        True,
        ['spec.names.kind: Invalid value: "Dump": field is immutable'],
    ),
    (
        "stored-versions-emptied",
        lambda obj: obj["status"].update(storedVersions=[]),
        False,
        ["status.storedVersions: Invalid value: []: must have at least one stored version"],
    ),
]


@pytest.mark.parametrize(
    ("mutate", "established", "expected"),
    [c[1:] for c in UPDATE_CASES],
    ids=[c[0] for c in UPDATE_CASES],
)
def test_update(mutate: Callable[[JSON], Any], established: bool, expected: list[str]) -> None:
    old = _crd(lambda obj: None)
    if established:
        _established(old)
    new = copy.deepcopy(old)
    mutate(new)
    errors = validate(new, old=old)
    assert [str(error) for error in errors if not error.field.startswith("metadata")] == expected


def test_status_update_checks_accepted_names() -> None:
    old = _crd(lambda obj: None)
    new = copy.deepcopy(old)
    new["status"]["acceptedNames"] = {"plural": "Backups", "kind": "Backup"}
    errors = [str(error) for error in validate(new, old=old, subresource="status")]
    assert errors == [f'status.acceptedNames.plural: Invalid value: "Backups": {DNS1035}']


def test_defaults_fill_names_conversion_and_stored_versions() -> None:
    obj = copy.deepcopy(_BASE)
    obj["status"] = {}
    defaulted = apply_defaults(obj)
    assert defaulted["spec"]["names"]["singular"] == "backup"
    assert defaulted["spec"]["names"]["listKind"] == "BackupList"
    assert defaulted["spec"]["conversion"] == {"strategy": "None"}
    assert defaulted["status"]["storedVersions"] == ["v1"]
    assert obj["status"] == {}  # the input is not modified


def test_defaults_keep_what_is_set_and_default_the_webhook_port() -> None:
    obj = copy.deepcopy(_BASE)
    obj["spec"]["names"].update(singular="bk", listKind="BackupItems")
    service = {"name": "conv", "namespace": "ops"}
    obj["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {"clientConfig": {"service": service}, "conversionReviewVersions": ["v1"]},
    }
    defaulted = apply_defaults(obj)
    assert defaulted["spec"]["names"]["singular"] == "bk"
    assert defaulted["spec"]["names"]["listKind"] == "BackupItems"
    assert defaulted["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("self.replicas <= 10", None),
        ("self.replicas <=", "compilation failed"),
        ("1 + 1", "cel expression must evaluate to a bool"),
    ],
    ids=["compiles", "syntax-error", "not-a-bool"],
)
def test_rules_of_a_valid_schema_are_compiled(rule: str, problem: str | None) -> None:
    def mutate(obj: JSON) -> None:
        _spec(obj)["properties"]["replicas"] = {"type": "integer"}
        _spec(obj)["x-kubernetes-validations"] = [{"rule": rule}]

    errors = [str(error) for error in validate(_crd(mutate))]
    if problem is None:
        assert errors == []
    else:
        assert len(errors) == 1
        assert errors[0].startswith(
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
            "Invalid value: apiextensions.ValidationRule{"
        )
        assert problem in errors[0]
