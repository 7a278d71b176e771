"""The built wheel is a real package: it carries the bundled demo scenarios (their
manifests and traces), and ``podscale demo --list`` works from it, installed in a fresh
virtual environment and run away from the source tree. ``.ci/run`` also plays the default
demo from such an install; here listing is enough to prove the data is found.

Building needs setuptools and wheel (pip fetches them for an isolated build); when pip
cannot get them (no network, no cache) the test skips and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "src" / "podscale" / "demo" / "scenarios"
NAMES = ("php-apache-demo", "php-apache-nasa", "php-apache-step")
# What pip prints when it cannot fetch the build requirements.
UNAVAILABLE = ("No matching distribution found", "Could not find a version")


def clean_env() -> dict[str, str]:
    """The environment without PYTHONPATH: only the installed wheel may be importable."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=clean_env(),
    )
    if done.returncode != 0 and any(message in done.stderr for message in UNAVAILABLE):
        reason = "pip cannot fetch the build requirements (setuptools, wheel)"
        print(f"skipping: {reason}\n{done.stderr[-1000:]}")
        pytest.skip(reason)
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("podscale-*.whl")
    return built


def test_wheel_carries_the_bundled_scenarios(wheel: Path) -> None:
    expected = {
        f"podscale/demo/scenarios/{p.relative_to(BUNDLED).as_posix()}"
        for p in BUNDLED.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert {f"podscale/demo/scenarios/{name}.yaml" for name in NAMES} <= expected
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert expected <= names, sorted(expected - names)
    assert "podscale/py.typed" in names


def test_installed_wheel_lists_the_bundled_scenarios(wheel: Path, tmp_path: Path) -> None:
    # System site packages give the dependencies without a download; the wheel's own
    # podscale is found first, in the environment's site-packages.
    # This interpreter's pip installs into it (``--python``), which saves an ensurepip.
    venv.create(tmp_path / "venv", system_site_packages=True, with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    install = [*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(install, check=True, timeout=300, env=clean_env(), capture_output=True)
    where = subprocess.run(
        [str(python), "-c", "import podscale; print(podscale.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=clean_env(),
    )
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv")
    listed = subprocess.run(
        [str(tmp_path / "venv" / "bin" / "podscale"), "demo", "--list"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env=clean_env(),
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(NAMES)
