"""Kubernetes protobuf request bodies: the wire format, message schemas per group, decoding to
JSON.
"""
