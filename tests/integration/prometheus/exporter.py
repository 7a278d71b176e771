"""A tiny Prometheus exporter for the adapter's integration tests (run as a subprocess).

Serves ``/metrics`` in the text exposition format on 127.0.0.1 and prints its port on stdout.
Counters grow at fixed per-second rates from the process start, so ``rate()`` over them is
known; gauges are constant. Some label values are chosen to trip naive escaping: ``web.3``
beside ``webx3`` (an unescaped ``.`` in a regex would match both), ``we`` beside a value
full of quotes, backslashes and a ``|``. ``broken_ratio`` is NaN.

``exporter.py --controlled`` serves none of that: it starts empty and the test sets series
with ``POST /set`` and a JSON body ``{"counters": [{"name", "labels", "rate"}], "gauges":
[{"name", "labels", "value"}]}``. A counter keeps its value across rate changes (it grows at
the new rate from the moment it is set; a new one starts at 0); a gauge holds its value.
The HPA tests drive per-pod request rates and a queue depth this way.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

START = time.monotonic()

# (namespace, pod, requests per second)
RATES = [
    ("default", "web-1", 5.0),
    ("default", "web-2", 2.0),
    ("default", "web.3", 1.0),
    ("default", "webx3", 7.0),
    ("other", "web-1", 100.0),
]
HOSTILE_QUEUE = 'we"ird\\q|x'


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render() -> str:
    elapsed = time.monotonic() - START
    lines = ["# TYPE http_requests_total counter"]
    for namespace, pod, rate in RATES:
        lines.append(
            f'http_requests_total{{namespace="{namespace}",pod="{_escape(pod)}"}} '
            f"{rate * elapsed:.6f}"
        )
    lines += [
        "# TYPE queue_depth gauge",
        'queue_depth{queue="jobs"} 42',
        f'queue_depth{{queue="{_escape(HOSTILE_QUEUE)}"}} 7',
        'queue_depth{queue="we"} 1000',
        "# TYPE queue_messages_ready gauge",
        'queue_messages_ready{namespace="default",deployment="worker"} 30',
        "# TYPE broken_ratio gauge",
        "broken_ratio NaN",
    ]
    return "\n".join(lines) + "\n"


Labels = tuple[tuple[str, str], ...]


class Controlled:
    """Series set over HTTP: counters as (value at ``since``, rate), gauges as values."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counters: dict[tuple[str, Labels], tuple[float, float, float]] = {}
        self.gauges: dict[tuple[str, Labels], float] = {}

    def apply(self, body: dict[str, Any]) -> None:
        now = time.monotonic()
        with self.lock:
            for item in body.get("counters", []):
                key = (str(item["name"]), _labels(item))
                value = self._counter_value(key, now)
                self.counters[key] = (value, now, float(item["rate"]))
            for item in body.get("gauges", []):
                self.gauges[(str(item["name"]), _labels(item))] = float(item["value"])

    def _counter_value(self, key: tuple[str, Labels], now: float) -> float:
        value, since, rate = self.counters.get(key, (0.0, now, 0.0))
        return value + rate * (now - since)

    def render(self) -> str:
        now = time.monotonic()
        with self.lock:
            samples = [(key, "counter", self._counter_value(key, now)) for key in self.counters]
            samples += [(key, "gauge", value) for key, value in self.gauges.items()]
        lines: list[str] = []
        typed: set[str] = set()
        # The exposition format wants every series of a metric after its one TYPE line.
        for (name, labels), kind, value in sorted(samples):
            if name not in typed:
                typed.add(name)
                lines.append(f"# TYPE {name} {kind}")
            pairs = ",".join(f'{label}="{_escape(text)}"' for label, text in labels)
            lines.append(f"{name}{{{pairs}}} {value:.6f}")
        return "\n".join(lines) + "\n"


def _labels(item: dict[str, Any]) -> Labels:
    labels = item.get("labels") or {}
    return tuple(sorted((str(k), str(v)) for k, v in labels.items()))


CONTROLLED: Controlled | None = None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        if self.path != "/set" or CONTROLLED is None:
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length", "0"))
        CONTROLLED.apply(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def do_GET(self) -> None:
        if self.path != "/metrics":
            self.send_error(404)
            return
        body = (render() if CONTROLLED is None else CONTROLLED.render()).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    global CONTROLLED
    if "--controlled" in sys.argv[1:]:
        CONTROLLED = Controlled()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
    sys.exit(0)
