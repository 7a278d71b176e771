"""Who may talk to the API server: bearer token and Host/Origin checks, TLS certificates, the
request's identity and the self reviews.
"""
