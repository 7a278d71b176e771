"""What Kapacity refuses in an IntelligentHorizontalPodAutoscaler beyond its CRD's schema.

Kapacity runs no validating webhook for its kinds: the CRD's structural schema (enums,
bounds, required fields; ``kind`` in this package) is all that admission checks. A spec
the schema admits can still fail when the controller reconciles it, and Kapacity then
sets ``ScalingActive`` False with the reason ``FailedUpdateAndFetchPortraitValue``, a
Warning event of that reason, and a message that nests the cause the way its Go errors
wrap. ``portrait_problem`` finds that first failure in Kapacity's order: every provider's
type first, then provider by provider the Cron rules' time zone, start and end (Kapacity
loads them when it arms the rule's triggers, before reading any value). Cron specs are
read as robfig/cron's standard parser reads them (``podscale.cron``).

Kapacity accepts ``maxReplicas`` below ``minReplicas`` (its clamp raises to the minimum
and then lowers to the maximum) and leaves ``grayState`` unchecked per direction (a
scale-up gray step is always online); neither is refused here. Time-dependent failures
(two Cron rules active at once) belong to the portrait decisions, not to this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from podscale.controllers.kapacity.types import IhpaSpec, PortraitProvider, ProviderType
from podscale.cron import CronError, parse

__all__ = ["FAILED_PORTRAIT", "Problem", "load_zone", "portrait_problem"]

# The ScalingActive reason (and event reason) of a reconcile that could not read portraits.
FAILED_PORTRAIT: Final = "FailedUpdateAndFetchPortraitValue"
_PREFIX: Final = "failed to update and fetch portrait value: "
_SPEC: Final = "failed to update portrait spec: "


@dataclass(frozen=True, slots=True)
class Problem:
    """Why reconciling stops: ``ScalingActive`` False with this reason and message."""

    reason: str
    message: str


def load_zone(name: str, local: ZoneInfo) -> ZoneInfo:
    """Go's ``time.LoadLocation``: "" and "UTC" are UTC, "Local" the controller's own
    zone (``local``), anything else an IANA name; ``ValueError`` reads as Go's error."""
    if name in ("", "UTC"):
        return ZoneInfo("UTC")
    if name == "Local":
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name}") from None


def _failed(cause: str) -> Problem:
    return Problem(FAILED_PORTRAIT, _PREFIX + cause)


def _missing(provider: PortraitProvider) -> str | None:
    # Kapacity dereferences the part its type names without a check (a nil pointer
    # panic, recovered as a failed reconcile); podscale reports it in Kapacity's frame.
    part = {
        ProviderType.STATIC: provider.static_replicas,
        ProviderType.CRON: provider.crons,
        ProviderType.DYNAMIC: provider.dynamic,
    }[ProviderType(provider.type)]
    if part is None:
        return f"portrait provider of type {provider.type} has no {provider.type.lower()} config"
    return None


def _cron_problem(provider: PortraitProvider, local: ZoneInfo) -> str | None:
    for rule in provider.crons or ():
        try:
            load_zone(rule.time_zone, local)
        except ValueError as error:
            return f'failed to load time zone of cron "{rule.name}": {error}'
        for which, spec in (("start", rule.start), ("end", rule.end)):
            try:
                parse(spec, "standard")
            except CronError as error:
                return (
                    f'failed to add crontab {which} function of cron "{rule.name}": {error.message}'
                )
    return None


def portrait_problem(spec: IhpaSpec, local: ZoneInfo | None = None) -> Problem | None:
    """The first reason Kapacity's controller would fail to read ``spec``'s portraits,
    or ``None``. ``local`` is the zone a rule's ``Local`` names (UTC by default)."""
    zone = local or ZoneInfo("UTC")
    known = {member.value for member in ProviderType}
    for provider in spec.portrait_providers:
        if provider.type not in known:
            return _failed(f'unknown portrait provider type "{provider.type}"')
    for provider in spec.portrait_providers:
        cause = _missing(provider)
        if cause is None and provider.type == ProviderType.CRON:
            cause = _cron_problem(provider, zone)
        if cause is not None:
            return _failed(_SPEC + cause)
    return None
