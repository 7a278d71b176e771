"""The Kubernetes-compatible API server (issue 3 §2): a Starlette ASGI app over a ``Store``.

``create_app`` (``app``) builds it; ``server`` runs it with uvicorn. By role: ``discovery``
(version and discovery documents), ``routes`` (verb dispatch), ``handlers_read`` /
``handlers_write`` / ``handlers_delete`` / ``subresources`` / ``watch`` / ``metrics`` (the
verbs), ``admission`` (defaulting, validation, strategy rules), ``selectors``, ``limits``,
``errors`` (upstream ``Status`` bodies) and ``resources`` (URL and storage mapping). Patches
(``patch``), Tables (``printing``) and OpenAPI (``openapi``) are siblings reached through
``extensions``. Layering: this package imports ``podscale.store``, ``podscale.api`` and
``podscale.hpa`` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from podscale.apiserver.app import create_app
    from podscale.apiserver.state import MetricsProvider

__all__ = ["MetricsProvider", "create_app"]


def __getattr__(name: str) -> Any:
    # Resolved on first use: importing a light sibling (``printing_format``, ``patch_schema``
    # for the command line) must not import Starlette and the whole server with ``app``.
    if name == "create_app":
        from podscale.apiserver.app import create_app

        return create_app
    if name == "MetricsProvider":
        from podscale.apiserver.state import MetricsProvider

        return MetricsProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
