"""``PrometheusHistory``: a workload's series history read from Prometheus ``query_range``.

The ``podscale.history.SeriesReader`` that AHPA and Crane's way of reading history calls
for: each series name (``cpu_usage``, ``memory_usage``, or any other a caller configures)
maps to a PromQL template in the adapter's ``<< >>`` syntax (``template``), with the fields
``.Namespace``, ``.Kind``, ``.Name`` (the workload), ``.PodRegex`` (its pods' names, an RE2
pattern built from the name as the workload controllers name pods: ``web-<hash>-<suffix>``
for a Deployment, ``web-<ordinal>`` for a StatefulSet, ``web-<suffix>`` otherwise) and
``.Window`` (the read's step, at least ``MIN_WINDOW``, in seconds: ``300s``). The defaults
sum cAdvisor's ``container_cpu_usage_seconds_total`` rate and
``container_memory_working_set_bytes`` over the pods, each averaged over the window.

A step ``[t, t + step)`` is evaluated at its end ``t + step`` (where a rate or an
``avg_over_time`` over the step's window covers it) and reported at ``t``, so a point means
what the stored histories' points mean: the step's mean. Several series in the answer are
summed per step; NaN and infinite values are gaps. A series with no template reads as empty.

``read`` is synchronous, as the protocol is: it runs the async ``client.PrometheusClient``
on a private event loop in a worker thread, with a fresh client per read (an httpx client
belongs to the loop that opened it); ``read_async`` does the same on the caller's loop.
Failures raise ``errors.PrometheusError``. Neighbours: ``podscale.history.composite`` pairs
it with a writable store for ``podscale up --prometheus-url``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import httpx

from podscale.history import Point, SeriesKey
from podscale.metrics.prometheus.client import DEFAULT_TIMEOUT, PrometheusClient
from podscale.metrics.prometheus.errors import PrometheusError
from podscale.metrics.prometheus.promql import escape_regex
from podscale.metrics.prometheus.template import GoTemplate, parse_template

__all__ = [
    "DEFAULT_QUERIES",
    "MIN_WINDOW",
    "PrometheusHistory",
    "parse_range_points",
    "pod_regex",
    "render_query",
]

FIELDS: Final = frozenset({"Namespace", "Kind", "Name", "PodRegex", "Window"})
# Below two scrape intervals' worth (at Prometheus's usual 15-60 s) a rate may see one sample.
MIN_WINDOW: Final = timedelta(minutes=2)
_POD_MATCH: Final = 'namespace="<<.Namespace>>",pod=~"<<.PodRegex>>",container!=""'
DEFAULT_QUERIES: Final[Mapping[str, str]] = {
    "cpu_usage": f"sum(rate(container_cpu_usage_seconds_total{{{_POD_MATCH}}}[<<.Window>>]))",
    "memory_usage": (
        f"sum(avg_over_time(container_memory_working_set_bytes{{{_POD_MATCH}}}[<<.Window>>]))"
    ),
}
# The generated part of a pod's name, by the kind of the workload that made it.
_POD_SUFFIX: Final = {
    "Deployment": "-[a-z0-9]+-[a-z0-9]+",
    "StatefulSet": "-[0-9]+",
}
_OTHER_SUFFIX: Final = "-[a-z0-9]+"


def pod_regex(kind: str, name: str) -> str:
    """An RE2 pattern (Prometheus anchors it) matching the names of the workload's pods."""
    return escape_regex(name) + _POD_SUFFIX.get(kind, _OTHER_SUFFIX)


def render_query(template: GoTemplate, key: SeriesKey, step: timedelta) -> str:
    """The PromQL of ``template`` for ``key`` at ``step``."""
    window = max(step, MIN_WINDOW)
    return template.render(
        {
            "Namespace": key.namespace,
            "Kind": key.kind,
            "Name": key.name,
            "PodRegex": pod_regex(key.kind, key.name),
            "Window": f"{int(window.total_seconds())}s",
        }
    )


def _value(raw: Any) -> float | None:
    if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[1], str):
        raise PrometheusError(f"malformed sample {raw!r}: expected [timestamp, value]")
    try:
        value = float(raw[1])
    except ValueError:
        raise PrometheusError(f"sample value {raw[1]!r} is not a number") from None
    return value if math.isfinite(value) else None


def parse_range_points(data: Any, start: datetime, end: datetime, step: timedelta) -> list[Point]:
    """The points of a ``query_range`` answer evaluated at step ends: each sample at ``t``
    becomes the point of the step ending there, at ``t - step``, kept when in
    ``[start, end)``; series are summed per step."""
    if not isinstance(data, Mapping) or data.get("resultType") != "matrix":
        kind = data.get("resultType") if isinstance(data, Mapping) else None
        raise PrometheusError(f"unexpected result type {kind!r} (want matrix)")
    result = data.get("result")
    if not isinstance(result, list):
        raise PrometheusError("malformed query_range response: result is not a list")
    sums: dict[datetime, float] = {}
    for series in result:
        values = series.get("values") if isinstance(series, Mapping) else None
        if not isinstance(values, list):
            raise PrometheusError(f"malformed matrix series {series!r}")
        for raw in values:
            value = _value(raw)
            stamp = raw[0]
            if isinstance(stamp, bool) or not isinstance(stamp, int | float):
                raise PrometheusError(f"malformed sample timestamp {stamp!r}")
            at = datetime.fromtimestamp(stamp, tz=UTC) - step
            if value is not None and start <= at < end:
                sums[at] = sums.get(at, 0.0) + value
    return [Point(at, value) for at, value in sorted(sums.items())]


class PrometheusHistory:
    """A ``SeriesReader`` over the Prometheus at ``url``; see the module docstring.
    ``queries`` replaces the templates of the series it names (the defaults stay for the
    others); a bad template raises ``TemplateError`` here, not on the first read."""

    def __init__(
        self,
        url: str,
        queries: Mapping[str, str] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self._timeout = timeout
        self._transport = transport
        merged = {**DEFAULT_QUERIES, **(queries or {})}
        self._templates = {name: parse_template(text, FIELDS) for name, text in merged.items()}

    @property
    def series_names(self) -> frozenset[str]:
        return frozenset(self._templates)

    def read(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> Sequence[Point]:
        with concurrent.futures.ThreadPoolExecutor(1, "prometheus-history") as pool:
            return pool.submit(asyncio.run, self.read_async(key, start, end, step)).result()

    async def read_async(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> list[Point]:
        """``read`` on the running loop."""
        if step <= timedelta(0):
            raise ValueError(f"step must be positive, got {step}")
        template = self._templates.get(key.series)
        if template is None or end <= start:
            return []
        # The last step starting before ``end`` is evaluated at its end.
        steps = math.ceil((end - start) / step)
        query = render_query(template, key, step)
        client = PrometheusClient(self.url, timeout=self._timeout, transport=self._transport)
        async with client:
            data = await client.query_range(query, start + step, start + steps * step, step)
        return parse_range_points(data, start, end, step)
