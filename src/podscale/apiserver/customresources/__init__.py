"""Custom resources served from CustomResourceDefinitions: registry, routing, tables, OpenAPI.

``definitions`` reads a CRD into ``CustomKind`` values; ``registry`` keeps one server's current
set of them; ``conditions`` computes the CRD status upstream's controllers maintain;
``lifecycle`` writes it and cleans up behind a deleted CRD; ``admission``, ``serving``,
``scale`` and ``discovery`` serve the resources themselves; ``columns`` (with ``jsonpath``)
prints their Tables and ``openapi`` publishes their schemas.
"""
