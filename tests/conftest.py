"""Shared pytest setup: hypothesis profiles that never depend on wall-clock speed."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Deadlines measure the machine, not the code: off everywhere. CI runs more examples.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=300
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
