"""The served control plane: store, API server, controllers and the simulated cluster assembled on
one clock, for ``podscale up``, ``podscale demo`` and tests.
"""
