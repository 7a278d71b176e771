"""KEDA's pause annotations: Go's boolean and int32 parsing, when the scale loop counts as
paused, and the Paused condition the reconcile writes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.pause import (
    Pause,
    go_parse_bool,
    needs_pause,
    read_pause,
    reconcile_paused,
)

P = "autoscaling.keda.sh/"


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, Pause()),
        ({P + "paused": "true"}, Pause(paused=True)),
        ({P + "paused": "True"}, Pause(paused=True)),
        ({P + "paused": "1"}, Pause(paused=True)),
        ({P + "paused": "false"}, Pause()),
        ({P + "paused": "F"}, Pause()),
        ({P + "paused": "yes"}, Pause(paused=True)),
        ({P + "paused": ""}, Pause(paused=True)),
        ({P + "paused-replicas": "3"}, Pause(has_paused_replicas=True, paused_replicas=3)),
        ({P + "paused-replicas": "+0"}, Pause(has_paused_replicas=True, paused_replicas=0)),
        ({P + "paused-replicas": "-1"}, Pause(has_paused_replicas=True, paused_replicas=-1)),
        (
            {P + "paused-replicas": "two"},
            Pause(
                has_paused_replicas=True,
                paused_replicas_error='strconv.ParseInt: parsing "two": invalid syntax',
            ),
        ),
        (
            {P + "paused-replicas": " 3"},
            Pause(
                has_paused_replicas=True,
                paused_replicas_error='strconv.ParseInt: parsing " 3": invalid syntax',
            ),
        ),
        (
            {P + "paused-replicas": "1_000"},
            Pause(
                has_paused_replicas=True,
                paused_replicas_error='strconv.ParseInt: parsing "1_000": invalid syntax',
            ),
        ),
        (
            {P + "paused-replicas": "2147483648"},
            Pause(
                has_paused_replicas=True,
                paused_replicas_error='strconv.ParseInt: parsing "2147483648": value out of range',
            ),
        ),
        ({P + "paused-scale-in": "true"}, Pause(scale_in=True)),
        ({P + "paused-scale-in": "yes"}, Pause()),
        ({P + "paused-scale-out": "t"}, Pause(scale_out=True)),
        ({P + "force-activation": "true"}, Pause(force_activation=True)),
        ({P + "force-activation": "false"}, Pause()),
    ],
    ids=[
        "no-annotations",
        "paused-true",
        "paused-True",
        "paused-1",
        "paused-false-does-not-pause",
        "paused-F-does-not-pause",
        "paused-non-boolean-pauses",
        "paused-empty-pauses",
        "paused-replicas-int",
        "paused-replicas-signed-zero",
        "paused-replicas-negative-parses",
        "paused-replicas-not-an-int",
        "paused-replicas-space-is-go-syntax-error",
        "paused-replicas-underscore-is-go-syntax-error",
        "paused-replicas-out-of-int32",
        "paused-scale-in-true",
        "paused-scale-in-non-boolean-is-off",
        "paused-scale-out-t",
        "force-activation-true",
        "force-activation-false",
    ],
)
def test_read_pause(annotations: dict[str, str], expected: Pause) -> None:
    assert read_pause(annotations) == expected


@pytest.mark.parametrize(
    ("annotations", "status", "expected"),
    [
        ({P + "paused": "true"}, {}, True),
        ({P + "paused": "false"}, {}, False),
        ({P + "paused-replicas": "2"}, {}, False),
        ({P + "paused-replicas": "2"}, {"pausedReplicaCount": 2}, True),
        ({P + "paused": "true", P + "paused-replicas": "2"}, {}, False),
        ({P + "paused-scale-in": "true"}, {}, False),
    ],
    ids=[
        "paused-annotation-pauses",
        "paused-false-runs",
        "paused-replicas-not-yet-scaled-runs-the-loop",
        "paused-replicas-recorded-pauses",
        "paused-replicas-overrides-paused-until-recorded",
        "one-way-pause-keeps-the-loop",
    ],
)
def test_needs_pause(
    annotations: dict[str, str], status: dict[str, object], expected: bool
) -> None:
    assert needs_pause(read_pause(annotations), status) is expected


def _paused_condition(status: dict[str, object]) -> tuple[object, object, object] | None:
    for c in status.get("conditions", []):  # type: ignore[attr-defined]
        if c["type"] == "Paused":
            return c["status"], c.get("reason"), c.get("message")
    return None


@pytest.mark.parametrize(
    ("annotations", "status", "expected", "keeps_count"),
    [
        (
            {P + "paused": "true"},
            {},
            ("True", "ScaledObjectPaused", "ScaledObject is paused"),
            False,
        ),
        (
            {P + "paused-scale-out": "true"},
            {},
            ("True", "ScaledObjectPaused", "ScaledObject is paused"),
            False,
        ),
        (
            {},
            {"conditions": [{"type": "Paused", "status": "True"}]},
            ("False", "ScaledObjectUnpaused", "pause annotation removed for ScaledObject"),
            False,
        ),
        ({}, {"conditions": [{"type": "Paused", "status": "Unknown"}]}, None, False),
        (
            {P + "paused-replicas": "1"},
            {"pausedReplicaCount": 1},
            ("True", "ScaledObjectPaused", "ScaledObject is paused"),
            True,
        ),
        ({}, {"pausedReplicaCount": 1}, None, False),
    ],
    ids=[
        "paused-sets-paused-true",
        "paused-scale-out-sets-paused-true",
        "unpause-sets-paused-false",
        "never-paused-leaves-unknown",
        "paused-replicas-recorded-sets-paused-true",
        "paused-replicas-removed-drops-recorded-count",
    ],
)
def test_reconcile_paused(
    annotations: dict[str, str],
    status: dict[str, object],
    expected: tuple[str, str, str] | None,
    keeps_count: bool,
) -> None:
    out = reconcile_paused(status, read_pause(annotations))
    got = _paused_condition(out)
    if expected is None:
        assert got is None or got[0] == "Unknown"
    else:
        assert got == expected
    assert ("pausedReplicaCount" in out) is keeps_count


@given(st.text(max_size=8))
def test_go_parse_bool_accepts_only_gos_spellings(text: str) -> None:
    spelled = {"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"}
    assert (go_parse_bool(text) is not None) is (text in spelled)


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_paused_replicas_round_trips_every_int32(count: int) -> None:
    assert read_pause({P + "paused-replicas": str(count)}).paused_replicas == count
