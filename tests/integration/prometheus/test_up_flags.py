"""``podscale up --prometheus-url URL --prometheus-adapter-config FILE``: flags and wiring.

Flag mistakes fail before anything starts, naming the flag, the file and the rule field.
With good flags the server's custom.metrics.k8s.io and external.metrics.k8s.io come from the
Prometheus adapter (for each group the file has rules for), its relist loop runs next to
the controllers, and its client is closed when the server stops. A stub Prometheus (a
thread answering ``/api/v1/series`` and ``/api/v1/query``) stands in for the real one here:
the real one is exercised in ``test_hpa_via_prometheus``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from click.testing import CliRunner

from podscale.api.kinds import kind_for
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.cli.main import cli
from podscale.cli.prometheus_flags import prometheus_settings
from podscale.metrics.prometheus import PrometheusMetricsProvider, load_config
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.plane.prometheus import PrometheusOptions
from podscale.plane.serve import ControlPlane, UpOptions, assemble_control_plane, run_control_plane
from podscale.plane.workloads import build_workloads

JSON = dict[str, Any]
POD = kind_for("v1", "Pod")
CUSTOM_RULE = """
- seriesQuery: '{__name__="http_requests_total",namespace!="",pod!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
      pod: {resource: pod}
  name: {matches: "^(.*)_total$", as: "${1}_per_second"}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m])) by (<<.GroupBy>>)'
"""
EXTERNAL_RULE = """
- seriesQuery: '{__name__="queue_depth"}'
  resources: {namespaced: false}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (queue)'
"""
BOTH = f"rules:{CUSTOM_RULE}externalRules:{EXTERNAL_RULE}"
BAD_REGEX = BOTH.replace('matches: "^(.*)_total$"', 'matches: "(("')


class StubPrometheus(BaseHTTPRequestHandler):
    """Series and instant values for ``http_requests_total`` and ``queue_depth``."""

    queries: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        params = urllib.parse.parse_qs(url.query)
        if url.path == "/api/v1/series":
            match = " ".join(params.get("match[]", []))
            data: Any = [
                labels
                for labels in (
                    {"__name__": "http_requests_total", "namespace": "default", "pod": "web-1"},
                    {"__name__": "queue_depth", "queue": "jobs"},
                )
                if labels["__name__"] in match
            ]
        elif url.path == "/api/v1/query":
            query = params["query"][0]
            type(self).queries.append(query)
            now = time.time()
            if "http_requests_total" in query:
                sample = {
                    "metric": {"namespace": "default", "pod": "web-1"},
                    "value": [now, "12.5"],
                }
            else:
                sample = {"metric": {"queue": "jobs"}, "value": [now, "7"]}
            data = {"resultType": "vector", "result": [sample]}
        else:
            self.send_error(404)
            return
        body = json.dumps({"status": "success", "data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def stub_prometheus() -> Iterator[str]:
    StubPrometheus.queries = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubPrometheus)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "config", "message"),
    [
        (
            ["--prometheus-url", "http://127.0.0.1:9090"],
            None,
            "no metrics discovery configuration file specified "
            "(make sure to use --prometheus-adapter-config)",
        ),
        (["--prometheus-adapter-config", "CONFIG"], BOTH, "needs --prometheus-url"),
        (
            ["--prometheus-url", "localhost:9090", "--prometheus-adapter-config", "CONFIG"],
            BOTH,
            "invalid Prometheus URL 'localhost:9090'",
        ),
        (
            ["--prometheus-url", "http://p:9090", "--prometheus-adapter-config", "missing.yaml"],
            None,
            "unable to load metrics discovery configuration: cannot read missing.yaml: "
            "No such file or directory",
        ),
        (
            ["--prometheus-url", "http://p:9090", "--prometheus-adapter-config", "CONFIG"],
            BAD_REGEX,
            "unable to load metrics discovery configuration: invalid prometheus adapter "
            'config CONFIG: rules[0].name.matches: Invalid value: "(("',
        ),
        (
            ["--prometheus-url", "http://p:9090", "--prometheus-adapter-config", "CONFIG"],
            "rules:\n- seriesQuery: 'up'\n  metricQuery: 'up'\n",
            "config CONFIG: rules[0].metricQuery: Invalid value",
        ),
        (
            ["--prometheus-url", "http://p:9090", "--metrics-relist-interval", "0s"],
            None,
            "must be positive, got 0s",
        ),
    ],
    ids=[
        "url-without-config",
        "config-without-url",
        "url-without-scheme",
        "missing-file",
        "bad-regex-names-file-and-field",
        "misspelt-key-names-field",
        "zero-relist-interval",
    ],
)
def test_bad_flags_fail_before_anything_starts(
    tmp_path: Path, args: list[str], config: str | None, message: str
) -> None:
    path = write(tmp_path / "adapter.yaml", config) if config is not None else None
    args = [str(path) if arg == "CONFIG" else arg for arg in args]
    data_dir = tmp_path / "data"
    result = CliRunner().invoke(cli, ["up", "--data-dir", str(data_dir), *args])
    assert result.exit_code != 0
    assert message.replace("CONFIG", str(path)) in " ".join(result.output.split())
    assert not data_dir.exists()  # nothing was set up


def test_settings_load_the_rule_file(tmp_path: Path) -> None:
    path = write(tmp_path / "adapter.yaml", BOTH)
    values: dict[str, Any] = {
        "prometheus_url": "http://127.0.0.1:9090",
        "prometheus_adapter_config": path,
        "metrics_relist_interval": timedelta(seconds=30),
        "other": 1,
    }
    options = prometheus_settings(values)
    assert options == PrometheusOptions(
        "http://127.0.0.1:9090", load_config(BOTH), timedelta(seconds=30)
    )
    assert values == {"other": 1}  # its own flags popped, the rest left
    assert prometheus_settings({}) is None


def _plane(tmp_path: Path, prometheus: PrometheusOptions, **options: Any) -> ControlPlane:
    up = UpOptions(data_dir=tmp_path / "data", auth=False, prometheus=prometheus, **options)
    return assemble_control_plane(up)


@pytest.mark.parametrize(
    ("config", "custom", "external"),
    [
        (BOTH, "prometheus", "prometheus"),
        (f"rules:{CUSTOM_RULE}", "prometheus", "push"),
        (f"externalRules:{EXTERNAL_RULE}", "push", "prometheus"),
    ],
    ids=["both", "custom-rules-only", "external-rules-only"],
)
def test_the_adapter_serves_the_groups_it_has_rules_for(
    tmp_path: Path, config: str, custom: str, external: str
) -> None:
    prometheus = PrometheusOptions("http://127.0.0.1:9", load_config(config))
    plane = _plane(tmp_path, prometheus)

    async def build() -> tuple[str, str]:
        workloads = build_workloads(plane)
        assert workloads is not None
        state = workloads.api.state

        def which(provider: object) -> str:
            if isinstance(provider, PrometheusMetricsProvider):
                return "prometheus"
            return "push" if provider is workloads.push else repr(provider)

        # The plane routes external reads; what it routes the rest to is the served one.
        router = state.external_metrics_provider
        assert isinstance(router, ExternalMetricsRouter)
        external = router.fallback
        served = which(state.custom_metrics_provider), which(external)
        for provider in (state.custom_metrics_provider, external):
            if isinstance(provider, PrometheusMetricsProvider):
                await provider.adapter.client.aclose()
        return served

    try:
        assert asyncio.run(build()) == (custom, external)
    finally:
        plane.store.close()


def test_up_serves_prometheus_metrics_and_closes_the_adapter(
    tmp_path: Path, stub_prometheus: str
) -> None:
    # No controllers and no simulated cluster: the adapter alone still gets a plane.
    prometheus = PrometheusOptions(
        stub_prometheus, load_config(BOTH), relist_interval=timedelta(seconds=1)
    )
    plane = _plane(tmp_path, prometheus, controllers="", simulate=False)
    announced: list[str] = []
    seen: dict[str, Any] = {}

    async def drive(workloads: EmbeddedControlPlane) -> None:
        deadline = time.monotonic() + 10
        while not announced:
            assert time.monotonic() < deadline, "the server never announced itself"
            await asyncio.sleep(0.05)
        url = announced[0].split()[5]
        provider = workloads.api.state.custom_metrics_provider
        assert isinstance(provider, PrometheusMetricsProvider)
        seen["provider"] = provider
        while not provider.adapter.custom_metrics():  # the first relist ran
            assert time.monotonic() < deadline, "the adapter never listed its metrics"
            await asyncio.sleep(0.05)
        pod = {"metadata": {"name": "web-1", "labels": {"app": "web"}}, "spec": {}}
        pod["spec"] = {"containers": [{"name": "web", "image": "web"}]}
        await workloads.api.create(POD, "default", pod)
        async with httpx.AsyncClient(base_url=url, timeout=5) as client:
            custom = await client.get(
                "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/"
                "http_requests_per_second",
                params={"labelSelector": "app=web"},
            )
            external = await client.get(
                "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth",
                params={"labelSelector": "queue=jobs"},
            )
        seen["custom"], seen["external"] = custom.json(), external.json()

    assert run_control_plane(plane, announce=announced.append, drive=drive) is None
    custom, external = seen["custom"], seen["external"]
    assert [(i["describedObject"]["name"], i["value"]) for i in custom["items"]] == [
        ("web-1", "12500m")
    ]
    assert [(i["metricLabels"], i["value"]) for i in external["items"]] == [
        ({"queue": "jobs"}, "7")
    ]
    assert StubPrometheus.queries == [
        'sum(rate(http_requests_total{namespace="default",pod="web-1"}[1m])) by (pod)',
        'sum(queue_depth{queue="jobs"}) by (queue)',
    ]
    assert seen["provider"].adapter.client._http.is_closed
