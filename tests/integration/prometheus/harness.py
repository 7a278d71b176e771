"""Starting a real Prometheus and the test exporter, for the adapter's integration tests.

Both run as child processes on loopback ports with a temporary config and storage directory.
``running_prometheus`` waits (bounded polling: these are real external processes) until
Prometheus has samples spanning the rules' 30 s ``rate()`` window, and stops both processes
when the block ends, however it ends. ``conftest`` wraps it in a module-scoped fixture.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
STARTUP_TIMEOUT = 90.0
# 1 s scrapes: this many samples span 32 s, more than the 30 s rate() window of the rules.
# rate() divides by the whole window, so over a half-filled one it reads far too low.
FULL_WINDOW_SAMPLES = 33


@dataclass(frozen=True)
class PrometheusServer:
    url: str
    exporter_port: int


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _spawn(stack: ExitStack, args: list[str], **options: object) -> subprocess.Popen[bytes]:
    process: subprocess.Popen[bytes] = subprocess.Popen(args, **options)  # type: ignore[call-overload]
    stack.callback(_stop, process)
    return process


def _instant_value(url: str, expr: str) -> float | None:
    query = urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(f"{url}/api/v1/query?{query}", timeout=5) as response:
        result = json.load(response)["data"]["result"]
    return float(result[0]["value"][1]) if result else None


def _wait_until_scraped(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    expr = f"min(count_over_time(http_requests_total[{FULL_WINDOW_SAMPLES + 8}s]))"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"prometheus exited with code {process.returncode}")
        try:
            count = _instant_value(url, expr)
            if count is not None and count >= FULL_WINDOW_SAMPLES:
                return
        except OSError:
            pass  # not listening yet
        time.sleep(0.25)
    raise RuntimeError(f"prometheus at {url} had too few samples after {STARTUP_TIMEOUT:.0f}s")


def start_prometheus(
    stack: ExitStack, binary: str, work: Path, exporter_args: tuple[str, ...] = ()
) -> tuple[str, int, subprocess.Popen[bytes]]:
    """Start the exporter (with ``exporter_args``) and a Prometheus scraping it every second,
    both stopped by ``stack``; returns Prometheus' URL, the exporter's port and the server."""
    exporter = _spawn(
        stack, [sys.executable, str(HERE / "exporter.py"), *exporter_args], stdout=subprocess.PIPE
    )
    assert exporter.stdout is not None
    stack.callback(exporter.stdout.close)
    exporter_port = int(exporter.stdout.readline())
    config = work / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "scrape_configs:\n"
        "- job_name: exporter\n"
        "  honor_labels: true\n"
        f"  static_configs: [{{targets: ['127.0.0.1:{exporter_port}']}}]\n"
    )
    log = stack.enter_context((work / "prometheus.log").open("wb"))
    port = _free_port()
    server = _spawn(
        stack,
        [
            binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={work / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return f"http://127.0.0.1:{port}", exporter_port, server


@contextmanager
def running_prometheus(binary: str, work: Path) -> Iterator[PrometheusServer]:
    """The exporter and a Prometheus scraping it every second, ready for ``rate()[30s]``."""
    with ExitStack() as stack:
        url, exporter_port, server = start_prometheus(stack, binary, work)
        _wait_until_scraped(url, server)
        yield PrometheusServer(url, exporter_port)
