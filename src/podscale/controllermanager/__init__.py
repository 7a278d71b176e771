"""``podscale controller-manager``: podscale's controllers against any API server.

``config`` finds the server (kubeconfig or in-cluster), ``options`` holds the flags'
values, ``health`` serves ``/healthz``, ``/readyz`` and ``/metrics``, ``adapter`` serves
podscale's own external metrics, ``election`` is the seam to client-go style leader
election and ``run`` puts them together (``podscale.cli.controller_manager_command``
parses the flags). A layer beside ``podscale.plane``: it imports the controllers and the
client, never the embedded plane.
"""
