"""The WebApp example operator: a custom kind (CRD shipped as package data) and its controller."""
