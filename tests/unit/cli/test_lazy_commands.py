"""The command line imports a command's module only when that command runs: ``podscale
--help`` and the resource commands must not pay for the server, the simulation or the
plot (``podscale.cli.main``). Checked on ``sys.modules`` of a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from podscale.cli.main import COMMANDS, cli, load_command

HEAVY = ("matplotlib", "starlette", "uvicorn", "numpy", "podscale.apiserver")


def imported_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def loaded(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(f"{package}."))


@pytest.mark.parametrize(
    ("code", "absent"),
    [
        (
            "import podscale.cli.main",
            (*HEAVY, "kubernetes", "podscale.scenario", "podscale.demo", "podscale.plane", "httpx"),
        ),
        # What `podscale get` and `podscale describe` load before they read a kubeconfig.
        (
            "import podscale.cli.resources, podscale.cli.resources_get, podscale.cli.describe",
            # printing.format (a leaf of podscale.apiserver) is fine, the server is not.
            (
                "matplotlib",
                "starlette",
                "uvicorn",
                "numpy",
                "podscale.apiserver.http",
                "kubernetes",
                "podscale.scenario",
                "podscale.plane",
                "podscale.controllers",
            ),
        ),
        (
            "import podscale.cli.demo_command",
            (*HEAVY, "kubernetes", "podscale.scenario", "podscale.plane"),
        ),
        (
            "import podscale.cli.replay_command",
            (*HEAVY, "kubernetes", "podscale.scenario", "podscale.plane", "podscale.replay"),
        ),
    ],
    ids=["main", "get-and-describe", "demo-module", "replay-module"],
)
def test_module_does_not_import_heavy_packages(code: str, absent: tuple[str, ...]) -> None:
    modules = imported_after(code)
    assert {package: loaded(modules, package) for package in absent} == {
        package: [] for package in absent
    }


TOKEN_KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
current-context: x
"""


@pytest.mark.parametrize(
    "args", [("get", "pods"), ("describe", "hpa", "web")], ids=["get", "describe"]
)
def test_token_kubeconfig_does_not_import_kubernetes(tmp_path: Path, args: tuple[str, ...]) -> None:
    """podscale reads a token kubeconfig itself (``podscale.client.kubeconfig_reader``): the
    ``kubernetes`` package's loader, 0.25 s of imports, is for exec and auth-provider users."""
    path = tmp_path / "kubeconfig"
    path.write_text(TOKEN_KUBECONFIG)
    command = [*args, "--kubeconfig", str(path)]
    code = (
        "from podscale.cli.main import cli\n"
        f"try:\n    cli({command!r}, standalone_mode=False)\n"
        "except BaseException as err:\n    print(type(err).__name__, err, file=sys.stderr)"
    )
    modules = imported_after(code)
    assert "podscale.cli.resources_core" in modules  # the command ran
    assert "podscale.client.kubeconfig_reader" in modules
    assert loaded(modules, "kubernetes") == []
    # podscale.api and podscale.store resolve their names on use: kinds alone is enough.
    assert "podscale.api.validation" not in modules
    assert "podscale.store.sqlite" not in modules


@pytest.mark.parametrize("name", sorted(COMMANDS), ids=sorted(COMMANDS))
def test_listed_command_is_the_loaded_one(name: str) -> None:
    """The help of ``podscale --help`` (from COMMANDS) is the command's own first line."""
    command = load_command(name)
    assert isinstance(command, click.Command)
    assert command.name == name
    assert command.help is not None
    first_line = " ".join(command.help.split("\n\n")[0].split())
    assert COMMANDS[name].short_help == first_line


def test_help_lists_every_command_and_unknown_ones_fail() -> None:
    runner = CliRunner()
    help_text = runner.invoke(cli, ["--help"]).output
    # Each command's name starts its line (a help text may use a command's name as a word).
    rows = help_text.split("Commands:\n", 1)[1].splitlines()
    listed = [row.split()[0] for row in rows if row.startswith("  ") and row.split()]
    assert [word for word in listed if word in COMMANDS] == sorted(COMMANDS)
    unknown = runner.invoke(cli, ["nope"])
    assert unknown.exit_code == 2
    assert "No such command 'nope'" in unknown.output
