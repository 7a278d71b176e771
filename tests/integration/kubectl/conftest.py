"""Fixtures for the real-kubectl suite: a real ``podscale up`` process and a kubectl runner.

``podscale up`` runs as a subprocess (``python -m podscale up --port 0``); its kubeconfig is
read once it announces itself. The kubectl on these machines is the Google Cloud SDK
dispatcher, which picks its bundled ``kubectl.1.<minor>`` from the server's ``/version``
minor (kubectl-wire.md §0): the hidden ``--report-minor`` option chooses it. Each kubectl
run gets a private HOME, because the dispatcher and kubectl cache ``/version`` and
discovery under ``$HOME/.kube/cache``.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

STARTUP_SECONDS = 20.0
COMMAND_SECONDS = 30.0


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass
class ControlPlaneProcess:
    """A running ``podscale up``; ``announced`` is what it printed before serving."""

    process: subprocess.Popen[str]
    reader: LineReader
    data_dir: Path
    kubeconfig: Path
    announced: list[str] = field(default_factory=list)

    def stop(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        """Stop the server with ``sig``; returns its exit code and remaining output."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode, self.reader.rest(timeout=5)


class LineReader:
    """Reads a child's stdout on a daemon thread, so waiting for a line can time out
    (a select() on a buffered text pipe misses lines already buffered)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        self._lines: queue.Queue[str | None] = queue.Queue()
        stdout = process.stdout

        def pump() -> None:
            with stdout:
                for line in stdout:
                    self._lines.put(line)
            self._lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        self._eof = False

    def next(self, deadline: float) -> str | None:
        """The next line, or None at EOF or once ``deadline`` (monotonic) has passed."""
        if self._eof:
            return None
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        self._eof = line is None
        return line

    def rest(self, timeout: float) -> str:
        """Everything until EOF (bounded by ``timeout``)."""
        deadline = time.monotonic() + timeout
        chunks = []
        while (line := self.next(deadline)) is not None:
            chunks.append(line)
        return "".join(chunks)


def start_control_plane(
    data_dir: Path,
    *,
    minor: int | None = None,
    auth: bool = False,
    workloads: bool = False,
    extra: tuple[str, ...] = (),
) -> ControlPlaneProcess:
    """Start ``podscale up`` and wait (bounded) until it has written its kubeconfig.

    Without ``workloads`` it runs no controllers and no simulated nodes, so the API
    tests see exactly the objects they wrote."""
    command = [sys.executable, "-m", "podscale", "up", "--data-dir", str(data_dir), "--port", "0"]
    if not auth:
        command.append("--no-auth")
    if not workloads:
        command += ["--controllers=", "--no-simulate"]
    command += list(extra)
    if minor is not None:
        command += ["--report-minor", str(minor)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    reader = LineReader(process)
    plane = ControlPlaneProcess(process, reader, data_dir, data_dir / "kubeconfig")
    deadline = time.monotonic() + STARTUP_SECONDS
    while (line := reader.next(deadline)) is not None:
        plane.announced.append(line.rstrip("\n"))
        if line.startswith("Press Ctrl-C"):
            return plane
    code, rest = plane.stop(signal.SIGKILL)
    pytest.fail(f"podscale up did not start (exit {code}):\n" + "\n".join(plane.announced) + rest)


def find_kubectl() -> str | None:
    return shutil.which("kubectl")


@dataclass
class Kubectl:
    """Runs the real kubectl against one control plane, with a private HOME."""

    binary: str
    kubeconfig: Path
    home: Path
    workdir: Path

    def argv(self, *args: str) -> list[str]:
        return [self.binary, "--kubeconfig", str(self.kubeconfig), *args]

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "KUBECONFIG": str(self.kubeconfig),
        }

    def __call__(self, *args: str, stdin: str | None = None) -> Result:
        done = subprocess.run(
            self.argv(*args),
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.workdir,
            env=self.env(),
            timeout=COMMAND_SECONDS,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def ok(self, *args: str, stdin: str | None = None) -> str:
        """Run and require success; returns stdout."""
        result = self(*args, stdin=stdin)
        assert result.returncode == 0, f"kubectl {' '.join(args)} failed:\n{result.output}"
        return result.stdout

    def write(self, name: str, text: str) -> str:
        (self.workdir / name).write_text(text, encoding="utf-8")
        return name


@pytest.fixture(scope="session")
def kubectl_binary() -> str:
    binary = find_kubectl()
    if binary is None:
        pytest.skip("kubectl is not installed: the real-kubectl compatibility suite needs it")
    return binary


@pytest.fixture
def private_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def control_plane_factory(tmp_path: Path) -> Iterator[list[ControlPlaneProcess]]:
    """Started planes registered here are always stopped at teardown."""
    started: list[ControlPlaneProcess] = []
    yield started
    for plane in started:
        plane.stop(signal.SIGKILL)
