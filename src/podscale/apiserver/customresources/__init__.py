"""Serving the custom resources that stored CustomResourceDefinitions define.

``definitions`` reads a CRD into ``CustomKind`` values; ``registry`` keeps one server's current
set of them; ``conditions`` computes the CRD status upstream's controllers maintain;
``lifecycle`` writes it and cleans up behind a deleted CRD; ``admission``, ``scale`` and
``discovery`` serve the resources themselves.
"""
