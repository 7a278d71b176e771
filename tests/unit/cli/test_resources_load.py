"""``podscale load``'s flags as a load spec, and ``podscale describe``'s ``Load:`` line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from podscale.cli.describe_workload import describe_workload
from podscale.cli.resources_core import CommandError
from podscale.cli.resources_load import LoadFlags, spec_from_flags
from podscale.runtime.load.annotation import LOAD_ANNOTATION, parse_load_spec

CONTAINERS = ["web", "proxy"]


@pytest.mark.parametrize(
    ("flags", "spec"),
    [
        (
            LoadFlags(rate=50, cpu_per_request="20m"),
            {
                "load": {"type": "constant", "rate": 50},
                "containers": [{"name": "web", "perRequest": {"cpu": "20m"}}],
            },
        ),
        (
            LoadFlags(steps=("0s=10", "5m=80"), memory_per_request="1Mi", container="proxy"),
            {
                "load": {
                    "type": "step",
                    "steps": [{"at": "0s", "rate": 10}, {"at": "5m", "rate": 80}],
                },
                "containers": [{"name": "proxy", "perRequest": {"memory": "1Mi"}}],
            },
        ),
        (
            LoadFlags(ramp="10,80,5m", noise=0),
            {"load": {"type": "ramp", "from": 10, "to": 80, "over": "5m"}, "noise": {"stddev": 0}},
        ),
        (
            LoadFlags(sine="50,30,10m"),
            {"load": {"type": "sine", "base": 50, "amplitude": 30, "period": "10m"}},
        ),
        (
            LoadFlags(trace="rates.csv", time_scale=60, loop=True),
            {
                "load": {
                    "type": "trace",
                    "path": str(Path("rates.csv").resolve()),
                    "timeScale": 60,
                    "loop": True,
                }
            },
        ),
        (LoadFlags(off=True), None),
    ],
    ids=["rate", "steps-other-container", "ramp-no-noise", "sine", "trace-absolute", "off"],
)
def test_flags_become_a_load_spec(flags: LoadFlags, spec: dict[str, Any] | None) -> None:
    assert spec_from_flags(flags, CONTAINERS) == spec


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (LoadFlags(), "give exactly one of --rate"),
        (LoadFlags(rate=1, off=True), "give exactly one of --rate"),
        (LoadFlags(steps=("5m",)), "expected AT=RATE"),
        (LoadFlags(steps=("5x=1",)), "--step: time: unknown unit"),
        (LoadFlags(steps=("5m=lots",)), "--step: 'lots' is not a number"),
        (LoadFlags(ramp="1,2"), "expected FROM,TO,OVER"),
        (LoadFlags(sine="1,2,3,4"), "expected BASE,AMPLITUDE,PERIOD"),
    ],
    ids=["none", "two", "step-no-rate", "step-bad-duration", "step-bad-rate", "ramp", "sine"],
)
def test_bad_flags_are_refused(flags: LoadFlags, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        spec_from_flags(flags, CONTAINERS)


def test_a_spec_file_is_used_as_written(tmp_path: Path) -> None:
    path = tmp_path / "load.yaml"
    path.write_text("load: {type: constant, rate: 3}\nnoise: {stddev: 0}\n", encoding="utf-8")
    spec = spec_from_flags(LoadFlags(spec_file=str(path)), CONTAINERS)
    assert spec == {"load": {"type": "constant", "rate": 3}, "noise": {"stddev": 0}}
    assert parse_load_spec(spec).rate.rate_at(datetime.now(UTC) - datetime.now(UTC)) == 3
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(CommandError, match='must be an object with a "load" field'):
        spec_from_flags(LoadFlags(spec_file=str(path)), CONTAINERS)


def deployment(annotation: str | None) -> dict[str, Any]:
    annotations = {} if annotation is None else {LOAD_ANNOTATION: annotation}
    return {
        "metadata": {"name": "web", "namespace": "default", "annotations": annotations},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {}}},
        "status": {},
    }


@pytest.mark.parametrize(
    ("annotation", "line"),
    [
        (
            '{"load":{"type":"constant","rate":5},"containers":[{"name":"web","perRequest":{"cpu":"20m"}}]}',
            "Load: constant 5 requests/s; per request/s: web 20m cpu",
        ),
        (
            '{"load":{"type":"constant","rate":-5}}',
            "Load: <invalid: load.rate: Invalid value: -5: must be greater than or equal to 0>",
        ),
        (None, None),
    ],
    ids=["valid", "invalid", "none"],
)
def test_describe_shows_the_declared_load(annotation: str | None, line: str | None) -> None:
    now = datetime(2026, 3, 1, tzinfo=UTC)
    text = describe_workload("Deployment", deployment(annotation), [], [], now)
    loads = [" ".join(row.split()) for row in text.splitlines() if row.startswith("Load:")]
    assert loads == ([] if line is None else [line])
