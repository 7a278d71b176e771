"""Public fakes and builders for testing code built on podscale.

- ``FakeClock``: virtual time for anything that takes a ``Clock``.
- ``StaticMetricsSource``: a ``MetricsSource`` over fixed samples.
- ``make_hpa``, ``make_scale``, ``make_pod``, ``cpu_metric``: Kubernetes JSON builders.
"""

from podscale.hpa.static_source import StaticMetricsSource
from podscale.testing.builders import cpu_metric, make_hpa, make_pod, make_scale
from podscale.testing.clock import FakeClock

__all__ = ["FakeClock", "StaticMetricsSource", "cpu_metric", "make_hpa", "make_pod", "make_scale"]
