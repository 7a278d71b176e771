"""The ``podscale`` command line (``podscale.cli.main``)."""
