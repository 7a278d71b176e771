"""``podscale up --cronhpa-timezone`` and the local zone it defaults to; the CronHPA CRD
``podscale up`` installs by default (``--no-install-crd``), idempotently on a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from podscale.api.kinds import kind_for
from podscale.apiserver.state import ServerState
from podscale.cli.main import cli
from podscale.cli.up_flags import cronhpa_zone
from podscale.client.inprocess import InProcessApi
from podscale.controllers.cronhpa.kind import CRD_NAME as CRONHPA_CRD
from podscale.controllers.registry import select_controllers
from podscale.controllers.shipped_crds import crds_to_install
from podscale.plane.workloads import install_shipped_crds, local_zone
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore


def test_an_unknown_zone_is_refused_before_anything_starts(tmp_path: Path) -> None:
    args = ["up", "--data-dir", str(tmp_path / "d"), "--cronhpa-timezone", "Mars/Base"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert 'unknown time zone "Mars/Base"' in result.output
    assert not (tmp_path / "d").exists()


def test_the_flag_is_popped_from_the_command_arguments() -> None:
    values = {"cronhpa_timezone": "Asia/Tokyo", "other": 1}
    assert cronhpa_zone(values) == "Asia/Tokyo"
    assert values == {"other": 1}
    assert cronhpa_zone({}) is None


@pytest.mark.parametrize(
    ("tz", "expected"),
    [("Asia/Tokyo", "Asia/Tokyo"), (":Europe/Berlin", "Europe/Berlin")],
    ids=["tz-name", "tz-with-colon"],
)
def test_the_local_zone_follows_tz(monkeypatch: pytest.MonkeyPatch, tz: str, expected: str) -> None:
    monkeypatch.setenv("TZ", tz)
    assert local_zone() == ZoneInfo(expected)


def test_without_tz_the_local_zone_is_a_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TZ", raising=False)
    assert isinstance(local_zone(), ZoneInfo)


def test_the_controller_is_on_by_default_and_can_be_disabled() -> None:
    assert "cronhpa-controller" in select_controllers("*")
    assert "cronhpa-controller" not in select_controllers("*,-cronhpa")


WEBAPP_CRD = "webapps.examples.podscale.dev"
# Every controller but the EHPA's, the PHPA's, KEDA's and Kapacity's, whose CRDs come with
# them (the last cases).
EVERYTHING = select_controllers("*,-ehpa,-predictivehorizontalpodautoscaling,-keda,-ihpa")
PHPA_CRD = "predictivehorizontalpodautoscalers.autoscaling.podscale.dev"
KEDA_CRD = "scaledobjects.keda.sh"
KAPACITY_CRDS = (
    "intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io",
    "replicaprofiles.autoscaling.kapacitystack.io",
)
EHPA_CRDS = (
    "effectivehorizontalpodautoscalers.autoscaling.crane.io",
    "substitutes.autoscaling.crane.io",
)


@pytest.mark.parametrize(
    ("requested", "skipped", "controllers", "expected"),
    [
        ((), (), EVERYTHING, (CRONHPA_CRD,)),
        (
            (),
            (),
            select_controllers("*,-cronhpa,-ehpa,-predictivehorizontalpodautoscaling,-keda,-ihpa"),
            (),
        ),
        ((), (), select_controllers(""), ()),
        ((), (CRONHPA_CRD,), EVERYTHING, ()),
        ((WEBAPP_CRD,), (), EVERYTHING, (WEBAPP_CRD, CRONHPA_CRD)),
        ((CRONHPA_CRD,), (), select_controllers(""), (CRONHPA_CRD,)),
        ((CRONHPA_CRD, WEBAPP_CRD), (), EVERYTHING, (CRONHPA_CRD, WEBAPP_CRD)),
        (
            (),
            (),
            select_controllers("*,-predictivehorizontalpodautoscaling,-keda,-ihpa"),
            (CRONHPA_CRD, *EHPA_CRDS),
        ),
        ((), (), select_controllers("*,-keda,-ihpa"), (CRONHPA_CRD, *EHPA_CRDS, PHPA_CRD)),
        (
            (),
            (),
            select_controllers("*,-ihpa"),
            (CRONHPA_CRD, *EHPA_CRDS, PHPA_CRD, KEDA_CRD),
        ),
        (
            (),
            (),
            select_controllers("*"),
            (CRONHPA_CRD, *EHPA_CRDS, PHPA_CRD, KEDA_CRD, *KAPACITY_CRDS),
        ),
    ],
    ids=[
        "default-with-its-controller",
        "controller-disabled",
        "no-controllers",
        "opted-out",
        "requested-and-default",
        "requested-without-controller",
        "each-once",
        "ehpa-with-its-controller",
        "phpa-with-its-controller",
        "keda-with-its-operator",
        "kapacity-with-its-controller",
    ],
)
def test_which_shipped_crds_podscale_up_installs(
    requested: tuple[str, ...],
    skipped: tuple[str, ...],
    controllers: frozenset[str],
    expected: tuple[str, ...],
) -> None:
    assert crds_to_install(requested, skipped, controllers) == expected


def test_installing_and_skipping_one_crd_is_refused(tmp_path: Path) -> None:
    args = ["up", "--data-dir", str(tmp_path / "d")]
    args += ["--install-crd", CRONHPA_CRD, "--no-install-crd", CRONHPA_CRD]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert f"--install-crd and --no-install-crd both name {CRONHPA_CRD}" in result.output
    assert not (tmp_path / "d").exists()


def test_only_a_crd_installed_by_default_can_be_skipped(tmp_path: Path) -> None:
    args = ["up", "--data-dir", str(tmp_path / "d"), "--no-install-crd", WEBAPP_CRD]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert not (tmp_path / "d").exists()


def test_a_restart_leaves_the_installed_crd_as_it_finds_it() -> None:
    clock = SystemClock()
    api = InProcessApi(ServerState(store=MemoryStore(clock), clock=clock))
    crd_kind = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")

    async def scenario() -> dict[str, Any]:
        await install_shipped_crds(api, [CRONHPA_CRD])
        installed = await api.get(crd_kind, None, CRONHPA_CRD)
        installed["metadata"]["labels"] = {"edited": "by-hand"}
        await api.update(crd_kind, None, installed)
        await install_shipped_crds(api, [CRONHPA_CRD])  # the restart: no error, no change
        return await api.get(crd_kind, None, CRONHPA_CRD)

    after = asyncio.run(scenario())
    assert after["metadata"]["labels"] == {"edited": "by-hand"}
