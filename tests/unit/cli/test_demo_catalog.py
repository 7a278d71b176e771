"""The scenarios bundled with the package (``podscale.cli.demo_catalog``): each loads and
says what it is, ``podscale demo --list`` shows them, a name or a file selects one, and a
zipped install (resources that are not files) still plays them from a temporary copy."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale.cli import demo_catalog
from podscale.cli.demo_catalog import (
    DEFAULT_SCENARIO,
    bundled_names,
    bundled_scenario,
    bundled_scenarios,
)
from podscale.cli.main import cli
from podscale.scenario.loader import load_scenario

NAMES = ("php-apache-demo", "php-apache-nasa", "php-apache-step")


def test_bundled_names() -> None:
    assert bundled_names() == NAMES
    assert DEFAULT_SCENARIO in NAMES


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
def test_bundled_scenario_loads_and_describes_itself(name: str) -> None:
    with bundled_scenario(name) as path:
        scenario = load_scenario(path)
    assert scenario.name == name
    description = {s.name: s.description for s in bundled_scenarios()}[name]
    assert description
    assert "\n" not in description
    assert scenario.annotations[demo_catalog.DESCRIPTION_ANNOTATION] == description


def test_unknown_name_raises_at_once() -> None:
    with pytest.raises(KeyError):
        bundled_scenario("nope")


def test_demo_list_shows_names_and_descriptions() -> None:
    result = CliRunner().invoke(cli, ["demo", "--list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == list(NAMES)
    for line, scenario in zip(lines, bundled_scenarios(), strict=True):
        assert line.endswith(scenario.description)


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("nope", "no bundled scenario is named 'nope'"),
        ("missing/nope.yaml", "nope.yaml not found"),
    ],
    ids=["unknown-name", "missing-file"],
)
def test_demo_rejects_unknown_scenarios(argument: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["demo", argument])
    assert result.exit_code == 1
    assert message in result.output


def test_zipped_resources_are_copied_for_the_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = Path(str(demo_catalog.scenarios_root()))
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            out.write(file, f"scenarios/{file.relative_to(source).as_posix()}")
    with zipfile.ZipFile(archive) as opened:
        monkeypatch.setattr(
            demo_catalog, "scenarios_root", lambda: zipfile.Path(opened, "scenarios/")
        )
        assert bundled_names() == NAMES
        with bundled_scenario("php-apache-nasa") as path:
            copied = path.parent
            assert not path.is_relative_to(source)
            scenario = load_scenario(path)  # manifests and the trace are beside it
            assert scenario.name == "php-apache-nasa"
        assert not copied.exists()
