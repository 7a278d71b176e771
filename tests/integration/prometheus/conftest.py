"""Fixtures: one real Prometheus (and exporter) per test module; skipped without the binary."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from .harness import PrometheusServer, running_prometheus


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus binary not found (Debian: apt-get install prometheus)")
    with running_prometheus(binary, tmp_path_factory.mktemp("prometheus")) as server:
        yield server
