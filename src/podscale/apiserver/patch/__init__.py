"""PATCH: JSON patch, JSON merge patch and strategic merge patch, and the patch metadata of the
built-in kinds.
"""
