"""Custom resources served from CustomResourceDefinitions: registry, routing, tables, OpenAPI."""
