"""The history's key: an equal key means the stored comparison finds no change, so the
kept path (``history_unchanged`` from the key last stored or compared) writes exactly what
the general path (encode and compare every time) writes, over whole runs of syncs,
including a changed spec, a restarted controller, a re-created HPA and a failed write."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kinds import kind_for
from podscale.controllers.hpa.history_key import history_key
from podscale.controllers.hpa.history_store import (
    HISTORY_STATE,
    LAST_DECISION_STATE,
    Retention,
    _same_history,
    encode_history,
    retention_for,
    state_changes,
)
from podscale.controllers.hpa.state_keeper import StateKeeper
from podscale.history.memory import MemoryHistory
from podscale.hpa import Config, History, StaticMetricsSource, decide
from podscale.hpa.types import Recommendation, ScaleEvent
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
CONFIG = Config()
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


# Few counts and times (ties, the cutoff itself, unsorted lists), short windows.
_moments = st.sampled_from([-400, -300, -299.5, -60, -15, -15, 0]).map(at)
_entries = st.lists(st.tuples(st.integers(1, 4), _moments), max_size=8)
_histories = st.builds(
    lambda recs, up, down: History(
        [Recommendation(r, t) for r, t in recs],
        [ScaleEvent(c, t) for c, t in up],
        [ScaleEvent(c, t) for c, t in down],
    ),
    _entries,
    _entries,
    _entries,
)
_retentions = st.builds(
    Retention,
    st.sampled_from([timedelta(0), timedelta(minutes=5)]),
    st.sampled_from([timedelta(0), timedelta(seconds=60)]),
    st.sampled_from([timedelta(seconds=15), timedelta(minutes=10)]),
)


@given(_histories, _histories, _retentions, _retentions, st.sampled_from([0, 15, 300]))
def test_equal_keys_mean_the_same_stored_document(
    first: History, second: History, r1: Retention, r2: Retention, later: int
) -> None:
    one = history_key(first, now=NOW, retention=r1)
    two = history_key(second, now=at(later), retention=r2)
    if one == two:
        old = json.loads(json.dumps(encode_history(first, now=NOW, retention=r1)))
        assert _same_history(old, encode_history(second, now=at(later), retention=r2))


def _decision(now: datetime, history: History | None, cpu: int, hpa: Any = None) -> Any:
    hpa = hpa or make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50)])
    pods = [make_pod(f"web-{i}", now=now, requests={"cpu": "100m"}) for i in range(2)]
    source = StaticMetricsSource(
        timestamp=now, resources={"cpu": {f"web-{i}": {"c": cpu} for i in range(2)}}
    )
    return decide(hpa, scale=make_scale(2), pods=pods, metrics=source, history=history, now=now)


@given(st.lists(st.sampled_from([10, 50, 90, 200]), min_size=1, max_size=40))
def test_kept_path_stores_what_the_general_path_stores(loads: list[int]) -> None:
    # One history, synced every 15 s: the kept path's changes equal the general path's
    # at every sync, each against the documents its own path stored.
    stored_general: dict[str, Any] = {}
    stored_kept: dict[str, Any] = {}
    remembered: Any = None
    history: History | None = None
    for step, cpu in enumerate(loads):
        now = at(15 * step)
        decision = _decision(now, history, cpu)
        history = decision.history
        spec = make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50)])["spec"]
        general = state_changes(
            stored_general, decision, history, spec=spec, now=now, config=CONFIG
        )
        key = history_key(history, now=now, retention=retention_for(spec, CONFIG))
        kept = state_changes(
            stored_kept, decision, history, spec=spec, now=now, config=CONFIG,
            history_unchanged=key == remembered,
        )  # fmt: skip
        assert kept == general
        stored_general.update(json.loads(json.dumps(general)))
        stored_kept.update(json.loads(json.dumps(kept)))
        remembered = key


class _FailingOnce(MemoryHistory):
    """A state store whose next ``put_state`` of the last decision fails when ``fail`` is
    set (the history, written first, goes through: what the keeper holds must not)."""

    fail = False

    def put_state(self, uid: str, name: str, document: Any) -> None:
        if self.fail and name == LAST_DECISION_STATE:
            self.fail = False
            raise OSError("disk full")
        super().put_state(uid, name, document)


def _sync_all(event: str, *, forget_keys: bool) -> MemoryHistory:
    """The documents a keeper stores over a run of syncs with ``event`` at the sixth;
    ``forget_keys``: its kept keys cleared after every store (the general path)."""
    store = _FailingOnce()
    keeper = StateKeeper(None, store, CONFIG, HPA)  # type: ignore[arg-type]
    uid = "uid-1"
    # A steady load keeps the key across a reload (so the reload must drop it). A spike
    # makes the sixth sync write both documents, the second failing: the history stored
    # is the spike's, so the key from before it must not be kept.
    steady = event in ("restart", "recreated", "forgotten")
    for step, cpu in enumerate([50] * 5 + [50 if steady else 90] + [50] * 30):
        now = at(15 * step)
        if step == 5:
            if event == "restart":  # a new controller: reads the stored documents back
                keeper = StateKeeper(None, store, CONFIG, HPA)  # type: ignore[arg-type]
            elif event == "recreated":  # same name, new uid: loaded afresh
                uid = "uid-2"
            elif event == "forgotten":
                keeper.forget("default/web")
            elif event.startswith("failed-write"):
                store.fail = True
        hpa = make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50)])
        hpa["metadata"]["uid"] = uid
        if step >= 5 and event == "spec-window":
            hpa["spec"]["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": 30}}
        if step >= 6 and event == "failed-write-no-window":
            # Only the latest recommendation kept, the spike's scale event out of its
            # period: the key is the one before the spike again, the stored history not.
            no_window = {"stabilizationWindowSeconds": 0}
            hpa["spec"]["behavior"] = {"scaleUp": no_window, "scaleDown": no_window}
        hpa = asyncio.run(keeper.load("default/web", hpa, now))
        decision = _decision(now, keeper.histories.get("default/web"), cpu, hpa)
        keeper.histories["default/web"] = decision.history
        keeper.store(hpa, decision, decision.history, now)
        if forget_keys:
            keeper._stored_histories.clear()
    return store


@pytest.mark.parametrize(
    "event",
    [
        "none",
        "spec-window",
        "restart",
        "recreated",
        "forgotten",
        "failed-write",
        "failed-write-no-window",
    ],
)
def test_state_keeper_stores_what_the_general_path_stores(event: str) -> None:
    kept = _sync_all(event, forget_keys=False)
    general = _sync_all(event, forget_keys=True)
    for uid in ("uid-1", "uid-2"):
        assert kept.state_of(uid) == general.state_of(uid)
    assert HISTORY_STATE in kept.state_of("uid-1")
