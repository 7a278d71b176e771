"""Validation of a Service's cluster IPs and IP families, after upstream's Service rules.

``cluster_ip_errors`` is upstream's ``ValidateServiceClusterIPsRelatedFields``: clusterIPs
consistent with clusterIP, ``None`` only alone, valid addresses, at most one per family and
each of the family ``ipFamilies`` names, supported families and ipFamilyPolicy.
``changed_ips`` is the update rule: the primary cluster IP and IP family may not change once
set. ``podscale.api.validation.service`` (the caller) validates the rest of a Service and
shares the small readers here (``listed``, ``is_headless``, ``is_ip``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    duplicate,
    invalid,
    not_supported,
    required,
)

__all__ = [
    "IP_MESSAGE",
    "SPEC",
    "changed_ips",
    "cluster_ip_errors",
    "is_headless",
    "is_ip",
    "listed",
]

JSON = Mapping[str, Any]

_FAMILIES: Final = ("IPv4", "IPv6")
_POLICIES: Final = ("PreferDualStack", "RequireDualStack", "SingleStack")
IP_MESSAGE: Final = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
SPEC: Final = FieldPath("spec")


def listed(spec: JSON, key: str) -> Sequence[Any]:
    """The list at ``key``, or an empty one when it is absent or not a list."""
    value = spec.get(key)
    return value if isinstance(value, list) else []


def is_headless(spec: JSON) -> bool:
    """Upstream's ``isHeadlessService``: ``clusterIPs`` is exactly ``["None"]``."""
    return listed(spec, "clusterIPs") == ["None"]


def is_ip(text: Any) -> bool:
    """Whether ``text`` is an IPv4 or IPv6 address."""
    try:
        ipaddress.ip_address(str(text))
    except ValueError:
        return False
    return True


def _is_ipv6(text: str) -> bool:
    return is_ip(text) and ":" in text


def cluster_ip_errors(spec: JSON) -> list[FieldError]:
    """Upstream ``ValidateServiceClusterIPsRelatedFields`` (ExternalName excluded)."""
    path = SPEC.child("clusterIPs")
    cluster_ip = str(spec.get("clusterIP") or "")
    cluster_ips = [str(ip) for ip in listed(spec, "clusterIPs")]
    families = listed(spec, "ipFamilies")
    errors: list[FieldError] = []
    if cluster_ip:
        if not cluster_ips:
            errors.append(required(path))
        elif cluster_ips[0] != cluster_ip:
            errors.append(invalid(path, cluster_ips, "first value must match `clusterIP`"))
    elif cluster_ips:
        errors.append(invalid(path, cluster_ips, "must be empty when `clusterIP` is not specified"))
    seen: set[str] = set()
    for i, family in enumerate(families):
        if family not in _FAMILIES:
            errors.append(not_supported(SPEC.child("ipFamilies").index(i), family, _FAMILIES))
        if family in seen:
            errors.append(duplicate(SPEC.child("ipFamilies").index(i), family))
        seen.add(str(family))
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _POLICIES:
        errors.append(not_supported(SPEC.child("ipFamilyPolicy"), policy, _POLICIES))
    bad_ips = False
    for i, ip in enumerate(cluster_ips):
        if i == 0 and ip == "None":
            if len(cluster_ips) > 1:
                bad_ips = True
                errors.append(invalid(path, cluster_ips, "'None' must be the first and only value"))
            continue
        if not is_ip(ip):
            bad_ips = True
            errors.append(invalid(path.index(i), ip, IP_MESSAGE))
    if len(cluster_ips) > 2:
        errors.append(invalid(path, cluster_ips, "may only hold up to 2 values"))
    if bad_ips:
        return errors
    if len(cluster_ips) == 2 and _is_ipv6(cluster_ips[0]) == _is_ipv6(cluster_ips[1]):
        errors.append(
            invalid(path, cluster_ips, "may specify no more than one IP for each IP family")
        )
    if not is_headless(spec):
        for i, (ip, family) in enumerate(zip(cluster_ips, families, strict=False)):
            if family == "IPv4" and _is_ipv6(ip):
                errors.append(
                    invalid(
                        path.index(i),
                        ip,
                        f"expected an IPv4 value as indicated by `ipFamilies[{i}]`",
                    )
                )
            if family == "IPv6" and not _is_ipv6(ip):
                errors.append(
                    invalid(
                        path.index(i),
                        ip,
                        f"expected an IPv6 value as indicated by `ipFamilies[{i}]`",
                    )
                )
    return errors


def changed_ips(new: JSON, old: JSON) -> list[FieldError]:
    """Upstream's upgrade/downgrade rules for clusterIPs and ipFamilies, single-stack subset."""
    if "ExternalName" in (new.get("type"), old.get("type")):
        return []
    if is_headless(new) and is_headless(old):
        return []
    new_ips, old_ips = list(listed(new, "clusterIPs")), list(listed(old, "clusterIPs"))
    path = SPEC.child("clusterIPs").index(0)
    errors: list[FieldError] = []
    if old_ips and not new_ips:
        errors.append(invalid(path, new_ips, "primary clusterIP can not be unset"))
    elif old_ips and new_ips and old_ips[0] != new_ips[0]:
        errors.append(invalid(path, new_ips, "may not change once set"))
    if is_headless(new) == is_headless(old) and not is_headless(new):
        new_families, old_families = listed(new, "ipFamilies"), listed(old, "ipFamilies")
        if old_families and new_families and old_families[0] != new_families[0]:
            errors.append(
                invalid(SPEC.child("ipFamilies").index(0), new_families, "may not change once set")
            )
    return errors
