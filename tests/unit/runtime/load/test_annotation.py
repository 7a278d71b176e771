"""The load annotation's value: parsed into the load model, or refused with every problem."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.runtime.load import ConstantRate, ContainerCost, TraceRate
from podscale.runtime.load.annotation import (
    LOAD_ANNOTATION,
    LoadSpecError,
    check_containers,
    format_load_annotation,
    load_summary,
    parse_load_annotation,
    parse_load_spec,
)

TRACE = Path(__file__).resolve().parents[4] / "examples" / "traces"


def a_trace() -> Path:
    return sorted(p for p in TRACE.iterdir() if p.suffix == ".csv")[0]


def test_the_key_is_versioned_like_a_scenario() -> None:
    assert LOAD_ANNOTATION == "load.podscale.dev/v1alpha1"


@pytest.mark.parametrize(
    ("text", "rate_at_10m"),
    [
        ('{"load":{"type":"constant","rate":50}}', 50.0),
        ("load: {type: constant, rate: 7.5}", 7.5),
        ("load: {type: step, steps: [{at: 0s, rate: 10}, {at: 5m, rate: 80}]}", 80.0),
        ("load: {type: ramp, from: 0, to: 100, over: 20m}", 50.0),
        ("load: {type: sine, base: 10, amplitude: 10, period: 40m}", 20.0),
    ],
    ids=["json-constant", "yaml-constant", "step", "ramp", "sine"],
)
def test_each_load_type_reads_as_in_a_scenario(text: str, rate_at_10m: float) -> None:
    declared = parse_load_annotation(text)
    assert declared.rate.rate_at(timedelta(minutes=10)) == pytest.approx(rate_at_10m)


def test_costs_and_noise_read_into_the_profile() -> None:
    declared = parse_load_annotation(
        "load: {type: constant, rate: 1}\n"
        "containers: [{name: web, baseline: {cpu: 2m}, perRequest: {cpu: 20m, memory: 1Ki}}]\n"
        "noise: {stddev: 0}\n"
    )
    assert declared.profile.costs == {"web": ContainerCost(2.0, 0.0, 20.0, 1024.0)}
    assert declared.profile.noise_stddev == 0.0
    assert parse_load_annotation("load: {type: constant, rate: 1}").profile.noise_stddev == 0.05


def test_an_absolute_trace_path_is_read() -> None:
    path = a_trace()
    declared = parse_load_annotation(f'{{"load":{{"type":"trace","path":"{path}","loop":true}}}}')
    assert isinstance(declared.rate, TraceRate)


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("[1", ["not JSON or YAML: line 1, column 3: expected ',' or ']', but got '<stream end>'"]),
        ("", ['must be an object with a "load" field, not null']),
        ("50", ['must be an object with a "load" field, not int']),
        ("{}", ["load: Required value"]),
        (
            "{load: {type: burst}}",
            [
                'load.type: Unsupported value: "burst": supported values: '
                '"constant", "ramp", "sine", "step", "trace"'
            ],
        ),
        (
            "{load: {type: constant, rate: -1}, extra: 1}",
            [
                'unknown field "extra"',
                "load.rate: Invalid value: -1: must be greater than or equal to 0",
            ],
        ),
        (
            "{load: {type: step, steps: [{at: 5m, rate: 1}, {at: 1m, rate: 2}]}}",
            ['load.steps[1].at: Invalid value: "1m": must be later than steps[0].at'],
        ),
        (
            "{load: {type: trace, path: traces/web.csv}}",
            ['load.path: Invalid value: "traces/web.csv": must be an absolute path'],
        ),
        (
            "{load: {type: trace, path: /no/such/trace.csv}}",
            ['load.path: Not found: "/no/such/trace.csv"'],
        ),
        (
            "{load: {type: constant, rate: 1}, containers: [{name: a}, {name: a}]}",
            ['containers[1].name: Duplicate value: "a"'],
        ),
        (
            "{load: {type: constant, rate: 1}, containers: [{name: a, perRequest: {cpu: lots}}]}",
            [
                'containers[0].perRequest.cpu: Invalid value: "lots": quantities must match the '
                "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            ],
        ),
    ],
    ids=[
        "not-yaml",
        "empty",
        "not-an-object",
        "no-load",
        "unknown-type",
        "unknown-field-and-negative-rate",
        "steps-out-of-order",
        "relative-trace",
        "missing-trace",
        "duplicate-container",
        "bad-quantity",
    ],
)
def test_bad_values_are_refused_with_every_problem(text: str, problems: list[str]) -> None:
    with pytest.raises(LoadSpecError) as caught:
        parse_load_annotation(text)
    assert list(caught.value.problems) == problems
    assert str(caught.value).startswith(f'invalid load annotation "{LOAD_ANNOTATION}": [')


def test_a_malformed_trace_file_is_refused_when_read(tmp_path: Path) -> None:
    trace = tmp_path / "rates.csv"
    trace.write_text("minute,requests\n0,ten\n", encoding="utf-8")
    with pytest.raises(LoadSpecError) as caught:
        parse_load_annotation(f'{{"load":{{"type":"trace","path":"{trace}"}}}}')
    assert caught.value.problems == (f"load.path: {trace}:2: requests 'ten' is not a number",)


def test_a_value_beyond_the_annotation_size_limit_is_refused() -> None:
    with pytest.raises(LoadSpecError, match="at most 262144 bytes"):
        parse_load_annotation("#" * (256 * 1024 + 1))


def test_costed_containers_must_be_in_the_pod_template() -> None:
    workload: dict[str, Any] = {
        "spec": {
            "template": {
                "spec": {
                    "initContainers": [{"name": "proxy", "restartPolicy": "Always"}],
                    "containers": [{"name": "web"}],
                }
            }
        }
    }
    good = parse_load_spec(
        {
            "load": {"type": "constant", "rate": 1},
            "containers": [{"name": "web"}, {"name": "proxy"}],
        }
    )
    check_containers(good, workload)
    bad = parse_load_spec(
        {"load": {"type": "constant", "rate": 1}, "containers": [{"name": "wbe"}]}
    )
    with pytest.raises(LoadSpecError) as caught:
        check_containers(bad, workload)
    assert caught.value.problems == ('containers[0].name: Not found: "wbe"',)


@pytest.mark.parametrize(
    ("spec", "summary"),
    [
        (
            {
                "load": {"type": "constant", "rate": 50},
                "containers": [{"name": "web", "perRequest": {"cpu": "20m"}}],
            },
            "constant 50 requests/s; per request/s: web 20m cpu",
        ),
        (
            {
                "load": {
                    "type": "step",
                    "steps": [{"at": "0s", "rate": 1}, {"at": "5m", "rate": 9}],
                },
                "containers": [{"name": "web", "baseline": {"memory": "10Mi"}}],
            },
            "steps of 1 from 0s, 9 from 5m requests/s; baseline: web 10Mi memory",
        ),
        (
            {"load": {"type": "ramp", "from": 1, "to": 5, "over": "10m", "start": "1m"}},
            "ramp 1 to 5 requests/s over 10m starting at 1m; "
            "no container costs: the pods serve requests but use no more CPU",
        ),
        (
            {"load": {"type": "sine", "base": 10, "amplitude": 5, "period": "1h"}},
            "sine 10 ± 5 requests/s, period 1h; "
            "no container costs: the pods serve requests but use no more CPU",
        ),
        (
            {"load": {"type": "trace", "path": "/t.csv", "timeScale": 60, "loop": True}},
            "trace /t.csv (timeScale 60, loop True); "
            "no container costs: the pods serve requests but use no more CPU",
        ),
    ],
    ids=["constant", "step", "ramp", "sine", "trace"],
)
def test_the_summary_says_what_the_load_does(spec: dict[str, Any], summary: str) -> None:
    assert load_summary(spec) == summary


def test_the_written_value_is_compact_json_that_reads_back() -> None:
    spec = {"load": {"type": "constant", "rate": 5}, "containers": [{"name": "web"}]}
    text = format_load_annotation(spec)
    assert text == '{"containers":[{"name":"web"}],"load":{"rate":5,"type":"constant"}}'
    declared = parse_load_annotation(text)
    assert declared.spec == spec
    assert declared.rate == ConstantRate(5.0)
