"""The HTTP shell: the Starlette app, routes, handlers, watch streams, body limits, deadlines,
fairness, health and the uvicorn server.
"""
