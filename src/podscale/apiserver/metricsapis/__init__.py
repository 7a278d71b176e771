"""The aggregated metrics APIs: metrics.k8s.io, custom.metrics.k8s.io and external.metrics.k8s.io,
the provider contracts, pushed values and samples. Providers live in ``podscale.metrics``.
"""
