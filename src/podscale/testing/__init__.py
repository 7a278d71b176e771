"""Public fakes and builders for testing code built on podscale.

- ``StaticMetricsSource``: a ``MetricsSource`` over fixed samples.
- ``make_hpa``, ``make_scale``, ``make_pod``, ``cpu_metric``: Kubernetes JSON builders.
"""

from podscale.hpa.static_source import StaticMetricsSource
from podscale.testing.builders import cpu_metric, make_hpa, make_pod, make_scale

__all__ = ["StaticMetricsSource", "cpu_metric", "make_hpa", "make_pod", "make_scale"]
