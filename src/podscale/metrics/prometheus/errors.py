"""The Prometheus adapter's exceptions, one family per way a request can fail.

``PrometheusError`` and its subclasses come from talking to Prometheus (``client``) or
reading its answer (``results``); ``MetricNotFound`` and ``QueryBuildError`` come from the
adapter itself (``registry``, ``queries``); ``ConfigError`` from loading rules (``config``).
The provider (``provider``) lets all of them through unchanged, so the API routes above can
map "not found" to 404 and everything else to a 500 with the message intact.
"""

from __future__ import annotations

from collections.abc import Sequence

from podscale.api.field_errors import FieldError

__all__ = [
    "BadSample",
    "ConfigError",
    "EmptyResult",
    "MetricNotFound",
    "PrometheusError",
    "PrometheusTimeout",
    "QueryBuildError",
    "ResponseTooLarge",
]


class PrometheusError(Exception):
    """Prometheus could not be asked, refused the query, or answered something unusable."""


class PrometheusTimeout(PrometheusError):
    """No complete answer within the client's timeout."""


class ResponseTooLarge(PrometheusError):
    """The response body grew past the client's byte limit; it was not read further."""


class BadSample(PrometheusError):
    """A sample value that must not reach a scaling decision: NaN, ±Inf, not a number."""


class EmptyResult(PrometheusError):
    """The query matched no series. Never read as zero: a missing metric is not an idle one."""


class QueryBuildError(ValueError):
    """A request cannot be expressed as PromQL faithfully (bad label name, ``gt`` operator...)."""


class MetricNotFound(LookupError):
    """No rule exposes this metric for this resource; the text is custom-metrics-apiserver's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(ValueError):
    """An adapter configuration that does not load; ``errors`` name the rule and field."""

    def __init__(self, errors: Sequence[FieldError], source: str = "") -> None:
        self.errors = tuple(errors)
        where = f" {source}" if source else ""
        detail = "; ".join(str(error) for error in self.errors)
        super().__init__(f"invalid prometheus adapter config{where}: {detail}")
