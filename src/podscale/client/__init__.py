"""Clients of the API: transports, informers and the controllers' work queue."""
