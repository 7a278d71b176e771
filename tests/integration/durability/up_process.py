"""``podscale up`` as a real process for the kill -9 tests: started with the given flags on a
free port, its URL read from what it announces, killed and reaped on exit."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def podscale_up(data_dir: Path, *flags: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The process and the URL it serves on. No controllers: acknowledged objects must come
    back exactly as written."""
    command = [sys.executable, "-m", "podscale", "up", "--controllers=", *flags]
    process = subprocess.Popen(
        [*command, "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = ""
        for _ in range(50):  # bounded: the first lines announce the URL
            line = process.stdout.readline()
            if not line:
                break
            if "serving on " in line:
                url = line.split("serving on ", 1)[1].split()[0]
                break
        assert url, "podscale up did not announce its URL"
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
