"""``podscale describe hpa``: the ``Replicas writes:`` section, from the HPA controller's
``hpa/replicas-writes`` state document."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_replicas_writes import describe_replicas_writes
from podscale.hpa.contest import REPLICAS_WRITES_STATE, ContestState, ReplicasWrite, contest_to_dict
from podscale.testing import cpu_metric, make_hpa

NOW = datetime(2026, 3, 1, 10, 5, tzinfo=UTC)
ARGO = ReplicasWrite("argocd-controller", "Update", "", "2026-03-01T10:01:00Z", 1, 5)
CRON = ReplicasWrite("cronhpa", "Update", "scale", "2026-03-01T10:02:00Z", 7, 5, False)
UNKNOWN = ReplicasWrite("", "", "", "2026-03-01T10:03:00Z", 2, 7)


def document(*writes: ReplicasWrite) -> dict[str, Any]:
    state = ContestState(expected=5, hpa_replicas=5, hpa_time="2026-03-01T10:00:30Z")
    return contest_to_dict(state._replace(writes=writes))


@pytest.mark.parametrize(
    ("stored", "rows"),
    [
        (None, None),
        (document(), None),
        ("junk", None),
        (
            document(ARGO, CRON, UNKNOWN),
            [
                ["argocd-controller", "Update", "object", ARGO.time, "1", "5", "contested"],
                ["cronhpa", "Update", "/scale", CRON.time, "7", "5", "accepted"],
                ["<unknown>", "<unknown>", "object", UNKNOWN.time, "2", "7", "contested"],
            ],
        ),
    ],
    ids=["no-document", "no-writes", "unreadable", "one-row-per-write-oldest-first"],
)
def test_the_section(stored: Any, rows: list[list[str]] | None) -> None:
    text = describe_replicas_writes(stored)
    if rows is None:
        assert text == ""
        return
    lines = text.splitlines()
    assert lines[0] == "Replicas writes:"
    assert lines[1].split() == ["Autoscaler's", "last", "write:", "5", "at", "2026-03-01T10:00:30Z"]
    assert lines[2].split() == [
        "Manager",
        "Operation",
        "Via",
        "Time",
        "Replicas",
        "Replaced",
        "Verdict",
    ]
    assert [line.split() for line in lines[4:]] == rows


def test_it_follows_the_kubectl_part_and_only_when_someone_wrote() -> None:
    hpa = make_hpa(metrics=[cpu_metric(50)])
    hpa["metadata"]["creationTimestamp"] = "2026-03-01T09:00:00Z"
    plain = describe_hpa(hpa, [], NOW, {})
    assert describe_hpa(hpa, [], NOW, {REPLICAS_WRITES_STATE: document()}) == plain
    fought = describe_hpa(hpa, [], NOW, {REPLICAS_WRITES_STATE: document(ARGO)})
    assert fought.startswith(plain)
    assert fought[len(plain) :] == describe_replicas_writes(document(ARGO))
