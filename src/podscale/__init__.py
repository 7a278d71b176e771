"""podscale: Kubernetes horizontal pod autoscaling in Python.

Layers, lowest first: ``api`` (kinds, quantities, selectors, defaults, validation,
conversion), ``hpa`` (the pure decision engine), then store, API server, clients,
controllers, metrics, runtime, and at the top ``cli``, ``sim`` and ``testing``.
"""

__version__ = "0.1.0"
