"""The Kubernetes-compatible API server: a Starlette ASGI app over a ``Store``.

``create_app`` (``http.app``) builds it; ``http.server`` runs it with uvicorn. Subpackages by
role: ``http`` (the HTTP shell: routes, handlers, watch streams, limits, health),
``operations`` (the verbs without HTTP, shared with the in-process client), ``registry``
(strategies, the admission pipeline, namespace lifecycle, Service allocation), ``auth``
(access guard, TLS, identity, self reviews), ``patch`` (JSON, merge and strategic merge
patch), ``printing`` (Tables), ``openapi`` (v2 and v3 documents, field checks),
``protobuf`` (protobuf request bodies) and ``metricsapis`` (metrics.k8s.io, custom and
external metrics). At the top: ``discovery``, ``errors`` (upstream ``Status`` bodies),
``resources`` (URL and storage mapping), ``state`` (what every handler needs) and
``extensions`` (typed access to patch, printing and openapi). Layering: this package imports
``podscale.store``, ``podscale.api`` and ``podscale.hpa`` only. The package itself exports
nothing, so importing a light sibling (``printing.format`` for the command line) does not
import Starlette and the whole server.
"""
