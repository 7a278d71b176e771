"""Scenarios: the scenario file model and loader, and playing a scenario on the embedded control
plane.
"""
