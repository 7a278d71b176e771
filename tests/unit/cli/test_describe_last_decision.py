"""``podscale describe hpa``: kubectl's Annotations block and podscale's sections of the
HPA's stored state (Last decision, Stored history), read from the API server's history path.

The annotation layouts were observed with kubectl 1.32 against a podscale server (long
values below their key, lines cut to fit 140 bytes); where kubectl is installed,
``test_same_output_as_kubectl_up_to_the_last_decision`` repeats the comparison live for an
HPA carrying long annotations and with documents in the server's history store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.cli.describe_annotations import (
    describe_last_decision,
    describe_stored_history,
    write_annotations,
)
from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_text import SKIPPED_ANNOTATIONS, DescribeWriter
from podscale.cli.main import cli
from podscale.controllers.hpa.history_store import HISTORY_STATE
from podscale.history import MemoryHistory
from podscale.hpa import StaticMetricsSource, decide, render_trace, trace_to_dict
from podscale.hpa.trace import LAST_DECISION_STATE, DecisionTrace
from podscale.plane.files import write_kubeconfig
from podscale.store.memory import MemoryStore
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
NOW = datetime(2026, 1, 1, 0, 5, tzinfo=UTC)
KUBECTL = shutil.which("kubectl")


def a_trace() -> DecisionTrace:
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(2)]
    source = StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": 160} for i in range(2)}}
    )
    hpa = make_hpa(metrics=[cpu_metric(50)], max_replicas=5)
    return decide(hpa, scale=make_scale(2), pods=pods, metrics=source, history=None, now=NOW).trace


HISTORY: JSON = {
    "recommendations": [
        {"replicas": 2, "time": "2026-01-01T00:04:00.000000Z"},
        {"replicas": 4, "time": "2026-01-01T00:05:00.000000Z"},
    ],
    "scaleUpEvents": [{"change": 2, "time": "2026-01-01T00:05:00.000000Z"}],
    "scaleDownEvents": [],
}


def controller_documents() -> dict[str, JSON]:
    """What the HPA controller stores for an HPA, as the history path serves it."""
    trace = json.loads(json.dumps(trace_to_dict(a_trace())))
    return {LAST_DECISION_STATE: trace, HISTORY_STATE: HISTORY}


LONG_ANNOTATIONS = {"note": "a\nb", "team": "a", "description": "words " * 40}


def annotated_hpa(annotations: dict[str, str]) -> JSON:
    hpa = make_hpa(metrics=[cpu_metric(50)], max_replicas=5)
    hpa["metadata"].update(annotations=annotations, creationTimestamp="2026-01-01T00:00:00Z")
    return hpa


def annotations_block(annotations: Any) -> str:
    out = DescribeWriter()
    write_annotations(out, annotations, SKIPPED_ANNOTATIONS)
    return out.render()


X = "x"
ANNOTATIONS: list[tuple[Any, str]] = [
    (None, "Annotations:  <none>\n"),
    ({}, "Annotations:  <none>\n"),
    ({"kubectl.kubernetes.io/last-applied-configuration": "{}"}, "Annotations:  <none>\n"),
    ({"b": "2", "a": "1"}, "Annotations:  a: 1\n              b: 2\n"),
    # key + ": " + value = 140 bytes stays on the key's line; 141 goes below it.
    ({"k134": X * 134}, f"Annotations:  k134: {X * 134}\n"),
    ({"k135": X * 135}, f"Annotations:  k135:\n                {X * 135}\n"),
    # Below the key a line keeps 138 bytes (the indentation counts), then "...".
    ({"k": X * 138}, f"Annotations:  k:\n                {X * 138}\n"),
    ({"k": X * 139}, f"Annotations:  k:\n                {X * 138}...\n"),
    ({"m": "a\nb\n"}, "Annotations:  m:\n                a\n                b\n"),
    ({"é": "é" * 70}, "Annotations:  é:\n                " + "é" * 69 + "...\n"),
]


@pytest.mark.parametrize(
    ("annotations", "expected"),
    ANNOTATIONS,
    ids=[
        "absent",
        "empty",
        "only-skipped",
        "sorted",
        "inline-at-140",
        "below-over-140",
        "line-of-138",
        "line-cut",
        "multi-line",
        "bytes-not-characters",
    ],
)
def test_annotations_block_like_kubectl(annotations: Any, expected: str) -> None:
    assert annotations_block(annotations) == expected


def test_describe_ends_with_the_rendered_last_decision_and_history() -> None:
    text = describe_hpa(annotated_hpa({"team": "a"}), [], NOW, controller_documents())
    kubectl_part, rest = text.split("Last decision:\n")
    assert kubectl_part.endswith("\nEvents:" + " " * 48 + "<none>\n")
    assert "\nAnnotations:" in kubectl_part
    assert "team: a\n" in kubectl_part
    section, history = rest.split("Stored history:\n")
    assert section == "".join(f"  {line}\n" for line in render_trace(a_trace()).split("\n"))
    assert section.startswith("  HPA default/web at 2026-01-01T00:05:00Z: scale 2 -> 4\n")
    assert "    current 160 vs target 50 (Utilization): ratio 3.200" in section
    assert history == (
        "  Recommendations:    2 at 2026-01-01T00:04:00.000000Z, "
        "4 at 2026-01-01T00:05:00.000000Z\n"
        "  Scale up events:    +2 at 2026-01-01T00:05:00.000000Z\n"
        "  Scale down events:  <none>\n"
    )


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (None, ""),
        ([], ""),
        ({}, "Stored history:\n  Recommendations:    <none>\n"),
        (
            {"recommendations": "x", "scaleDownEvents": [{"change": 1, "time": "t"}, 3]},
            "Stored history:\n  Recommendations:    <none>\n  Scale up events:    <none>\n"
            "  Scale down events:  -1 at t\n",
        ),
    ],
    ids=["absent", "not-a-mapping", "empty", "malformed-entries-skipped"],
)
def test_stored_history_section(document: Any, expected: str) -> None:
    assert describe_stored_history(document).startswith(expected)


def test_describe_without_stored_documents_has_no_section() -> None:
    text = describe_hpa(annotated_hpa({"team": "a"}), [], NOW)
    assert "Last decision" not in text
    assert "Stored history" not in text
    assert text.endswith("Events:                                                <none>\n")


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (None, ""),
        ([1, 2], "Last decision:  <unreadable: not a decision trace: a list, not an object>"),
        ({"hpa": "default/web"}, "Last decision:  <unreadable: not a decision trace: missing"),
    ],
    ids=["absent", "not-an-object", "incomplete"],
)
def test_an_unusable_stored_trace_is_reported_not_fatal(stored: Any, expected: str) -> None:
    section = describe_last_decision(stored)
    assert section.startswith(expected)
    assert section.endswith("\n") or section == ""


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_same_output_as_kubectl_up_to_the_last_decision(tmp_path: Path) -> None:
    clock = FakeClock()
    app = create_app(MemoryStore(clock), clock=clock)
    history = MemoryHistory()
    app.state.podscale.history = history
    server = start_in_thread(app)
    try:
        kubeconfig = tmp_path / "config"
        write_kubeconfig(kubeconfig, server=server.url, token=None)
        manifest = tmp_path / "hpa.json"
        hpa = annotated_hpa(LONG_ANNOTATIONS)
        del hpa["metadata"]["creationTimestamp"]
        manifest.write_text(json.dumps(hpa))
        env = {**os.environ, "HOME": str(tmp_path)}

        def kubectl(*args: str) -> str:
            assert KUBECTL is not None
            done = subprocess.run(
                [KUBECTL, "--kubeconfig", str(kubeconfig), *args],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
                check=True,
            )
            return done.stdout

        kubectl("create", "-f", str(manifest))
        uid = kubectl("get", "hpa", "web", "-o", "jsonpath={.metadata.uid}")
        for name, document in controller_documents().items():
            history.put_state(uid, name, document)
        real = kubectl("describe", "hpa", "web")
        ours = CliRunner().invoke(cli, ["describe", "hpa", "web", "--kubeconfig", str(kubeconfig)])
    finally:
        server.stop()
    assert ours.exit_code == 0, ours.output
    kubectl_part, marker, section = ours.stdout.partition("Last decision:\n")
    assert (kubectl_part, marker) == (real, "Last decision:\n")
    assert section.startswith("  HPA default/web at 2026-01-01T00:05:00Z: scale 2 -> 4\n")
    assert "Stored history:\n  Recommendations:    2 at " in section
