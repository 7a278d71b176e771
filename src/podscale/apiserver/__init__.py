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

from podscale.apiserver.http.app import create_app
from podscale.apiserver.state import MetricsProvider

__all__ = ["MetricsProvider", "create_app"]
