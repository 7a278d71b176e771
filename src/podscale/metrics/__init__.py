"""The metrics pipeline: where metric values come from.

The metrics server (resource usage from the kubelets, served as metrics.k8s.io), custom and
external metric providers (a Prometheus adapter and a push provider) behind the API
server's metrics groups. Sits above ``podscale.controllers`` and below ``podscale.runtime``.
"""
