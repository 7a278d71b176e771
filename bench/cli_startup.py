"""Command line start-up: import time and wall time of ``podscale --help``, ``podscale get
pods`` and ``podscale describe hpa``.

Each command runs in a fresh interpreter (``python -m podscale``), ``--runs`` times with
``-X importtime`` and ``--runs`` times without; the table shows medians. Import time is the
sum of the cumulative times of the top-level imports from ``podscale`` on (what the
command imports, not the interpreter's own start-up). ``get`` and ``describe`` read a
kubeconfig that names a server nobody listens on (127.0.0.1, port 1), so they pay for
reading the kubeconfig and fail fast on the connection: import cost, not network. Each run
is checked (exit status and the expected output); the script exits 1 if one was wrong.

Usage: python3 bench/cli_startup.py [--runs 7] [--json]
(``PYTHONPATH`` is passed on, so ``PYTHONPATH=$PWD/src`` measures a working tree.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine import machine  # bench/ is on sys.path when run as a script

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: bench-token}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: admin, namespace: default}
current-context: nowhere
"""
REFUSED = "The connection to the server 127.0.0.1:1 was refused"


@dataclass(frozen=True)
class Case:
    label: str
    args: tuple[str, ...]
    exit_code: int
    expected: str  # a line the output (stdout + stderr) must contain


def cases(kubeconfig: Path) -> tuple[Case, ...]:
    config = ("--kubeconfig", str(kubeconfig))
    return (
        Case("podscale --help", ("--help",), 0, "explain-scale"),
        Case("podscale get pods", ("get", "pods", *config), 1, REFUSED),
        Case("podscale describe hpa", ("describe", "hpa", "web", *config), 1, REFUSED),
    )


def import_microseconds(stderr: str) -> int:
    """Sum of the cumulative times of top-level imports from the first ``podscale`` on."""
    total, counting = 0, False
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        if name.startswith("  "):  # nested: already in its parent's cumulative time
            continue
        module = name.strip()
        counting = counting or module == "podscale" or module.startswith("podscale.")
        if counting and cumulative.strip().isdigit():
            total += int(cumulative)
    return total


def run(case: Case, *, importtime: bool, cwd: Path) -> tuple[float, str]:
    """One run: (wall seconds, stderr). Raises AssertionError on a wrong result."""
    flags = ["-X", "importtime"] if importtime else []
    command = [sys.executable, *flags, "-m", "podscale", *case.args]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    wall = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode != case.exit_code or case.expected not in output:
        raise AssertionError(
            f"{case.label}: exit {done.returncode} (want {case.exit_code}), "
            f"expected {case.expected!r} in:\n{output[-2000:]}"
        )
    return wall, done.stderr


def measure(case: Case, runs: int, cwd: Path) -> dict[str, float]:
    imports = [import_microseconds(run(case, importtime=True, cwd=cwd)[1]) for _ in range(runs)]
    walls = [run(case, importtime=False, cwd=cwd)[0] for _ in range(runs)]
    return {
        "import_s": statistics.median(imports) / 1e6,
        "import_min_s": min(imports) / 1e6,
        "wall_s": statistics.median(walls),
        "wall_min_s": min(walls),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command and mode")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="podscale-bench-") as tmp:
        # A directory of its own: no kubeconfig or scenario of the caller's is picked up.
        directory = Path(tmp)
        kubeconfig = directory / "kubeconfig"
        kubeconfig.write_text(KUBECONFIG, encoding="utf-8")
        for case in cases(kubeconfig):
            try:
                results[case.label] = measure(case, args.runs, directory)
            except AssertionError as err:
                failures.append(str(err))
    report = {"machine": machine(), "runs": args.runs, "results": results, "failures": failures}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("machine:", ", ".join(f"{k}={v}" for k, v in machine().items()))
        print(f"python: {sys.version.split()[0]}, PYTHONPATH={os.environ.get('PYTHONPATH', '')}")
        print(f"medians of {args.runs} runs (min in parentheses)")
        print(f"{'command':<24}{'import time':>20}{'wall time':>20}")
        for label, r in results.items():
            imports = f"{r['import_s']:.3f} s ({r['import_min_s']:.3f})"
            walls = f"{r['wall_s']:.3f} s ({r['wall_min_s']:.3f})"
            print(f"{label:<24}{imports:>20}{walls:>20}")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
