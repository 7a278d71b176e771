"""``spec.conversion`` of a CustomResourceDefinition: None, or a webhook podscale refuses.

Upstream's rules first (a strategy of None or Webhook; a Webhook needs a client config with
exactly one of url or service and ConversionReviewVersions naming v1 or v1beta1; None takes
neither), reported at the internal type's paths (``spec.conversion.webhookClientConfig``,
``spec.conversion.conversionReviewVersions``) as upstream validates after converting v1. Then,
since podscale has no conversion-webhook client (``crd`` explains why), a Webhook strategy
gets one more error saying so. Called by ``crd_spec``. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlparse

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.names import is_dns1035_label

__all__ = ["validate_conversion"]

JSON = Mapping[str, Any]

_STRATEGIES: Final = ("None", "Webhook")
_REVIEW_VERSIONS: Final = ("v1", "v1beta1")


def _mapping(value: Any) -> JSON:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def validate_conversion(spec: JSON, preserve: bool) -> list[FieldError]:
    conversion = spec.get("conversion")
    if not isinstance(conversion, Mapping):
        return []
    path = FieldPath("spec", "conversion")
    strategy = _text(conversion.get("strategy"))
    errors: list[FieldError] = []
    if strategy and strategy != "None" and preserve:
        errors.append(
            invalid(
                path.child("strategy"),
                strategy,
                "must be None if spec.preserveUnknownFields is true",
            )
        )
    if not strategy:
        errors.append(required(path.child("strategy")))
    elif strategy not in _STRATEGIES:
        errors.append(not_supported(path.child("strategy"), strategy, _STRATEGIES))
    webhook = _mapping(conversion.get("webhook"))
    client_config = webhook.get("clientConfig")
    review_versions = webhook.get("conversionReviewVersions")
    review_versions = review_versions if isinstance(review_versions, list) else []
    # v1's webhook.clientConfig and webhook.conversionReviewVersions are reported at the
    # internal type's paths, as upstream validates after converting.
    config_path = path.child("webhookClientConfig")
    reviews_path = path.child("conversionReviewVersions")
    if strategy != "Webhook":
        if client_config is not None:
            errors.append(
                forbidden(config_path, "should not be set when strategy is not set to Webhook")
            )
        if review_versions:
            errors.append(
                forbidden(reviews_path, "should not be set when strategy is not set to Webhook")
            )
        return errors
    if not isinstance(client_config, Mapping):
        errors.append(required(config_path, "required when strategy is set to Webhook"))
    else:
        errors.extend(_client_config_errors(client_config, config_path))
    errors.extend(_review_version_errors(review_versions, reviews_path))
    # podscale serves every version from the stored one by rewriting apiVersion; it has no
    # webhook client, so a CRD that needs one must not be accepted and then fail on reads.
    errors.append(
        forbidden(
            path.child("strategy"),
            "webhook conversion is not supported by this server yet; use strategy None",
        )
    )
    return errors


def _client_config_errors(config: JSON, path: FieldPath) -> list[FieldError]:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [required(path, "exactly one of url or service is required")]
    if url is not None:
        parsed = urlparse(_text(url))
        if parsed.scheme != "https":
            return [invalid(path.child("url"), url, "'https' is the only allowed URL scheme")]
        if not parsed.hostname:
            return [invalid(path.child("url"), url, "host must be specified")]
        return []
    service = _mapping(service)
    errors: list[FieldError] = []
    for key in ("name", "namespace"):
        if not _text(service.get(key)):
            errors.append(required(path.child("service", key), f"service {key} is required"))
    return errors


def _review_version_errors(versions: list[Any], path: FieldPath) -> list[FieldError]:
    if not versions:
        return [required(path)]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, version in enumerate(versions):
        text = _text(version)
        if text in seen:
            errors.append(invalid(path.index(index), text, "duplicate version"))
            continue
        seen.add(text)
        errors.extend(invalid(path.index(index), text, msg) for msg in is_dns1035_label(text))
    if not seen & set(_REVIEW_VERSIONS):
        errors.append(
            invalid(path, versions, "must include at least one of " + ", ".join(_REVIEW_VERSIONS))
        )
    return errors
