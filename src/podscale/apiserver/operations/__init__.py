"""The API verbs without HTTP (get, list, create, update, patch, delete, watch, subresources) and
their request options.
"""
