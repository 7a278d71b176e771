"""``controllers.deployment.quiet``: which syncs are remembered as quiet, what counts as
the same inputs, and a whole scenario played with the repeats and without them (the same
snapshots, and repeats did happen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import podscale.demo
from podscale.controllers.deployment.quiet import CallCounter, QuietSyncs, quiet_outcome
from podscale.scenario.loader import load_scenario
from podscale.scenario.play import run_scenario

STEP = Path(podscale.demo.__file__).parent / "scenarios" / "php-apache-step.yaml"


def _deployment(reason: str | None, replicas: int = 3, updated: int = 3) -> dict[str, Any]:
    conditions = [] if reason is None else [{"type": "Progressing", "reason": reason}]
    status = {"replicas": replicas, "updatedReplicas": updated, "conditions": conditions}
    return {"metadata": {"name": "web"}, "status": status}


@pytest.mark.parametrize(
    ("deployment", "quiet"),
    [
        (_deployment("NewReplicaSetAvailable"), True),
        (_deployment("NewReplicaSetAvailable", replicas=4, updated=3), False),
        (_deployment("ReplicaSetUpdated"), False),
        (_deployment("ProgressDeadlineExceeded"), False),
        (_deployment(None), False),
        ({"metadata": {"name": "web"}}, False),
    ],
    ids=["complete", "rollout-not-done", "progressing", "timed-out", "no-condition", "no-status"],
)
def test_only_the_complete_path_is_quiet(deployment: dict[str, Any], quiet: bool) -> None:
    assert quiet_outcome(deployment) is quiet


def test_repeats_need_the_very_same_objects() -> None:
    quiet = QuietSyncs()
    deployment, a, b = {"d": 1}, {"rs": "a"}, {"rs": "b"}
    assert not quiet.repeats("ns/web", deployment, [a, b])
    quiet.remember("ns/web", deployment, [a, b], 7)
    assert quiet.repeats("ns/web", deployment, [a, b])
    assert not quiet.repeats("ns/other", deployment, [a, b])
    assert not quiet.repeats("ns/web", {"d": 1}, [a, b])  # equal, not the same object
    assert not quiet.repeats("ns/web", deployment, [a, {"rs": "b"}])
    assert not quiet.repeats("ns/web", deployment, [b, a])
    assert not quiet.repeats("ns/web", deployment, [a])
    quiet.forget("ns/web")
    assert not quiet.repeats("ns/web", deployment, [a, b])
    assert len(quiet) == 0


@pytest.mark.parametrize(
    ("same_deployment", "changes", "key", "unchanged"),
    [
        (True, 7, "ns/web", True),
        (True, 8, "ns/web", False),
        (False, 7, "ns/web", False),
        (True, 7, "ns/other", False),
    ],
    ids=["same-inputs", "a-replica-set-changed", "deployment-changed", "other-key"],
)
def test_unchanged_needs_the_same_deployment_and_change_count(
    same_deployment: bool, changes: int, key: str, unchanged: bool
) -> None:
    quiet = QuietSyncs()
    deployment = {"d": 1}
    assert not quiet.unchanged("ns/web", deployment, 7)
    quiet.remember("ns/web", deployment, [{"rs": "a"}], 7)
    asked = deployment if same_deployment else {"d": 1}
    assert quiet.unchanged(key, asked, changes) is unchanged
    quiet.forget("ns/web")
    assert not quiet.unchanged("ns/web", deployment, 7)


def test_call_counter_counts_and_passes_through() -> None:
    class Api:
        def get(self, name: str) -> str:
            return f"got {name}"

    counter = CallCounter(Api())
    assert counter.calls == 0
    assert counter.get("x") == "got x"
    assert counter.calls == 1
    with pytest.raises(AttributeError):
        _ = counter.missing
    assert counter.calls == 2  # counting more than the calls only forgoes a repeat


def test_a_scenario_plays_the_same_with_and_without_repeats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = load_scenario(STEP)
    real = QuietSyncs.repeats
    repeated: list[str] = []

    def counting(self: QuietSyncs, key: str, deployment: object, rs: list[object]) -> bool:
        hit = real(self, key, deployment, rs)
        if hit:
            repeated.append(key)
        return hit

    monkeypatch.setattr(QuietSyncs, "repeats", counting)
    # The listing's identity check on its own: the shortcut before it is tested below.
    monkeypatch.setattr(QuietSyncs, "unchanged", lambda *_: False)
    with_repeats = run_scenario(scenario).snapshots
    assert repeated  # pods starting after a scale-up made the sync spin and repeat
    monkeypatch.setattr(QuietSyncs, "repeats", lambda *_: False)
    assert run_scenario(scenario).snapshots == with_repeats


def test_unchanged_repeats_equal_listing_the_replica_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shortcut before the listing against the general path: the same snapshots with
    and without it; it was taken, and later missed (a ReplicaSet or the Deployment changed
    under a quiet sync) so that the full sync ran again."""
    scenario = load_scenario(STEP)
    real_unchanged, real_repeats = QuietSyncs.unchanged, QuietSyncs.repeats
    hits: list[str] = []

    def unchanged(self: QuietSyncs, key: str, deployment: object, changes: int) -> bool:
        hit = real_unchanged(self, key, deployment, changes)
        hits.append("unchanged" if hit else "miss")
        return hit

    def repeats(self: QuietSyncs, key: str, deployment: object, rs: list[object]) -> bool:
        hit = real_repeats(self, key, deployment, rs)
        if hit:
            hits.append("listed")
        return hit

    monkeypatch.setattr(QuietSyncs, "unchanged", unchanged)
    monkeypatch.setattr(QuietSyncs, "repeats", repeats)
    with_shortcut = run_scenario(scenario).snapshots
    assert "unchanged" in hits
    assert "miss" in hits[hits.index("unchanged") :]
    monkeypatch.setattr(QuietSyncs, "unchanged", lambda *_: False)
    monkeypatch.setattr(QuietSyncs, "repeats", real_repeats)
    assert run_scenario(scenario).snapshots == with_shortcut
