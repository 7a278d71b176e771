"""Connection settings from kubeconfig files: our reader first, the official loader after.

Two paths: ``kubeconfig_reader`` (PyYAML, ~10 ms to import) covers tokens, certificates,
CA and ``KUBECONFIG`` lists so ``podscale get`` starts fast; ``kubeconfig_official`` (the
``kubernetes`` package, ~0.25 s) runs ``exec`` plugins and ``auth-provider`` tokens
faithfully. ``podscale.cli.resources_core`` calls ``load_kubeconfig``; the resulting
``Connection`` (``podscale.client.connection``) feeds ``podscale.client.http.HttpApi``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from podscale.client.connection import Connection, Selection
from podscale.client.kubeconfig_official import official_selection
from podscale.client.kubeconfig_reader import Unsupported, read_selection

# Connection is named here too: callers built before podscale.client.connection import it here.
__all__ = ["Connection", "connection_from_kubeconfig", "load_kubeconfig"]


def load_kubeconfig(
    path: str | None = None,
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Selection:
    """``context`` (default: the current one) from ``path`` (default: ``$KUBECONFIG`` or
    ``~/.kube/config``), with the context's namespace. ``KubeconfigError`` when unusable."""
    env = os.environ if environ is None else environ
    try:
        return read_selection(path, context, env, os.path.expanduser("~"))
    except Unsupported:
        files = path or env.get("KUBECONFIG") or os.path.join("~", ".kube", "config")
        return official_selection(files, context)


def connection_from_kubeconfig(path: str | None = None, context: str | None = None) -> Connection:
    """The connection alone (``load_kubeconfig`` without the namespace)."""
    return load_kubeconfig(path, context).connection
