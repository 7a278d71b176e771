"""A tiny Prometheus exporter for the adapter's integration tests (run as a subprocess).

Serves ``/metrics`` in the text exposition format on 127.0.0.1 and prints its port on stdout.
Counters grow at fixed per-second rates from the process start, so ``rate()`` over them is
known; gauges are constant. Some label values are chosen to trip naive escaping: ``web.3``
beside ``webx3`` (an unescaped ``.`` in a regex would match both), ``we`` beside a value
full of quotes, backslashes and a ``|``. ``broken_ratio`` is NaN.
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/metrics":
            self.send_error(404)
            return
        body = render().encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
    sys.exit(0)
