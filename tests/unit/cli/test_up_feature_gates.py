"""``podscale up --feature-gates``: parsed as kube-apiserver's flag, carried in ``UpOptions``,
and shared by the API server's validation and the HPA controller the plane runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.api.kinds import kind_for
from podscale.cli import up_command
from podscale.cli.main import cli
from podscale.client.http import ApiError
from podscale.plane.files import ControlPlaneError
from podscale.plane.options import UpOptions
from podscale.plane.serve import assemble_control_plane

HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
ZERO_MIN_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "worker", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"},
        "minReplicas": 0,
        "maxReplicas": 5,
        "metrics": [
            {
                "type": "External",
                "external": {
                    "metric": {"name": "queue_messages_ready"},
                    "target": {"type": "Value", "value": "10"},
                },
            }
        ],
    },
}


def _options_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str]
) -> tuple[Any, list[UpOptions]]:
    seen: list[UpOptions] = []

    def assemble(options: UpOptions) -> Any:
        seen.append(options)
        raise ControlPlaneError("stop here")

    monkeypatch.setattr(up_command, "assemble_control_plane", assemble)
    result = CliRunner().invoke(cli, ["up", "--data-dir", str(tmp_path), *args])
    return result, seen


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], DEFAULT_FEATURE_GATES),
        (["--feature-gates", "HPAScaleToZero=true"], DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}),
        (
            ["--feature-gates", "HPAScaleToZero=true,HPAConfigurableTolerance=false"],
            (DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}) - {"HPAConfigurableTolerance"},
        ),
    ],
    ids=["alpha-gate-off-by-default", "gate-turned-on", "two-gates"],
)
def test_the_gates_reach_the_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], expected: frozenset[str]
) -> None:
    result, seen = _options_for(monkeypatch, tmp_path, args)
    assert "stop here" in result.output
    assert seen[0].feature_gates == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NoSuchGate=true", "unrecognized feature gate: NoSuchGate"),
        ("HPAScaleToZero=yes", "invalid value of HPAScaleToZero=yes, err: invalid syntax"),
        ("HPAScaleToZero", "missing bool value for HPAScaleToZero"),
    ],
    ids=["unknown-gate", "not-a-bool", "no-value"],
)
def test_a_bad_flag_is_refused_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str, message: str
) -> None:
    result, seen = _options_for(monkeypatch, tmp_path, ["--feature-gates", value])
    assert result.exit_code == 2
    assert message in result.output
    assert seen == []


@pytest.mark.parametrize(
    ("gates", "refusal"),
    [
        (
            DEFAULT_FEATURE_GATES,
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        ),
        (DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}, None),
    ],
    ids=["min-replicas-lower-bound-1-without-gate", "min-replicas-0-with-gate"],
)
def test_the_api_server_validates_with_the_gates(
    tmp_path: Path, gates: frozenset[str], refusal: str | None
) -> None:
    plane = assemble_control_plane(UpOptions(data_dir=tmp_path, auth=False, feature_gates=gates))
    try:
        assert plane.api is not None
        api = plane.api
        assert api.state.feature_gates == gates

        async def create() -> None:
            await api.create(HPA, "default", ZERO_MIN_HPA)

        if refusal is None:
            asyncio.run(create())
        else:
            with pytest.raises(ApiError) as err:
                asyncio.run(create())
            assert err.value.status == 422
            assert refusal in str(err.value)
    finally:
        plane.store.close()
