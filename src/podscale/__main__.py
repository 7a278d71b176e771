"""``python -m podscale``: the same as the ``podscale`` command."""

from podscale.cli.main import main

main()
