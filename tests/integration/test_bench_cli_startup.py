"""bench/cli_startup.py stays runnable: its commands run and give the expected output (no
timing is asserted), and it reads ``-X importtime`` output as intended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "cli_startup.py"
SRC = Path(__file__).parents[2] / "src"

SAMPLE = """\
import time: self [us] | cumulative | imported package
import time:       500 |        900 | site
import time:       150 |        150 | podscale
import time:       100 |        100 |   podscale.cli
import time:      1000 |       2000 | podscale.cli.main
import time:        20 |         30 |   click.types
import time:       700 |       7000 | httpx
"""


def test_import_time_sums_top_level_imports_from_podscale_on() -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        import cli_startup  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCH.parent))
    assert cli_startup.import_microseconds(SAMPLE) == 150 + 2000 + 7000


def test_bench_runs_every_command_correctly() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--runs", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["failures"] == []
    assert sorted(report["results"]) == [
        "podscale --help",
        "podscale describe hpa",
        "podscale get pods",
    ]
