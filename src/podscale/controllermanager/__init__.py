"""podscale's controllers as a deployment of their own against any Kubernetes API server.

``podscale controller-manager`` runs the chosen controllers of ``podscale.controllers``
over the HTTP client; ``manifests`` and ``rbac`` say what a cluster needs to run it (the
``podscale manifests`` command and ``deploy/podscale.yaml``).
"""
