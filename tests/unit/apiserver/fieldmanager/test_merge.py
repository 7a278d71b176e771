"""apply and update: ownership, conflicts, forced transfer, sharing, pruning, entries."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from podscale.apiserver.fieldmanager import (
    ConflictError,
    ManagedEntry,
    TypeInfo,
    apply,
    decode_managed_fields,
    encode_managed_fields,
    update,
)
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import cap_update_managers

T0, T1, T2 = "2024-05-01T10:00:00Z", "2024-05-01T10:01:00Z", "2024-05-01T10:02:00Z"


def _deploy(replicas: int | None = 3, **spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment"}
    out["metadata"] = {"name": "web", "labels": {"app": "web"}}
    out["spec"] = {"containers": [{"name": "web", "image": "nginx"}], **spec}
    if replicas is not None:
        out["spec"]["replicas"] = replicas
    return out


def _apply(
    t: TypeInfo, live: dict[str, Any], cfg: dict[str, Any], mgr: str,
    entries: list[ManagedEntry], *, force: bool = False, now: str = T1, sub: str = "",
) -> tuple[dict[str, Any], list[ManagedEntry]]:  # fmt: skip
    return apply(live, cfg, mgr, entries, t, api_version="apps/v1", force=force, now=now,
                 subresource=sub)  # fmt: skip


def _owners(entries: list[ManagedEntry]) -> dict[str, dict[str, Any]]:
    return {f"{e.manager}/{e.operation}{'/' + e.subresource if e.subresource else ''}":
            e.fields.to_fields_v1() for e in entries}  # fmt: skip


def _created(t: TypeInfo) -> tuple[dict[str, Any], list[ManagedEntry]]:
    obj, entries = _apply(t, {}, _deploy(), "kubectl", [], now=T0)
    obj["metadata"]["uid"] = "u-1"
    return obj, entries


def _scaled(t: TypeInfo, replicas: int = 5) -> tuple[dict[str, Any], list[ManagedEntry]]:
    obj, entries = _created(t)
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = replicas
    entries = update(obj, new, "kube-controller-manager", entries, t, api_version="apps/v1",
                     now=T1, subresource="scale")  # fmt: skip
    return new, entries


def test_create_by_apply_records_apply_entry_without_identity_fields(deployment: TypeInfo) -> None:
    obj, entries = _apply(deployment, {}, _deploy(), "kubectl", [], now=T0)
    assert obj == _deploy()
    assert encode_managed_fields(entries) == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "time": T0,
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {
                    "f:containers": {'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}}},
                    "f:replicas": {},
                },
            },
        }
    ]


def test_conflict_with_updater_on_scale_subresource_names_it(deployment: TypeInfo) -> None:
    live, entries = _scaled(deployment)
    with pytest.raises(ConflictError) as caught:
        _apply(deployment, live, _deploy(3), "kubectl", entries, now=T2)
    assert str(caught.value) == (
        'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource'
        ' "scale" using apps/v1: .spec.replicas'
    )
    (conflict,) = caught.value.conflicts
    assert (conflict.field, conflict.message) == (
        ".spec.replicas",
        'conflict with "kube-controller-manager" with subresource "scale" using apps/v1',
    )


def test_conflicts_grouped_by_sorted_manager(deployment: TypeInfo) -> None:
    live, entries = _created(deployment)
    mine = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 3, "paused": True}}  # fmt: skip
    live, entries = _apply(deployment, live, mine, "zeta", entries, force=True)
    other = _deploy(4, paused=False)
    other["spec"]["containers"][0]["image"] = "httpd"
    with pytest.raises(ConflictError) as caught:
        _apply(deployment, live, other, "alpha", entries, now=T2)
    assert str(caught.value) == (
        'Apply failed with 4 conflicts: conflicts with "kubectl":\n'
        "- .spec.replicas\n"
        '- .spec.containers[name="web"].image\n'
        'conflicts with "zeta":\n'
        "- .spec.paused\n"
        "- .spec.replicas"
    )


def test_force_transfers_ownership_to_the_applier(deployment: TypeInfo) -> None:
    live, entries = _scaled(deployment)
    obj, entries = _apply(deployment, live, _deploy(2), "kubectl", entries, force=True, now=T2)
    assert obj["spec"]["replicas"] == 2
    owners = _owners(entries)
    assert "kube-controller-manager/Update/scale" not in owners
    assert owners["kubectl/Apply"]["f:spec"]["f:replicas"] == {}


def test_same_value_applied_by_two_managers_is_shared(deployment: TypeInfo) -> None:
    live, entries = _created(deployment)
    cfg = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
           "spec": {"replicas": 3}}  # fmt: skip
    obj, entries = _apply(deployment, live, cfg, "helm", entries, now=T2)
    assert obj == live
    owners = _owners(entries)
    assert owners["helm/Apply"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" in owners["kubectl/Apply"]["f:spec"]
    helm = next(e for e in entries if e.manager == "helm")
    assert helm.time is None  # a no-op apply sets no time
    # Now kubectl stops applying replicas: helm still owns it, so it stays.
    obj, entries = _apply(deployment, obj, _deploy(None), "kubectl", entries, now=T2)
    assert obj["spec"]["replicas"] == 3


@pytest.mark.parametrize(
    ("drop", "gone"),
    [
        (lambda d: d["metadata"].pop("labels"), lambda o: "labels" in o["metadata"]),
        (lambda d: d["spec"].pop("replicas"), lambda o: "replicas" in o["spec"]),
        (
            lambda d: d["spec"].update(containers=[{"name": "side", "image": "busybox"}]),
            lambda o: [c["name"] for c in o["spec"]["containers"]] != ["side"],
        ),
    ],
    ids=["granular-map-entry", "struct-field", "list-map-item"],
)
def test_field_no_longer_applied_and_solely_owned_is_removed(
    deployment: TypeInfo, drop: Any, gone: Any
) -> None:
    live, entries = _created(deployment)
    cfg = _deploy()
    drop(cfg)
    obj, entries = _apply(deployment, live, cfg, "kubectl", entries, now=T2)
    assert not gone(obj)


def test_field_no_longer_applied_but_updated_by_another_is_kept(deployment: TypeInfo) -> None:
    live, entries = _scaled(deployment)
    obj, entries = _apply(deployment, live, _deploy(None), "kubectl", entries, force=True, now=T2)
    assert obj["spec"]["replicas"] == 5
    assert _owners(entries)["kube-controller-manager/Update/scale"] == {
        "f:spec": {"f:replicas": {}}
    }


def test_update_after_apply_takes_changed_fields_and_drops_removed(deployment: TypeInfo) -> None:
    live, entries = _created(deployment)
    new = copy.deepcopy(live)
    new["spec"]["containers"][0]["image"] = "nginx:2"
    del new["metadata"]["labels"]
    new["metadata"]["resourceVersion"] = "9"
    entries = update(live, new, "kubectl-edit", entries, deployment, api_version="apps/v1", now=T2)
    owners = _owners(entries)
    assert owners["kubectl-edit/Update"] == {
        "f:spec": {"f:containers": {'k:{"name":"web"}': {"f:image": {}}}}
    }
    assert "f:metadata" not in owners["kubectl/Apply"]
    assert "f:image" not in owners["kubectl/Apply"]["f:spec"]["f:containers"]['k:{"name":"web"}']


def test_update_entries_are_per_api_version_apply_entries_are_not(deployment: TypeInfo) -> None:
    live, entries = _created(deployment)
    v1 = copy.deepcopy(live)
    v1["spec"]["paused"] = True
    entries = update(live, v1, "ctl", entries, deployment, api_version="apps/v1", now=T1)
    v2 = copy.deepcopy(v1)
    v2["spec"]["replicas"] = 9
    entries = update(v1, v2, "ctl", entries, deployment, api_version="apps/v1beta2", now=T2)
    assert [(e.manager, e.api_version) for e in entries if e.operation == "Update"] == [
        ("ctl", "apps/v1"),
        ("ctl", "apps/v1beta2"),
    ]
    _, again = apply(v2, _deploy(9), "kubectl", entries, deployment, api_version="apps/v1beta2",
                     force=True, now=T2)  # fmt: skip
    assert [e.api_version for e in again if e.manager == "kubectl"] == ["apps/v1beta2"]


def test_update_of_untracked_existing_object_stays_untracked(deployment: TypeInfo) -> None:
    old = {**_deploy(), "metadata": {"name": "web", "uid": "u-1"}}
    new = copy.deepcopy(old)
    new["spec"]["replicas"] = 7
    assert update(old, new, "ctl", [], deployment, api_version="apps/v1", now=T1) == []


def test_first_apply_to_untracked_object_conflicts_with_before_first_apply(
    deployment: TypeInfo,
) -> None:
    live = {**_deploy(), "metadata": {"name": "web", "uid": "u-1"}}
    with pytest.raises(ConflictError) as caught:
        _apply(deployment, live, _deploy(4), "kubectl", [])
    assert '"before-first-apply" using apps/v1: .spec.replicas' in str(caught.value)


def test_more_than_ten_updaters_fold_into_ancient_changes() -> None:
    def entry(i: int) -> ManagedEntry:
        fields = FieldSet.from_fields_v1({f"f:f{i}": {}})
        return ManagedEntry(f"m{i:02}", "Update", "v1", f"2024-05-01T10:{i:02}:00Z", "", fields)

    capped = cap_update_managers([entry(i) for i in range(12)])
    names = sorted(e.manager for e in capped)
    assert names == ["ancient-changes", *(f"m{i:02}" for i in range(3, 12))]
    bucket = next(e for e in capped if e.manager == "ancient-changes")
    assert bucket.fields.to_fields_v1() == {"f:f0": {}, "f:f1": {}, "f:f2": {}}
    assert bucket.time == "2024-05-01T10:02:00Z"


def test_managed_fields_round_trip_and_order(deployment: TypeInfo) -> None:
    _, entries = _scaled(deployment)
    encoded = encode_managed_fields(entries)
    assert [e["operation"] for e in encoded] == ["Apply", "Update"]
    assert encoded[1]["subresource"] == "scale"
    assert encode_managed_fields(decode_managed_fields(encoded)) == encoded


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([{"manager": "a", "operation": "Apply"}], "missing fieldsType"),
        (
            [{"manager": "a", "operation": "Apply", "fieldsType": "FieldsV2"}],
            'invalid fieldsType "FieldsV2"',
        ),
        (
            [{"manager": "a", "operation": "Patch", "fieldsType": "FieldsV1"}],
            "unsupported operation",
        ),
        (
            [{"operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {"q:x": {}}}],
            "unknown path",
        ),
    ],
    ids=["missing-fields-type", "unknown-fields-type", "bad-operation", "bad-fields-v1"],
)
def test_malformed_managed_fields(raw: list[Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_managed_fields(raw)
