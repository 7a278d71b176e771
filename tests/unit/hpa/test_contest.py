"""Observing who else writes a target's spec.replicas (``podscale.hpa.contest``).

The writer comes from the target's ``managedFields`` in their wire form (``fieldsV1``), as
the API server keeps them: an entry owns ``spec.replicas`` when its fields hold
``f:spec`` -> ``f:replicas``. Built by hand here, as upstream's server writes them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa.contest import (
    MAX_WRITES,
    ContestState,
    ReplicasWrite,
    contest_from_dict,
    contest_to_dict,
    needs_owners,
    observe,
    record_own_write,
    replicas_owners,
    settle,
)

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
JSON = dict[str, Any]
REPLICAS = {"f:spec": {"f:replicas": {}}}
TEMPLATE = {"f:spec": {"f:template": {"f:spec": {"f:containers": {}}}}}
STATUS = {"f:status": {"f:replicas": {}, "f:readyReplicas": {}}}


def entry(
    manager: str, fields: JSON, *, op: str = "Update", sub: str = "", at: str = "10:00:00"
) -> JSON:
    out: JSON = {
        "manager": manager,
        "operation": op,
        "apiVersion": "apps/v1",
        "time": f"2026-03-01T{at}Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }
    if sub:
        out["subresource"] = sub
    return out


HPA_SCALE = entry("kube-controller-manager", REPLICAS, sub="scale", at="09:50:00")
DEPLOY_STATUS = entry("kube-controller-manager", STATUS, sub="status", at="09:59:00")
AFTER_HPA = ContestState(expected=5, hpa_replicas=5, hpa_time="2026-03-01T09:50:00Z")


@pytest.mark.parametrize(
    ("state", "replicas", "managed", "writer"),
    [
        (AFTER_HPA, 5, [HPA_SCALE, DEPLOY_STATUS], None),
        (
            AFTER_HPA,
            1,
            [entry("argocd-controller", REPLICAS, at="09:59:30"), DEPLOY_STATUS],
            ("argocd-controller", "Update", "", "2026-03-01T09:59:30Z"),
        ),
        (
            AFTER_HPA,
            1,
            [
                entry(
                    "kubectl",
                    {"f:spec": {"f:replicas": {}, **TEMPLATE["f:spec"]}},
                    op="Apply",
                    at="09:58:00",
                )
            ],
            ("kubectl", "Apply", "", "2026-03-01T09:58:00Z"),
        ),
        (
            AFTER_HPA,
            3,
            [entry("kubectl-scale", REPLICAS, sub="scale", at="09:57:00"), DEPLOY_STATUS],
            ("kubectl-scale", "Update", "scale", "2026-03-01T09:57:00Z"),
        ),
        (
            AFTER_HPA,
            2,
            [
                entry("kubectl-client-side-apply", TEMPLATE, at="09:00:00"),
                entry("flux", REPLICAS, op="Apply", at="09:55:00"),
                entry("helm", REPLICAS, op="Apply", at="09:56:00"),
            ],
            ("helm", "Apply", "", "2026-03-01T09:56:00Z"),
        ),
        (AFTER_HPA, 8, [entry("kube-controller-manager", REPLICAS, sub="scale")], None),
        (AFTER_HPA, 1, None, ("", "", "", "2026-03-01T10:00:00Z")),
        (AFTER_HPA, 1, [entry("podscale", TEMPLATE)], ("", "", "", "2026-03-01T10:00:00Z")),
        (AFTER_HPA, 0, [entry("keda-operator", REPLICAS, sub="scale")], None),
        (ContestState(expected=0), 3, [entry("someone", REPLICAS)], None),
        (ContestState(), 1, [entry("kubectl-client-side-apply", REPLICAS)], None),
    ],
    ids=[
        "own-value-unchanged-no-read-needed",
        "update-by-another-manager-after-the-hpa",
        "server-side-apply-by-kubectl",
        "kubectl-scale-through-the-scale-subresource",
        "newest-of-several-owners-is-the-writer",
        "own-identity-write-by-another-in-process-scaler-is-no-fight",
        "no-managed-fields-at-all-unknown-writer",
        "nobody-owns-replicas-unknown-writer",
        "scaled-to-zero-is-scaling-disabled",
        "enabled-again-from-zero",
        "first-sight-sets-the-baseline",
    ],
)
def test_observe_names_the_writer(
    state: ContestState,
    replicas: int,
    managed: list[JSON] | None,
    writer: tuple[str, str, str, str] | None,
) -> None:
    after, write = observe(state, replicas=replicas, managed_fields=managed, now=NOW)
    assert after.expected == replicas
    if writer is None:
        assert write is None
        assert after.writes == state.writes
        return
    assert write is not None
    assert (write.manager, write.operation, write.subresource, write.time) == writer
    assert (write.replicas, write.replaced, write.contested) == (replicas, state.expected, True)
    assert after.writes[-1] == write


def test_needs_owners_only_for_an_unaccounted_change() -> None:
    assert not needs_owners(ContestState(), 3)
    assert not needs_owners(AFTER_HPA, 5)
    assert needs_owners(AFTER_HPA, 1)
    own = record_own_write(AFTER_HPA._replace(expected=1), 4, NOW)
    assert (own.expected, own.hpa_replicas, own.hpa_time) == (4, 4, "2026-03-01T10:00:00Z")
    assert not needs_owners(own, 4)


def test_a_seen_write_is_not_reported_again() -> None:
    managed = [entry("argocd-controller", REPLICAS, at="09:59:30")]
    state, first = observe(AFTER_HPA, replicas=1, managed_fields=managed, now=NOW)
    assert first is not None
    later = NOW + timedelta(seconds=15)
    again, second = observe(state, replicas=1, managed_fields=managed, now=later)
    assert second is None
    assert again.writes == state.writes


def test_writes_are_bounded_newest_kept() -> None:
    state = AFTER_HPA
    for minute in range(MAX_WRITES + 3):
        at = f"10:{minute:02d}:00"
        state, write = observe(
            state,
            replicas=1,
            managed_fields=[entry("argocd-controller", REPLICAS, at=at)],
            now=NOW + timedelta(minutes=minute),
        )
        assert write is not None
        state = record_own_write(state, 5, NOW + timedelta(minutes=minute, seconds=10))
    assert len(state.writes) == MAX_WRITES
    assert state.writes[-1].time == f"2026-03-01T10:{MAX_WRITES + 2:02d}:00Z"


def test_settle_marks_only_the_last_write() -> None:
    state, write = observe(AFTER_HPA, replicas=7, managed_fields=None, now=NOW)
    assert write is not None
    accepted, settled = settle(state, write, contested=False)
    assert settled.contested is False
    assert accepted.writes[-1] == settled
    stale = write._replace(replicas=9)
    assert settle(accepted, stale, contested=True) == (accepted, stale)


def test_owners_read_from_the_wire_form() -> None:
    managed = [HPA_SCALE, DEPLOY_STATUS, "junk", {"fieldsV1": "junk"}, entry("x", TEMPLATE)]
    assert replicas_owners(managed) == [HPA_SCALE]


writes = st.builds(
    ReplicasWrite,
    manager=st.sampled_from(["", "argocd-controller", "kubectl"]),
    operation=st.sampled_from(["", "Apply", "Update"]),
    subresource=st.sampled_from(["", "scale"]),
    time=st.just("2026-03-01T10:00:00Z"),
    replicas=st.integers(0, 100),
    replaced=st.one_of(st.none(), st.integers(0, 100)),
    contested=st.booleans(),
)


@given(
    st.builds(
        ContestState,
        expected=st.one_of(st.none(), st.integers(0, 100)),
        hpa_replicas=st.one_of(st.none(), st.integers(0, 100)),
        hpa_time=st.just("2026-03-01T09:00:00Z"),
        writes=st.lists(writes, max_size=MAX_WRITES).map(tuple),
    )
)
def test_state_document_round_trips(state: ContestState) -> None:
    if state.hpa_replicas is None:
        state = state._replace(hpa_time=None)
    assert contest_from_dict(contest_to_dict(state)) == state


@pytest.mark.parametrize(
    "document",
    [None, "text", {"writes": "no"}, {"writes": [{"manager": "x"}], "expectedReplicas": "3"}],
    ids=["absent", "not-an-object", "writes-not-a-list", "unreadable-parts-dropped"],
)
def test_unreadable_documents_start_afresh(document: Any) -> None:
    assert contest_from_dict(document) == ContestState()


@given(st.lists(st.integers(1, 50), min_size=1, max_size=20), st.integers(1, 50))
def test_the_autoscalers_own_writes_are_never_observed(own: list[int], first: int) -> None:
    state, _ = observe(ContestState(), replicas=first, managed_fields=None, now=NOW)
    for step, replicas in enumerate(own):
        at = NOW + timedelta(seconds=15 * step)
        state = record_own_write(state, replicas, at)
        managed = [HPA_SCALE, DEPLOY_STATUS]
        state, write = observe(state, replicas=replicas, managed_fields=managed, now=at)
        assert write is None
    assert state.writes == ()
