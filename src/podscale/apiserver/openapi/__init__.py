"""OpenAPI: the v3 documents and v2 Swagger document, the schemas podscale publishes, and the
unknown-field and type checks against them.
"""
