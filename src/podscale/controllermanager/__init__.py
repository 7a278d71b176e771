"""``podscale controller-manager``: podscale's controllers against any API server.

``config`` finds the server (kubeconfig or in-cluster), ``options`` holds the flags'
values, ``health`` serves ``/healthz``, ``/readyz`` and ``/metrics``, ``adapter`` serves
podscale's own external metrics, ``election`` runs the manager under client-go style leader
election (``podscale.client.leaderelection``), ``build`` makes the controller manager over one
``HttpApi`` and ``run`` puts them together (``podscale.cli.controller_manager_command`` parses
the flags). ``manifests`` and ``rbac`` say what a cluster needs to run it (the ``podscale
manifests`` command and ``deploy/podscale.yaml``). A layer beside ``podscale.plane``: it
imports the controllers and the client, never the embedded plane.
"""
